import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/pipeline/build.js';
import { compactVault } from '../../../src/pipeline/waterfall/compact.js';
import { countTokens } from '../../../src/util/tokens.js';
import { copyProject, memory, removeProject, runCli, runCliJson } from '../../helpers/project.js';
import { hashTree } from '../../helpers/tree.js';
import {
  addMemories,
  createWaterfallProject,
  historyFiles,
  idOf,
  MEMORIES,
  nowAfter,
  readGenerated,
  readText,
  STREAM,
  vaultFile,
  waterfallConfig,
  waterfallStatusOf,
} from './helpers.js';

/**
 * `memvault compact` and the waterfall part of `memvault status`, end to end
 * with the compiled CLI; follow-up steps whose CLI side is already covered run
 * in-process. Scenarios are independent projects and run side by side.
 */

const at = (n: number) => ['--now', nowAfter(n).toISOString()];
const status = async (root: string, n: number) => {
  const { json } = await runCliJson(['status', '--json', ...at(n)], { cwd: root });
  return json.streams.find((s: any) => s.name === STREAM).waterfall;
};

describe.concurrent('memvault status: memory status and integrity of a waterfall stream', () => {
  const roots: string[] = [];
  let built: string;
  beforeAll(async () => {
    built = createWaterfallProject();
    roots.push(built);
    addMemories(built, 1, 200);
    const report = await build({ root: built, now: nowAfter(200), commit: false });
    expect(report.waterfall[0]!.compactions.map((c) => c.count)).toEqual([129, 193]);
  });
  afterAll(() => roots.forEach(removeProject));

  it('reports counts, the next trigger, sizes against budgets and a clean integrity report', async () => {
    const waterfall = await status(built, 200);
    expect(waterfall).toMatchObject({
      memories: 200,
      compaction: 2,
      compacted_at_count: 193,
      since_last_compaction: 7,
      next_compaction_at: 257,
      windows: { immediate: 64, recent: 64 },
      layers: { longterm: 65, recent: 64, immediate: 71 },
      summaries: {
        recent: {
          path: 'agent/waterfall/recent.md',
          memories: 64,
          budget_tokens: 800,
          budget_bytes: 4000,
          over_budget: false,
          edited: false,
        },
        longterm: { path: 'agent/waterfall/longterm.md', memories: 65, budget_tokens: 1200, budget_bytes: 6000 },
      },
      context: { path: 'agent/CONTEXT.md', max_tokens: 10000, stale: false },
      integrity: {
        ok: true,
        accounted: { memories: 200, in_one_layer: 200, in_no_layer: [], in_two_layers: [], missing: [], verified: true },
        sources: { checked: 129, changed: [] },
        history: { recent_summaries: 2, present: 2, missing: [], changed: [] },
        problems: [],
      },
    });
    expect(waterfall.summaries.recent.tokens).toBeLessThanOrEqual(800);
    expect(waterfall.context.tokens).toBe(countTokens(readText(built, 'CONTEXT.md')));

    const text = await runCli(['status', ...at(200)], { cwd: built });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('waterfall: compaction 2 at 193 memories, 7 since; next at 257');
    expect(text.stdout).toContain('integrity: ok; 200/200 memories in exactly one layer; 129/129 sources unchanged; 2/2 history copies');
    // A waterfall-only stream shows no calendar table.
    expect(text.stdout).not.toContain('tier       count');
  });

  it('zoom --memories A..B returns exactly memories A..B of the waterfall stream, and the range', async () => {
    const { json } = await runCliJson(['zoom', '--memories', '65..128', '--json', ...at(200)], { cwd: built });
    expect(json).toMatchObject({ stream: STREAM, period: null, memory_range: { from: 65, to: 128 }, showing: 'memories' });
    const numbers = Array.from({ length: 64 }, (_, i) => 65 + i);
    expect(json.memories.map((m: any) => m.number)).toEqual(numbers);
    expect(json.memories.map((m: any) => m.id)).toEqual(numbers.map((n) => idOf(MEMORIES[n - 1]!)));
    expect(json.total.items).toBe(64);
  });

  it('flags a deliberately corrupted vault; the build restores what it can and compact --rebuild the rest', async () => {
    const root = copyProject(built);
    roots.push(root);
    const longterm = readGenerated(root, 'waterfall/longterm.md')!;
    const foldedCopy = `${longterm.meta.folded[0].id}.md`;
    const currentCopy = readGenerated(root, 'waterfall/recent.md')!.meta.waterfall.history.replace(/^agent\//, '');
    rmSync(vaultFile(root, foldedCopy));
    rmSync(vaultFile(root, currentCopy));
    appendFileSync(vaultFile(root, MEMORIES[99]!.path), '\nEdited afterwards: it was 9 tests, not 8.\n');
    // A memory written later with an old date, inside what the long-term summary covers.
    mkdirSync(path.dirname(vaultFile(root, 'memories/late/backdated.md')), { recursive: true });
    writeFileSync(
      vaultFile(root, 'memories/late/backdated.md'),
      memory({
        date: new Date(Date.parse(MEMORIES[9]!.date) + 1000).toISOString(),
        kind: 'note',
        body: 'I forgot to record this: the staging database was restored from the nightly backup.',
      }),
    );

    const corrupted = await status(root, 200);
    expect(corrupted.integrity.ok).toBe(false);
    expect(corrupted.integrity.history.missing.sort()).toEqual([`agent/${foldedCopy}`, `agent/${currentCopy}`].sort());
    expect(corrupted.integrity.sources.changed).toEqual([idOf(MEMORIES[99]!)]);
    expect(corrupted.integrity.accounted.verified).toBe(false);
    expect(new Set(corrupted.integrity.problems.map((p: any) => p.check))).toEqual(new Set(['history', 'sources']));
    const text = await runCli(['status', ...at(200)], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/integrity: \d+ problems/);
    expect(text.stdout).toContain(`history: agent/${foldedCopy}:`);

    // The build restores the copy of the current recent summary (it still has the text); the folded one is gone for good.
    const rebuilt = await build({ root, now: nowAfter(201), commit: false });
    expect(rebuilt.waterfall[0]!.notes).toContain(`restored the missing history copy agent/${currentCopy}`);
    expect(existsSync(vaultFile(root, currentCopy))).toBe(true);
    const after = await waterfallStatusOf(root, 201);
    expect(after.integrity.history.missing).toEqual([`agent/${foldedCopy}`]);
    // With the folded copy back in the chain, the memory added with an old date is found: in the long-term range, in no summary.
    writeFileSync(vaultFile(root, foldedCopy), readText(built, foldedCopy));
    const found = await waterfallStatusOf(root, 201);
    expect(found.integrity.accounted.in_no_layer).toEqual(['late/backdated']);
    expect(found.integrity.history.missing).toEqual([]);

    const compacted = await compactVault({ root, now: nowAfter(201), rebuild: true });
    expect(compacted.streams[0]!.compactions.map((c) => c.count)).toEqual([129, 193]);
    const healed = await waterfallStatusOf(root, 201);
    expect(healed.integrity.ok).toBe(true);
    expect(healed.integrity.accounted.in_one_layer).toBe(201);
    // Nothing was deleted: the old copies are still there, reported as unreferenced.
    expect(healed.integrity.history.unreferenced).toHaveLength(2);
  });
});

describe.concurrent('memvault compact', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeProject));
  const project = (count: number, config?: string): string => {
    const root = createWaterfallProject(config);
    roots.push(root);
    addMemories(root, 1, count);
    return root;
  };

  it('--force compacts below the threshold; the next compaction comes recent_window memories later', async () => {
    const root = project(100);
    const { json } = await runCliJson(['compact', '--force', '--json', ...at(100)], { cwd: root });
    expect(json.streams[0].compactions).toMatchObject([
      { compaction: 1, count: 100, reason: 'forced', longterm: null, recent: { memories: 36, positions: [1, 36] } },
    ]);
    expect(json.streams[0].position.next_at).toBe(164);
    expect(historyFiles(root)).toHaveLength(1);
    expect(readText(root, 'CONTEXT.md')).toContain('## Recent past (summary)');

    addMemories(root, 101, 163);
    const before = await compactVault({ root, now: nowAfter(163) });
    expect(before.streams[0]!.compactions).toEqual([]);
    addMemories(root, 164, 164);
    const due = await compactVault({ root, now: nowAfter(164) });
    expect(due.streams[0]!.compactions).toMatchObject([
      { compaction: 2, count: 164, reason: 'threshold', longterm: { memories: 36 }, recent: { memories: 64, positions: [37, 100] } },
    ]);
  });

  it('says there is nothing to compact when every memory is within the immediate window', async () => {
    const root = project(40);
    const result = await runCli(['compact', '--force', ...at(40)], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('agent: nothing to compact: all 40 memories are within the immediate window (64)');
    expect(existsSync(vaultFile(root, 'waterfall'))).toBe(false);
  });

  it('refuses a stream that is not a waterfall stream, with a hint', async () => {
    const root = project(5, waterfallConfig().replace('streams:\n', 'streams:\n  main: { calendar: true, waterfall: false }\n'));
    const result = await runCli(['compact', '--stream', 'main'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^memvault: stream `main` is not a waterfall stream\n {2}hint: set `waterfall: true`/);
  });

  it('a dry run plans the compactions due and writes nothing', async () => {
    const root = project(200);
    const report = await compactVault({ root, now: nowAfter(200), dryRun: true });
    expect(report.streams[0]!.planned).toEqual([
      { compaction: 1, count: 129, reason: 'threshold', recent: 65, fold: false },
      { compaction: 2, count: 193, reason: 'threshold', recent: 64, fold: true },
    ]);
    expect(existsSync(vaultFile(root, 'CONTEXT.md'))).toBe(false);
  });

  it('a dry run from the CLI is the same run against a recording writer: it lists what compacting writes, changes nothing', async () => {
    const root = project(200);
    await runCliJson(['status', '--json'], { cwd: root }); // any state the project keeps exists before the dry run
    const before = hashTree(root);
    const { json } = await runCliJson(['compact', '--dry-run', '--json', ...at(200)], { cwd: root });
    expect(hashTree(root)).toEqual(before);
    expect(json.dry_run).toBe(true);
    const listed = (json.would_write as { op: string; path: string; bytes: number; estimate?: true }[]).filter((c) => c.op === 'write');
    expect(listed.map((c) => c.path)).toContain('agent/CONTEXT.md');
    // Two compactions planned: two waterfall summaries, made of placeholders (no model is called in a dry run).
    const summaries = listed.filter((c) => c.path.startsWith('agent/waterfall/'));
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    expect(summaries.every((c) => c.estimate === true)).toBe(true);
    const text = await runCli(['compact', '--dry-run', ...at(200)], { cwd: root });
    expect(text.stdout).toMatch(/compacting would write \d+ files \([\d,]+ bytes; \d+ made of placeholder summaries/);
    // The real run then writes the files the dry run listed (with the embedded summarizer's own texts).
    const real = await runCliJson(['compact', '--json', ...at(200)], { cwd: root });
    const written = new Set(real.json.streams.flatMap((s: { written: string[] }) => s.written));
    for (const c of listed) expect(written, c.path).toContain(c.path);
  });

  it('keeps CONTEXT.md within a small budget by shortening the oldest verbatim memories, and says so', async () => {
    const root = project(190, waterfallConfig().replace('context_max_tokens: 10000', 'context_max_tokens: 4000'));
    const report = await build({ root, now: nowAfter(190), commit: false });
    const context = report.waterfall[0]!.context!;
    expect(context.shortened).toBeGreaterThan(0);
    const text = readText(root, 'CONTEXT.md');
    expect(countTokens(text)).toBeLessThanOrEqual(4000);
    expect(text).toContain(
      `To stay within 4,000 tokens, the ${context.shortened} oldest memories below are shortened to their first sentence.`,
    );
  });
});
