import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/pipeline/build.js';
import { copyProject, removeProject, runCli } from '../../helpers/project.js';
import { addMemories, createWaterfallProject, historyFiles, nowAfter, outputs, readGenerated, waterfallStatusOf } from './helpers.js';

/**
 * Restarts: a process killed in the middle of a compaction (SIGKILL, through
 * the `MEMVAULT_TEST_CRASH_AFTER=write:<n>` fault point: after the n-th file
 * written), and a fresh process for every memory, end with the same vault as
 * one process that built after every memory without interruption.
 *
 * At the compaction at 193 memories a build writes, in order: (1) the new
 * waterfall/longterm.md, (2) waterfall/recent.md, (3) its history copy,
 * (4) CONTEXT.md.
 */

const LAST = 260;
const cli = (root: string, n: number, env: Record<string, string> = {}) =>
  runCli(['build', '--no-commit', '--now', nowAfter(n).toISOString()], { cwd: root, env });

// The scenarios are independent copies of one vault: run them side by side (child processes wait on I/O).
describe.concurrent('waterfall: kill and restart', () => {
  const roots: string[] = [];
  let reference: Map<string, string>;
  let base: string;

  beforeAll(async () => {
    // The uninterrupted run: one process building after every memory around each compaction (drive.test.ts shows
    // that builds in between change nothing but CONTEXT.md, which the last build rewrites anyway).
    const root = createWaterfallProject();
    roots.push(root);
    let written = 0;
    for (const n of [...range(125, 135), ...range(188, 200), ...range(252, LAST)]) {
      addMemories(root, written + 1, n);
      written = n;
      await build({ root, now: nowAfter(n), commit: false });
    }
    reference = outputs(root);
    // The runs below start from a vault built at 129 (one compaction) and 192 memories.
    base = createWaterfallProject();
    roots.push(base);
    addMemories(base, 1, 129);
    await build({ root: base, now: nowAfter(129), commit: false });
    addMemories(base, 130, 192);
    await build({ root: base, now: nowAfter(192), commit: false });
  }, 60_000);
  afterAll(() => roots.forEach(removeProject));

  /** Finishes a run with a few builds up to LAST (compaction 3 at 257 folds what the restarted process wrote). */
  const finish = async (root: string): Promise<void> => {
    addMemories(root, 194, 257);
    await build({ root, now: nowAfter(257), commit: false });
    addMemories(root, 258, LAST);
    await build({ root, now: nowAfter(LAST), commit: false });
  };

  it.each([
    { point: 1, state: 'long-term summary folded, recent summary not written', recentCompaction: 1, longtermCompaction: 2, copies: 1 },
    { point: 2, state: 'recent summary written, its history copy not', recentCompaction: 2, longtermCompaction: 2, copies: 1 },
    { point: 3, state: 'history copy written, CONTEXT.md not', recentCompaction: 2, longtermCompaction: 2, copies: 2 },
  ])('killed after write $point of compaction 2 ($state): the restart completes it', async ({
    point,
    recentCompaction,
    longtermCompaction,
    copies,
  }) => {
    const root = copyProject(base);
    roots.push(root);
    addMemories(root, 193, 193);
    const killed = await cli(root, 193, { MEMVAULT_TEST_CRASH_AFTER: `write:${point}` });
    expect(killed.code, killed.stderr).not.toBe(0);
    expect(readGenerated(root, 'waterfall/recent.md')!.meta.waterfall.compaction).toBe(recentCompaction);
    expect(readGenerated(root, 'waterfall/longterm.md')!.meta.waterfall.compaction).toBe(longtermCompaction);
    expect(historyFiles(root)).toHaveLength(copies);
    if (point === 1) {
      // A read-only look says what is going on.
      const { integrity } = await waterfallStatusOf(root, 193);
      expect(integrity.ok).toBe(false);
      expect(integrity.problems.map((p) => p.check)).toContain('compaction');
    }

    // The restart: a new build (in this process: what it knows comes from the disk, as for a new process).
    await build({ root, now: nowAfter(193), commit: false });
    await finish(root);
    expect(outputs(root)).toEqual(reference);
  });

  it('a fresh process for every memory, and a crash in the middle of compaction 3, give the same vault', async () => {
    const root = copyProject(base);
    roots.push(root);
    for (let n = 193; n <= 194; n++) {
      addMemories(root, n, n);
      const result = await cli(root, n);
      expect(result.code, result.stderr).toBe(0);
    }
    addMemories(root, 195, 257);
    const killed = await cli(root, 257, { MEMVAULT_TEST_CRASH_AFTER: 'write:1' });
    expect(killed.code).not.toBe(0);
    expect(readGenerated(root, 'waterfall/longterm.md')!.meta.waterfall.compaction).toBe(3);
    expect(readGenerated(root, 'waterfall/recent.md')!.meta.waterfall.compaction).toBe(2);
    const restarted = await cli(root, 257);
    expect(restarted.code, restarted.stderr).toBe(0);
    addMemories(root, 258, LAST);
    await build({ root, now: nowAfter(LAST), commit: false });
    expect(outputs(root)).toEqual(reference);
  });

  it('a process that was down for several triggers catches up with each compaction at its own count', async () => {
    // No build between 192 and LAST: compactions 2 (193) and 3 (257) both run in one build, as if it had run all along.
    const root = copyProject(base);
    roots.push(root);
    addMemories(root, 193, LAST);
    const report = await build({ root, now: nowAfter(LAST), commit: false });
    expect(report.waterfall[0]!.compactions.map((c) => c.count)).toEqual([193, 257]);
    const recent = readGenerated(root, 'waterfall/recent.md')!;
    expect(recent.meta.period).toBe('memories 130-193');
    expect(recent.meta.waterfall).toMatchObject({ compaction: 3, compacted_at_count: 257 });
    // Same layers as the uninterrupted run; only the history stamps differ (one `now` for both compactions).
    expect(recent.body).toBe(readGeneratedFrom(reference, 'waterfall/recent.md'));
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function readGeneratedFrom(files: Map<string, string>, relative: string): string {
  return /^---\n[\s\S]*?\n---\n([\s\S]*)$/.exec(files.get(relative)!)![1]!;
}
