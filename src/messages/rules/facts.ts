import type { RuleGroup } from '../rule.js';

/** Facts (`kind: fact` memories and inline `Fact:` lines) and their contradictions: see docs/facts.md. */
export const FACT_RULES = {
  'fact/incomplete': {
    title: 'A `kind: fact` memory lacks its key or value',
    severity: 'warning',
    hint:
      'add both to the frontmatter, e.g. `key: primary_db` and `value: postgresql`, or state the fact on a line of the body ' +
      '(`Fact: primary_db = postgresql`); or change `kind`',
    docs: 'The memory is still loaded and summarized; it just states no fact.',
  },
  'fact/invalid-date': {
    title: '`valid_from` or `valid_to` of a fact is not a date',
    severity: 'warning',
    hint: "write a day (`2026-03-01`) or an ISO instant; meanwhile the fact is read as valid from the memory's day, open-ended",
  },
  'fact/contradiction': {
    title: 'Two facts with the same key and scope hold at the same time with different values',
    severity: 'warning',
    hint: 'decide which holds: `memvault resolve {id} --keep a|b|both` (nothing is deleted), or edit the memories',
    docs:
      'Neither fact supersedes the other and their validity overlaps. memvault never picks one silently: the pair is listed ' +
      'by `build`, `status`, `memvault facts`, INDEX.md, and first in the package and the context until a person resolves it.',
  },
  'fact/unknown-contradiction': {
    title: '`memvault resolve` names a contradiction that does not exist (any more)',
    severity: 'error',
    hint: 'list the open ones with `memvault facts` (ids look like `c-1a2b3c4d`); {known}',
  },
  'fact/same-memory': {
    title: 'Both facts of a contradiction are in one memory',
    severity: 'error',
    hint: 'edit {path}: keep the line that holds, or give the lines different scopes `(scope)`',
  },
  'cli/threshold': {
    title: '`--threshold` is not a similarity between 0 and 1',
    severity: 'error',
    hint: 'e.g. --threshold {example} (Jaccard similarity of word 3-shingles)',
  },
  'fact/check-no-llm': {
    title: '`memvault facts --check` needs a model, and the active LLM profile has none',
    severity: 'error',
    hint:
      'add a profile with `provider: openai`, `base_url` and `model` under `llm.profiles` in memory.config.yaml, then select it ' +
      'with `llm.profile: <name>` or MEMVAULT_PROFILE=<name> (profiles: {known})',
    docs: 'The check asks a model whether two decisions contradict; the embedded extractive summarizer cannot judge that.',
  },
  'fact/check-cache': {
    title: 'The cache of `memvault facts --check` answers cannot be read',
    severity: 'warning',
    hint: 'the answers that cannot be read are asked again and replaced',
  },
  'fact/frontmatter': {
    title: "A memory's frontmatter cannot be edited to record a resolution",
    severity: 'error',
    hint: 'fix the frontmatter (a YAML mapping between `---` lines) and run `memvault resolve` again',
  },
} as const satisfies RuleGroup;
