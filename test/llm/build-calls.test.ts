import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build as runBuild } from '../../src/pipeline/build.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { copyProject, createProject, memory, removeProject, runCli, runCliJson, snapshotTree, type CliResult } from '../helpers/project.js';
import {
  changed,
  expectConsistentVault,
  expectNoKey,
  KEY,
  KEY_ENV,
  llmConfig,
  llmHistory,
  summaries,
  type SummaryOnDisk,
} from './llm-project.js';

/**
 * `memvault build` with `provider: openai`, end to end: the compiled CLI in a
 * child process, the real SDK, the fake server over HTTP. A vault of 60 days
 * is built once; the scenarios below work on copies of it. The counts come
 * from the server's own request log, not from the tool's report. The builds
 * on copies run in-process (the same pipeline, no CLI start each).
 */

const NOW = '2026-03-06T06:00:00Z';
const history = llmHistory({ from: '2026-01-05', to: '2026-03-05', seed: 3 });

let server: FakeOpenAI;
let root: string;
let first: { result: CliResult; json: any };
let built: Map<string, SummaryOnDisk>;
const roots: string[] = [];

const build = (cwd: string, ...flags: string[]) => runCliJson(['build', '--now', NOW, '--json', ...flags], { cwd, env: KEY_ENV });
/** The same build in this process, its report as `--json` prints it: the scenarios on copies count calls and files, not output. */
const buildHere = async (cwd: string): Promise<{ json: any }> => ({
  json: JSON.parse(JSON.stringify(await runBuild({ root: cwd, now: new Date(NOW), env: KEY_ENV }))),
});
const copy = (): string => {
  const dir = copyProject(root);
  roots.push(dir);
  return dir;
};
const byProvider = (files: Iterable<SummaryOnDisk>, provider: string): SummaryOnDisk[] =>
  [...files].filter((s) => s.meta.generator.provider === provider);
const totalCalls = (json: any): number =>
  json.streams.reduce((sum: number, s: any) => sum + Object.values<any>(s.tiers).reduce((n, t) => n + t.calls, 0), 0);

beforeAll(async () => {
  server = await startFakeOpenAI();
  root = createProject(history.files, llmConfig({ url: server.url }));
  roots.push(root);
  first = await build(root);
  built = summaries(root);
});
afterAll(async () => {
  roots.forEach(removeProject);
  await server.close();
});

describe('openai provider: calls', () => {
  it('a 60-day vault makes exactly one call per summary it creates, and none for merges', () => {
    const calls = server.calls();
    const made = [...built.values()];
    const viaModel = byProvider(made, 'openai');
    const merged = byProvider(made, 'merge');
    expect(made.length).toBeGreaterThan(50);
    expect(viaModel.length).toBeGreaterThan(15);
    expect(merged.length).toBeGreaterThan(5);
    expect(viaModel.length + merged.length).toBe(made.length);
    expect(calls).toHaveLength(viaModel.length);
    // One call per summary, no summary asked twice: the prompt names the tier and period it is for.
    expect(calls.map(summaryOf).sort()).toEqual(
      viaModel.map((x) => `${x.meta.tier} ${x.meta.tier === 'longterm' ? '' : x.meta.period}`.trim()).sort(),
    );
    // The report agrees with the server, per tier.
    const tiers = first.json.streams[0].tiers;
    expect(totalCalls(first.json)).toBe(calls.length);
    for (const tier of ['daily', 'weekly', 'monthly', 'longterm']) {
      expect(tiers[tier].calls, tier).toBe(viaModel.filter((x) => x.meta.tier === tier).length);
      expect(tiers[tier].merged, tier).toBe(merged.filter((x) => x.meta.tier === tier).length);
      expect(tiers[tier].retries, tier).toBe(0);
    }
    expect(tiers.weekly.calls).toBeGreaterThan(5);
    expect(tiers.monthly.calls).toBeGreaterThan(0);
    // Tokens come from the API's usage.
    const reported = calls.reduce((sum, c) => sum + Math.ceil(c.prompt.length / 4), 0);
    expect(Object.values<any>(tiers).reduce((n, t) => n + t.input_tokens, 0)).toBe(reported);
  });

  it('sends the configured model and key to the server, and the key nowhere else', () => {
    for (const call of server.calls()) {
      expect(call.endpoint).toBe('chat');
      expect(call.body.model).toBe('fake-model');
      expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    }
    expectNoKey(root, first.result);
  });

  it('records the generator and prompt id in each summary, and writes clean bodies', () => {
    for (const summary of byProvider(built.values(), 'openai')) {
      expect(summary.meta.generator).toEqual({
        provider: 'openai',
        model: 'fake-model',
        prompt: expect.stringMatching(new RegExp(`^${summary.meta.tier}@[0-9a-f]{8}$`)),
      });
      expect(summary.body).toMatch(/^# main: .*\n\n## Summary\n\n- /);
    }
    expectConsistentVault(root);
  });

  it('a second build makes zero calls and writes nothing', async () => {
    const dir = copy();
    const before = snapshotTree(dir);
    const callsBefore = server.calls().length;
    const { json } = await buildHere(dir);
    expect(server.calls().length).toBe(callsBefore);
    expect(totalCalls(json)).toBe(0);
    expect(json.written).toEqual([]);
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('editing one memory makes one call per tier above it', async () => {
    const dir = copy();
    // A memory of a busy January day: its daily needs the model, and January is folded into the long-term summary.
    const day = [...history.byDay.entries()].find(([d, files]) => d.startsWith('2026-01-1') && files.length === 3)![0];
    const file = findMemory(dir, `${day}-01-`);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/Worked with \w+/, 'Paired with Zoe'));
    const callsBefore = server.calls().length;
    const { json } = await buildHere(dir);
    const calls = server.calls().slice(callsBefore);
    const after = summaries(dir);
    const regenerated = changed(built, after);
    const week = [...after.values()].find((x) => x.meta.tier === 'weekly' && x.meta.start <= day && x.meta.end >= day)!;
    const month = [...after.values()].find(
      (x) => x.meta.tier === 'monthly' && x.meta.sources.some((ref: any) => ref.id === `weekly/${week.meta.period}`),
    )!;
    expect(regenerated).toEqual([`vault/main/daily/${day}.md`, week.path, month.path, 'vault/main/longterm.md'].sort());
    // One call per regenerated summary made by the model; merges (the long-term one here may be) make none.
    const viaModel = regenerated.filter((p) => after.get(p)!.meta.generator.provider === 'openai');
    expect(viaModel.length).toBeGreaterThanOrEqual(3);
    expect(calls).toHaveLength(viaModel.length);
    expect(totalCalls(json)).toBe(viaModel.length);
    expect(calls[0]!.prompt).toContain('Paired with Zoe');
  });

  it('changing the weekly prompt regenerates only the weeklies and what depends on them', async () => {
    const dir = copy();
    const builtin = readFileSync(new URL('../../prompts/weekly.yaml', import.meta.url), 'utf8');
    mkdirSync(path.join(dir, 'prompts'));
    writeFileSync(path.join(dir, 'prompts', 'weekly.yaml'), builtin.replace('Merge duplicate topics', 'Merge repeated topics'));
    const callsBefore = server.calls().length;
    const { json } = await buildHere(dir);
    const calls = server.calls().slice(callsBefore);
    const after = summaries(dir);
    const regenerated = changed(built, after);
    const tiersOf = new Set(regenerated.map((p) => after.get(p)!.meta.tier));
    expect([...tiersOf].sort()).toEqual(['longterm', 'monthly', 'weekly']);
    // Every weekly made by the model now carries the new prompt id; dailies are untouched.
    const weeklies = [...after.values()].filter((x) => x.meta.tier === 'weekly');
    expect(regenerated.filter((p) => p.includes('/weekly/'))).toEqual(weeklies.map((x) => x.path));
    for (const weekly of byProvider(weeklies, 'openai'))
      expect(weekly.meta.generator.prompt).not.toBe(built.get(weekly.path)!.meta.generator.prompt);
    expect(calls.map(summaryOf).filter((x) => x.startsWith('daily'))).toEqual([]);
    expect(calls.filter((c) => c.prompt.includes('Merge repeated topics'))).toHaveLength(byProvider(weeklies, 'openai').length);
    expect(calls).toHaveLength(regenerated.filter((p) => after.get(p)!.meta.generator.provider === 'openai').length);
    expect(json.streams[0].tiers.daily.calls).toBe(0);
  });

  it('--dry-run estimates calls and tokens per tier without calling anything', async () => {
    const dir = createProject(history.files, llmConfig({ url: server.url }));
    roots.push(dir);
    const callsBefore = server.calls().length;
    // The estimate in-process (the plan `--dry-run --json` prints); the text form below goes through the CLI.
    const json = JSON.parse(JSON.stringify(await runBuild({ root: dir, now: new Date(NOW), dryRun: true })));
    expect(server.calls().length).toBe(callsBefore);
    const estimate = json.streams[0].estimate;
    const tiers = first.json.streams[0].tiers;
    // Dailies are estimated from their real sources: the same merges and calls as the real build.
    expect(estimate.daily).toMatchObject({ summaries: tiers.daily.created, merges: tiers.daily.merged, calls: tiers.daily.calls });
    expect(estimate.daily.inputTokens).toBeGreaterThan(tiers.daily.input_tokens * 0.5);
    expect(estimate.daily.inputTokens).toBeLessThan(tiers.daily.input_tokens * 1.5);
    expect(estimate.daily.outputTokens).toBe(tiers.daily.calls * 300);
    expect(estimate.weekly.summaries).toBe(tiers.weekly.created);
    expect(estimate.weekly.calls).toBeGreaterThan(0);
    expect(estimate.monthly.summaries).toBe(tiers.monthly.created);
    const text = await runCli(['build', '--now', NOW, '--dry-run'], { cwd: dir, env: {} });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /estimate \(before retries; output tokens are upper bounds\):\n {4}daily +\d+ summaries \(\d+ merged\), \d+ calls, ~[\d,]+ in \+ ≤[\d,]+ out tokens/,
    );
    expect(text.stdout).toMatch(/ {4}total +\d+ calls/);
  });

  it('prints a cost report per tier, and plain progress lines when not on a terminal', async () => {
    // Two weeks are enough here.
    const dir = createProject(llmHistory({ from: '2026-02-02', to: '2026-02-17', seed: 5 }).files, llmConfig({ url: server.url }));
    roots.push(dir);
    const result = await runCli(['build', '--now', '2026-02-18T06:00:00Z'], { cwd: dir, env: KEY_ENV });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        /LLM cost by tier:\n {4}daily +\d+ summaries \(\d+ merged\), \d+ calls?, /.source +
          /[\d,]+ in \+ [\d,]+ out tokens, 0 retries, [\d.]+ s\n {4}weekly +2 summaries, 2 calls/.source,
      ),
    );
    expect(result.stdout).toMatch(/ {4}total +\d+ summaries/);
    expect(result.stderr).toMatch(/^memvault: main daily (\d+)\/\1 \(\d+ calls?, [\d,]+ tokens\) [\d.]+ s$/m);
    expect(result.stderr).toMatch(/^memvault: main weekly 2\/2 /m);
    expectNoKey(dir, result);
  });
});

describe('openai provider: must-keep items', () => {
  it('a decision the answer lost is named in the retry, and the model puts it back', async () => {
    const M = 'vault/main/memories';
    const long = 'The ingest pipeline dropped events under sustained load for most of the afternoon. '.repeat(6);
    const files = {
      [`${M}/2026-03-02-a.md`]: memory({
        date: '2026-03-02T09:00:00Z',
        title: 'Ingest outage',
        body: `${long}\n\nDecision: keep \`AUTH_TTL\` at 30 days for sessions.`,
      }),
      [`${M}/2026-03-02-b.md`]: memory({ date: '2026-03-02T13:00:00Z', title: 'Load test', body: long }),
      [`${M}/2026-03-02-c.md`]: memory({ date: '2026-03-02T17:00:00Z', title: 'Follow-up', body: long }),
    };
    const dir = createProject(files, llmConfig({ url: server.url }));
    roots.push(dir);
    const callsBefore = server.calls().length;
    const { json } = await buildHere(dir);
    const calls = server.calls().slice(callsBefore);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.prompt).not.toContain('Keep these items');
    expect(calls[1]!.prompt).toMatch(/Keep these items, the previous answer lost them: .*keep `?AUTH_TTL`? at 30 days for sessions/);
    expect(json.streams[0].tiers.daily).toMatchObject({ calls: 2, retries: 1 });
    expect(summaries(dir).get('vault/main/daily/2026-03-02.md')!.body).toContain('Kept: ');
  });
});

/** Which summary a request was for, read from the built-in prompts' wording: `daily 2026-01-06`, `weekly 2026-W02`, `longterm`. */
function summaryOf(call: { prompt: string }): string {
  const daily = /Summarize the \d+ memories of (\d{4}-\d{2}-\d{2})/.exec(call.prompt);
  if (daily) return `daily ${daily[1]}`;
  const weekly = /Summarize week (\d{4}-W\d{2})/.exec(call.prompt);
  if (weekly) return `weekly ${weekly[1]}`;
  const monthly = /Summarize month (\d{4}-\d{2})/.exec(call.prompt);
  if (monthly) return `monthly ${monthly[1]}`;
  if (call.prompt.includes('Write the long-term memory')) return 'longterm';
  return `unknown: ${call.prompt.slice(0, 80)}`;
}

function findMemory(dir: string, prefix: string): string {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  const found = walk(path.join(dir, 'vault', 'main')).filter(
    (f) => path.basename(f).startsWith(prefix) && !f.includes(`${path.sep}daily${path.sep}`),
  );
  if (found.length !== 1) throw new Error(`expected one memory starting with ${prefix}, found ${found.join(', ')}`);
  return found[0]!;
}
