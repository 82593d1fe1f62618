import type { RuleGroup } from '../rule.js';

/** memory.config.yaml, prompt files and the LLM profile: a command stops before it writes anything. */
export const CONFIG_RULES = {
  'config/yaml': {
    title: 'memory.config.yaml is not valid YAML',
    severity: 'error',
    hint: 'fix the YAML syntax at this position (indentation, a missing `:` or an unclosed quote)',
  },
  'config/schema': {
    title: 'A key or value of memory.config.yaml is not allowed',
    severity: 'error',
    hint: 'see memory.config.schema.json or the README for the allowed keys and values',
    docs: 'The place is the YAML node itself (an unknown key points at the key). `memvault init` writes the JSON Schema for editors.',
  },
  'config/vault': {
    title: '`vault:` is not a folder inside the project',
    severity: 'error',
    hint:
      'set `vault:` to a relative path inside the folder of memory.config.yaml, e.g. `vault: vault`; ' +
      'memvault reads and writes only inside the project',
    docs: 'An absolute path or one that climbs out with `..` would make every build and `add` write outside the repository.',
  },
  'config/verify-repo': {
    title: '`verify.repo` is not a git repository with a commit',
    severity: 'error',
    hint:
      'set `verify.repo` in memory.config.yaml to the folder of a git clone that has at least one commit (relative to ' +
      'memory.config.yaml, e.g. `verify: { repo: ../app }`), or remove it to check citations against the repository holding the vault',
    docs:
      "Citations are checked against that repository's HEAD at every build and by `memvault verify`; a folder that is missing, " +
      'not in a git repository, or in one without commits stops them (exit 1) before the build plans anything.',
  },
  'config/invalid': {
    title: 'memory.config.yaml is invalid',
    severity: 'error',
    hint: 'fix the lines listed above',
    docs:
      'Every command reads the config the same way (`loadValidConfig`): each problem is printed as ' +
      '`memory.config.yaml:line:col error reason`, then this message, and the command exits 1 before it reads or writes the vault.',
  },
  'prompt/yaml': {
    title: 'A prompt file is not valid YAML',
    severity: 'error',
    hint: 'fix the YAML syntax at this position (indentation, a missing `:`, an unclosed quote; a value starting with `{{` must be quoted)',
  },
  'prompt/schema': {
    title: 'A prompt file has an unknown or missing key',
    severity: 'error',
    hint: 'a prompt file has `system`, `user` and optionally `source`, `retry`, `keep`, `completion`; see docs/llm.md',
  },
  'prompt/variable': {
    title: 'A prompt template uses an unknown variable or lacks a required one',
    severity: 'error',
    hint: 'a template may use only the variables of its request, and must contain the one that carries its inputs',
    docs: 'The message names the variable; the hint lists the variables allowed at that place or the one missing.',
  },
  'prompt/unknown-file': {
    title: 'A file in the prompts folder is not a prompt memvault uses',
    severity: 'warning',
    hint: 'prompt files are named {names}',
  },
  'prompt/invalid': {
    title: 'Prompt files are invalid',
    severity: 'error',
    hint: 'fix the lines listed above, or delete the override to use the built-in prompt',
  },
  'llm/profile': {
    title: 'The LLM profile is not defined',
    severity: 'error',
    hint: 'define it under `llm.profiles` in memory.config.yaml, or use one of: {known}',
  },
  'llm/base-url': {
    title: "A profile's `base_url` is not an http(s) URL",
    severity: 'error',
    hint: 'use e.g. `base_url: http://localhost:11434/v1` (Ollama) or leave it out for api.openai.com',
  },
  'llm/model': {
    title: 'A profile names no model',
    severity: 'error',
    hint: 'add `model:` to `llm.profiles.{profile}` (e.g. `gpt-4.1-mini`, `llama3.1:8b`) or set MEMVAULT_MODEL',
  },
  'llm/api-key-env': {
    title: '`api_key_env` holds a key instead of naming a variable',
    severity: 'error',
    hint:
      'remove the key from memory.config.yaml (and from git history if it was committed), ' +
      'then set e.g. `api_key_env: OPENAI_API_KEY` and export the key in the environment',
  },
  'llm/api-key': {
    title: "The API key's environment variable is not set",
    severity: 'error',
    hint:
      'export {variable}=… before running memvault (keys are read from the environment only, never from the vault); ' +
      'or use a local server (base_url) or `provider: extractive`',
  },
  'llm/failed': {
    title: 'An LLM call failed for good, after its retries',
    severity: 'error',
    hint: 'check the server, the model name and the key of the profile; the build reports the summary as failed and builds the rest',
    docs: 'Timeouts, rate limits and server errors are retried with backoff first; a refused key or an unknown model stops at once.',
  },
  'llm/usage': {
    title: 'The LLM server reported token usage that cannot be real',
    severity: 'warning',
    hint: "the server or a proxy in front of it misreports `usage`; the figures in this report are memvault's own counts",
  },
} as const satisfies RuleGroup;
