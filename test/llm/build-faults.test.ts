import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build as runBuild } from '../../src/pipeline/build.js';
import { closedPort } from '../helpers/fake-openai.js';
import { type CliResult, copyProject, createProject, runCli } from '../helpers/project.js';
import {
  changed,
  expectConsistentVault,
  expectNoKey,
  KEY,
  KEY_ENV,
  llmConfig,
  llmHistory,
  summaries,
  useFakeOpenAI,
} from './llm-project.js';

/**
 * Every fault of an LLM call, end to end through the CLI: what the build
 * does, what it reports, that the vault stays consistent and that the key
 * shows up nowhere. Two weeks of memories; W06 and W07 are complete. The
 * CLI runs where its output or exit code is checked; builds checked by their
 * report and files run in-process (`buildHere`).
 */

const NOW = '2026-02-18T06:00:00Z';
const history = llmHistory({ from: '2026-02-02', to: '2026-02-17', seed: 5 });
/** Days whose daily needs the model (three memories each). */
const BUSY = [...history.byDay.entries()].filter(([, files]) => files.length === 3).map(([day]) => day);
const [DAY, OTHER] = BUSY as [string, string];
/** The request for one day's daily names that day (see prompts/daily.yaml). */
const dailyOf = (day: string): string => `memories of ${day}`;
const weekOf = (day: string): string => (day <= '2026-02-08' ? '2026-W06' : '2026-W07');

const fake = useFakeOpenAI();

function project(options: Partial<Parameters<typeof llmConfig>[0]> = {}): string {
  const root = createProject(history.files, llmConfig({ url: fake.server.url, ...options }));
  return fake.track(root);
}
const build = (root: string, ...flags: string[]) => runCli(['build', '--now', NOW, '--json', ...flags], { cwd: root, env: KEY_ENV });
/**
 * The same build in this process, as the CLI's result: its `--json` report on stdout, exit 0 (a build that throws fails
 * the test). For the scenarios that read the report and the files, not the CLI's output: no CLI start each.
 */
const buildHere = async (root: string): Promise<CliResult> => {
  const report = await runBuild({ root, now: new Date(NOW), env: KEY_ENV });
  return { code: 0, stdout: JSON.stringify(report), stderr: '' };
};
const json = (result: { stdout: string }) => JSON.parse(result.stdout);
const callsFor = (day: string) => fake.server.calls().filter((c) => c.prompt.includes(dailyOf(day)));

it('the scenario has busy days in both weeks', () => {
  expect(DAY < '2026-02-09' || OTHER >= '2026-02-09').toBe(true);
  expect(BUSY.length).toBeGreaterThanOrEqual(3);
});

describe('a fault that persists for one summary', () => {
  it('5xx: fails that daily only, its week waits, --strict exits 1, and the next build completes it', async () => {
    const root = project();
    fake.server.inject({ fault: { kind: 'status', status: 500, message: 'upstream exploded' }, times: Infinity, match: dailyOf(DAY) });
    const result = await build(root);
    expect(result.code, result.stderr).toBe(0);
    const report = json(result).streams[0];
    expect(report.failed).toEqual([
      {
        tier: 'daily',
        period: DAY,
        path: `main/daily/${DAY}.md`,
        kind: 'server',
        reason: `${fake.server.url} answered 500 (server error): upstream exploded (3 attempts)`,
        kept: false,
      },
    ]);
    expect(report.tiers.daily).toMatchObject({ failed: 1 });
    expect(report.tiers.daily.retries).toBeGreaterThanOrEqual(2);
    expect(callsFor(DAY)).toHaveLength(3);
    expect(report.deferred).toContainEqual(expect.objectContaining({ tier: 'weekly', period: weekOf(DAY) }));
    const files = summaries(root);
    expect(files.has(`vault/main/daily/${DAY}.md`)).toBe(false);
    expect(files.has(`vault/main/daily/${OTHER}.md`)).toBe(true);
    expect(files.has(`vault/main/weekly/${weekOf(DAY)}.md`)).toBe(false);
    const otherWeek = weekOf(DAY) === '2026-W06' ? '2026-W07' : '2026-W06';
    expect(files.has(`vault/main/weekly/${otherWeek}.md`)).toBe(true);
    expectConsistentVault(root);

    const strict = await runCli(['build', '--now', NOW, '--strict'], { cwd: fake.track(copyProject(root)), env: KEY_ENV });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`FAILED daily ${DAY}: ${fake.server.url} answered 500 (server error): upstream exploded (3 attempts)`);
    expect(strict.stdout).toContain('the tiers above them wait and the next build retries them');
    expect(strict.stderr).toContain('memvault: build incomplete (--strict): 1 rollup failed');
    expect(strict.stderr).toContain('hint:');

    fake.server.reset();
    const before = summaries(root);
    const again = await buildHere(root);
    expect(again.code).toBe(0);
    expect(json(again).streams[0].failed).toEqual([]);
    const regenerated = changed(before, summaries(root));
    expect(regenerated).toEqual([`vault/main/daily/${DAY}.md`, `vault/main/weekly/${weekOf(DAY)}.md`]);
    expect(fake.server.calls()).toHaveLength(
      regenerated.filter((p) => summaries(root).get(p)!.meta.generator.provider === 'openai').length,
    );
    expectNoKey(root, result, strict, again);
  });

  it('runaway output cut by max_tokens: retried tighter, then the daily fails and nothing is written for it', async () => {
    const root = project();
    fake.server.inject({ fault: { kind: 'runaway' }, times: Infinity, match: dailyOf(DAY) });
    const result = await buildHere(root);
    expect(result.code).toBe(0);
    const report = json(result).streams[0];
    expect(report.failed).toEqual([
      expect.objectContaining({
        period: DAY,
        kind: 'truncated',
        reason: 'every answer was cut off by max_tokens (a runaway output) after 3 attempts',
      }),
    ]);
    const prompts = callsFor(DAY).map((c) => c.prompt);
    expect(prompts).toHaveLength(3);
    expect(prompts[1]).toContain('Keep output under');
    expect(prompts[2]).toContain('CRITICAL:');
    // The cap: twice the body's budget (the daily's 300 tokens less its title).
    const caps = new Set(callsFor(DAY).map((c) => c.body.max_tokens as number));
    expect(caps.size).toBe(1);
    expect([...caps][0]).toBeGreaterThan(540);
    expect([...caps][0]).toBeLessThan(600);
    expect(summaries(root).has(`vault/main/daily/${DAY}.md`)).toBe(false);
    expectConsistentVault(root);
  });

  it('empty output: retried (a one-off empty answer costs one more call), then fails', async () => {
    const root = project();
    fake.server.inject({ fault: { kind: 'empty' }, match: dailyOf(OTHER) });
    fake.server.inject({ fault: { kind: 'empty' }, times: Infinity, match: dailyOf(DAY) });
    const result = await buildHere(root);
    expect(result.code).toBe(0);
    const report = json(result).streams[0];
    expect(report.failed).toEqual([
      expect.objectContaining({ period: DAY, kind: 'empty', reason: 'fake-model returned an empty answer (3 attempts)' }),
    ]);
    expect(callsFor(OTHER)).toHaveLength(2);
    expect(summaries(root).get(`vault/main/daily/${OTHER}.md`)?.body).toContain('## Summary');
    expectConsistentVault(root);
  });

  it('over budget: retried with tighter instructions, then written flagged for review; --strict exits 1', async () => {
    const root = project();
    fake.server.inject({ fault: { kind: 'long', tokens: 1500 }, times: Infinity, match: dailyOf(DAY) });
    const result = await build(root, '--strict');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1 flagged over budget');
    const prompts = callsFor(DAY).map((c) => c.prompt);
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).not.toContain('Keep output under');
    expect(prompts[1]).toMatch(/Your previous answer was \d+ tokens, over the limit\. Keep output under 2\d\d tokens/);
    expect(prompts[2]).toMatch(/CRITICAL: the answer MUST be under 1\d\d tokens/);
    const daily = summaries(root).get(`vault/main/daily/${DAY}.md`)!;
    expect(daily.meta.review).toEqual(['over-budget']);
    expect(json(result).streams[0].tiers.daily).toMatchObject({ flagged: 1 });
    expect(readFileSync(path.join(root, 'vault', 'INDEX.md'), 'utf8')).toContain(`main/daily/${DAY}.md`);
    expectConsistentVault(root);
  });

  it('over budget when a previous version exists: the previous version is kept, untouched', async () => {
    const root = project();
    expect((await buildHere(root)).code).toBe(0);
    const before = summaries(root);
    const file = history.byDay.get(DAY)![0]!;
    writeFileSync(path.join(root, file), readFileSync(path.join(root, file), 'utf8').replace(/Worked with \w+/, 'Paired with Zoe'));
    fake.server.reset();
    fake.server.inject({ fault: { kind: 'long', tokens: 1500 }, times: Infinity, match: dailyOf(DAY) });
    const result = await buildHere(root);
    expect(result.code).toBe(0);
    const report = json(result).streams[0];
    expect(report.failed).toEqual([
      expect.objectContaining({
        period: DAY,
        kind: 'over-budget',
        kept: true,
        reason: expect.stringMatching(
          /^still \d+ tokens \/ \d+ bytes after 3 attempts \(budget 300 tokens \/ 2400 bytes\); the previous version is kept$/,
        ),
      }),
    ]);
    // Nothing changed: the daily, and so its week, stay as they were.
    expect(changed(before, summaries(root))).toEqual([]);
    expect(fake.server.calls()).toHaveLength(3);
    expectConsistentVault(root);
  });
});

describe('faults that pass', () => {
  it('429: the retry-after header is honoured, then the build completes', async () => {
    const root = project({ concurrency: 1 });
    fake.server.inject({
      fault: { kind: 'status', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } },
      match: dailyOf(DAY),
    });
    const result = await buildHere(root);
    expect(result.code, result.stderr).toBe(0);
    const [limited, retried] = callsFor(DAY);
    expect(limited?.fault).toBe('status');
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(950);
    const report = json(result).streams[0];
    expect(report.failed).toEqual([]);
    expect(report.tiers.daily.retries).toBe(1);
    expect(summaries(root).has(`vault/main/daily/${DAY}.md`)).toBe(true);
  });

  it('timeout: the request is retried (with a longer timeout) and the build completes', async () => {
    // timeout_s bounds the whole request, body included: a busy event loop (the tokenizer tables loading) counts against it,
    // so the other dailies' answers need some slack while the hung one is cut off well before its 5 s.
    const root = project({ timeoutS: 1.5 });
    fake.server.inject({ fault: { kind: 'hang', ms: 5000 }, match: dailyOf(DAY) });
    const result = await build(root);
    expect(result.code, result.stderr).toBe(0);
    const [hung, retried] = callsFor(DAY);
    expect(hung?.fault).toBe('hang');
    // The retry waited for the timeout (the hang lasts 5 s; the server logs a request once its body is in, so allow for slow starts).
    expect(retried!.at - hung!.at).toBeGreaterThanOrEqual(1000);
    expect(retried!.at - hung!.at).toBeLessThan(4500);
    expect(json(result).streams[0].failed).toEqual([]);
    expect(json(result).streams[0].tiers.daily.retries).toBe(1);
  });

  it('meta-commentary and injected frontmatter are cleaned out of the summaries', async () => {
    const root = project();
    fake.server.inject({ fault: { kind: 'meta' }, match: dailyOf(DAY) });
    fake.server.inject({ fault: { kind: 'frontmatter' }, match: dailyOf(OTHER) });
    const result = await buildHere(root);
    expect(result.code).toBe(0);
    const files = summaries(root);
    for (const day of [DAY, OTHER]) {
      const daily = files.get(`vault/main/daily/${day}.md`)!;
      expect(daily.meta).toMatchObject({ tier: 'daily', period: day, input_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(daily.meta.review).toBeUndefined();
      expect(daily.body).toMatch(/^# main: .*\n\n## Summary\n\n- /);
      expect(daily.body).not.toMatch(/Sure!|Let me know|hacked|forged|^---$/m);
    }
    expect(json(result).streams[0].tiers.daily.sanitized).toBe(2);
    expectConsistentVault(root);
  });
});

describe('faults that stop every call', () => {
  it('connection refused: the model dailies fail fast, merges and the package are still written', async () => {
    const port = await closedPort();
    // One at a time, so that the rollups after the first failure are visibly not attempted.
    const root = fake.track(createProject(history.files, llmConfig({ url: `http://127.0.0.1:${port}/v1`, concurrency: 1 })));
    // Checked by its report and files (exit 0 despite failed rollups is the 5xx test's): in-process; the --strict run below
    // is the same build through the CLI, its output checked.
    const result = await buildHere(root);
    expect(result.code, result.stderr).toBe(0);
    const report = json(result).streams[0];
    const failed = report.failed as { kind: string; reason: string }[];
    expect(failed.length).toBeGreaterThanOrEqual(BUSY.length);
    expect(failed.every((f) => f.kind === 'connection')).toBe(true);
    expect(failed.some((f) => f.reason === `cannot reach http://127.0.0.1:${port}/v1 (connection refused) (3 attempts)`)).toBe(true);
    expect(failed.filter((f) => f.reason.startsWith('not attempted: ')).length).toBeGreaterThan(0);
    const files = [...summaries(root).values()];
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.meta.generator.provider === 'merge')).toBe(true);
    expect(readFileSync(path.join(root, 'vault', 'main', 'UPLOAD_PACKAGE.md'), 'utf8').length).toBeGreaterThan(1000);
    expectConsistentVault(root);
    const strict = await runCli(['build', '--now', NOW, '--strict'], { cwd: root, env: KEY_ENV });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('(connection refused)');
    expectNoKey(root, result, strict);
  });

  it('401 that echoes the key: one request, every rollup reported failed, the key in no output', async () => {
    const root = project({ concurrency: 1 });
    fake.server.inject({
      fault: {
        kind: 'status',
        status: 401,
        message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      },
      times: Infinity,
    });
    const result = await runCli(['build', '--now', NOW, '--strict'], { cwd: root, env: KEY_ENV });
    expect(result.code).toBe(1);
    expect(fake.server.calls()).toHaveLength(1);
    expect(result.stdout).toContain(`${fake.server.url} refused the API key (401): Incorrect API key provided: [redacted]. You can find`);
    expect(result.stdout).toContain('not attempted: ');
    expectNoKey(root, result);
    expectConsistentVault(root);
  });
});
