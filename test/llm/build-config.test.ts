import { describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { createProject, runCli } from '../helpers/project.js';
import { expectNoKey, KEY, KEY_ENV, llmConfig, llmHistory, summaries, useFakeOpenAI } from './llm-project.js';

/**
 * Configuring the openai provider, end to end: profiles and their environment
 * overrides, keys, completion mode for base models, prompt overrides that do
 * not validate. Scenarios checked by the server's log and the files (the
 * key placeholder, completion mode) build in-process; messages go through
 * the CLI.
 */

const NOW = '2026-02-18T06:00:00Z';
const history = llmHistory({ from: '2026-02-09', to: '2026-02-17', seed: 9 });

const fake = useFakeOpenAI();

function project(config: string, files: Record<string, string> = {}): string {
  const root = createProject({ ...history.files, ...files }, config);
  return fake.track(root);
}

describe('profiles and keys', () => {
  const OPENAI_CONFIG = `timezone: UTC
git: { commit: false }
llm:
  profile: cloud
  profiles:
    cloud: { provider: openai, model: gpt-4.1-mini }
`;

  it('a missing key for api.openai.com stops the build before anything is written, with a hint', async () => {
    const root = project(OPENAI_CONFIG);
    const result = await runCli(['build', '--now', NOW], { cwd: root, env: { OPENAI_API_KEY: '' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('memvault: no API key for profile `cloud`: the environment variable `OPENAI_API_KEY` is not set');
    expect(result.stderr).toMatch(/hint: export OPENAI_API_KEY=… before running memvault/);
    expect(summaries(root).size).toBe(0);
  });

  it('a dry run needs no key and calls nothing', async () => {
    const root = project(OPENAI_CONFIG);
    const result = await runCli(['build', '--now', NOW, '--dry-run'], { cwd: root, env: { OPENAI_API_KEY: '' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('(openai/gpt-4.1-mini)');
    expect(result.stdout).toMatch(/ {4}daily +\d+ summaries/);
  });

  it('MEMVAULT_PROFILE, MEMVAULT_BASE_URL and MEMVAULT_MODEL override the config', async () => {
    const root = project(`timezone: UTC
git: { commit: false }
llm:
  profile: summarizer
  profiles:
    summarizer: { provider: extractive }
    local: { provider: openai, base_url: "http://127.0.0.1:9/v1", model: wrong-model, api_key_env: FAKE_LLM_KEY }
`);
    const result = await runCli(['build', '--now', NOW], {
      cwd: root,
      env: { ...KEY_ENV, MEMVAULT_PROFILE: 'local', MEMVAULT_BASE_URL: fake.server.url, MEMVAULT_MODEL: 'env-model:7b' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fake.server.calls().length).toBeGreaterThan(0);
    expect(fake.server.calls().every((c) => c.body.model === 'env-model:7b' && c.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    const viaModel = [...summaries(root).values()].filter((s) => s.meta.generator.provider === 'openai');
    expect(viaModel.length).toBe(fake.server.calls().length);
    expect(viaModel.every((s) => s.meta.generator.model === 'env-model:7b')).toBe(true);
    expectNoKey(root, result);
  });

  it('an unknown profile is a user error naming the ones defined', async () => {
    const root = project(llmConfig({ url: fake.server.url }));
    const result = await runCli(['build', '--now', NOW], { cwd: root, env: { MEMVAULT_PROFILE: 'nope' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('LLM profile `nope` is not defined');
    expect(result.stderr).toContain('local');
  });

  it('a local server gets a placeholder, never OPENAI_API_KEY, unless api_key_env names it', async () => {
    const root = project(llmConfig({ url: fake.server.url }).replace(', api_key_env: FAKE_LLM_KEY', ''));
    await build({ root, now: new Date(NOW), env: { OPENAI_API_KEY: KEY } });
    expect(fake.server.calls().length).toBeGreaterThan(0);
    expect(fake.server.calls().every((c) => c.headers.authorization === 'Bearer memvault-no-key')).toBe(true);
  });
});

describe('completion mode (base models)', () => {
  it('sends the completion-mode format (`# Memories:` … `>`) to /v1/completions with stop sequences and writes first-person summaries', async () => {
    const root = project(llmConfig({ url: fake.server.url, mode: 'completion' }));
    await build({ root, now: new Date(NOW), env: KEY_ENV });
    const calls = fake.server.calls();
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.endpoint).toBe('completion');
      expect(call.body.stop).toEqual(['\n#']);
      expect(call.body.prompt).toMatch(/^# Memories:\n\n### /);
      expect(call.body.prompt).toMatch(/\n# Summary \(first-person perspective, I\/me\/my, no meta-commentary, under \d+ words\):\n>$/);
    }
    const viaModel = [...summaries(root).values()].filter((s) => s.meta.generator.provider === 'openai');
    expect(viaModel.length).toBe(calls.length);
    for (const summary of viaModel) expect(summary.body).toMatch(/^# main: .*\n\nI noted \d+ things\. I remember /);
  });
});

describe('prompt overrides', () => {
  it('an invalid override stops the build with file:line:col', async () => {
    const root = project(llmConfig({ url: fake.server.url }), {
      'prompts/weekly.yaml': 'system: Be brief.\nuser: |\n  Week {{period}}, under {{max_tokenz}} tokens.\n  {{sources}}\n',
    });
    const result = await runCli(['build', '--now', NOW], { cwd: root, env: KEY_ENV });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('prompts/weekly.yaml:3:26 error `user`: unknown variable `{{max_tokenz}}`');
    expect(result.stderr).toContain('memvault: prompt files are invalid (1 problem)');
    expect(fake.server.calls()).toHaveLength(0);
    expect(summaries(root).size).toBe(0);
  });

  it('a prompt file with an unknown name is a warning', async () => {
    const root = project(llmConfig({ url: fake.server.url }), { 'prompts/weeky.yaml': 'system: x\n' });
    const result = await runCli(['build', '--now', NOW], { cwd: root, env: KEY_ENV });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^prompts\/weeky\.yaml:1:1 warning not a prompt memvault uses/m);
  });
});
