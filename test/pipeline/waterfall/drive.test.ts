import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/pipeline/build.js';
import { countTokens } from '../../../src/util/tokens.js';
import { removeProject } from '../../helpers/project.js';
import {
  addMemories,
  createWaterfallProject,
  historyFiles,
  idOf,
  layersOnDisk,
  MEMORIES,
  nowAfter,
  readGenerated,
  readText,
  vaultFile,
} from './helpers.js';

/**
 * A stream driven from 0 to 400 memories, one at a time, with a build after
 * each (in-process for speed, on a real folder). Every step is checked
 * against the files alone: where compactions happened, that each memory is in
 * exactly one layer, that every recent summary has its history copy, and that
 * CONTEXT.md keeps its order (oldest layer first) within its budget.
 */

const TRIGGERS = [129, 193, 257, 321, 385];
const SECTIONS = ['## Older memories (summary)', '## Recent past (summary)', '## Recent memories (in full)'];
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface Step {
  n: number;
  compactions: { compaction: number; count: number }[];
  longterm: string[];
  recent: string[];
  immediate: number;
  contextTokens: number;
  calls: number;
}

describe('waterfall: a stream driven from 0 to 400 memories', () => {
  let root: string;
  const steps: Step[] = [];
  const copies = new Map<number, { path: string; recentText: string }>();

  beforeAll(async () => {
    root = createWaterfallProject();
    for (let n = 1; n <= 400; n++) {
      addMemories(root, n, n);
      const report = await build({ root, now: nowAfter(n), commit: false });
      const waterfall = report.waterfall[0]!;
      const layers = layersOnDisk(root);
      const contextText = readText(root, 'CONTEXT.md');
      // Tokenizing CONTEXT.md costs a few ms: every 8th step and around each compaction.
      const check = n % 8 === 0 || TRIGGERS.some((t) => Math.abs(t - n) <= 1);
      steps.push({
        n,
        compactions: waterfall.compactions.map((c) => ({ compaction: c.compaction, count: c.count })),
        longterm: layers.longterm,
        recent: layers.recent,
        immediate: layers.immediate,
        contextTokens: check ? countTokens(contextText) : 0,
        calls: waterfall.usage.calls,
      });
      if (waterfall.compactions.length > 0) {
        const recent = readGenerated(root, 'waterfall/recent.md')!;
        copies.set(n, { path: recent.meta.waterfall.history, recentText: recent.text });
      }
    }
  }, 120_000);
  afterAll(() => removeProject(root));

  it('compacts exactly at 129, 193, 257, 321 and 385 memories, and never elsewhere', () => {
    const at = steps.filter((step) => step.compactions.length > 0).map((step) => step.n);
    expect(at).toEqual(TRIGGERS);
    for (const step of steps.filter((s) => s.compactions.length > 0)) {
      expect(step.compactions).toEqual([{ compaction: TRIGGERS.indexOf(step.n) + 1, count: step.n }]);
    }
    // The decision is recorded in the files: a fresh reader sees the last compaction and the next trigger.
    const recent = readGenerated(root, 'waterfall/recent.md')!;
    expect(recent.meta.waterfall).toMatchObject({ compaction: 5, compacted_at_count: 385 });
    expect(readGenerated(root, 'CONTEXT.md')!.meta.next_compaction_at).toBe(449);
  });

  it('keeps every memory in exactly one of long-term / recent / immediate at every step', () => {
    for (const step of steps) {
      const ids = MEMORIES.slice(0, step.n).map(idOf);
      const summarized = [...step.longterm, ...step.recent];
      // No memory twice, and the summarized ones are exactly the oldest memories …
      expect(new Set(summarized).size, `step ${step.n}`).toBe(summarized.length);
      expect(new Set(summarized), `step ${step.n}`).toEqual(new Set(ids.slice(0, summarized.length)));
      // … and all the others are shown in full in CONTEXT.md.
      expect(step.immediate, `step ${step.n}`).toBe(step.n - summarized.length);
    }
  });

  it('moves the windows by count: 64 verbatim after each compaction, long-term back to the first memory', () => {
    const byN = new Map(steps.map((step) => [step.n, step]));
    expect(byN.get(128)).toMatchObject({ longterm: [], recent: [], immediate: 128 });
    expect(byN.get(129)).toMatchObject({ longterm: [], immediate: 64 });
    expect(byN.get(129)!.recent).toEqual(MEMORIES.slice(0, 65).map(idOf));
    expect(byN.get(192)).toMatchObject({ immediate: 127 });
    for (const [i, t] of TRIGGERS.entries()) {
      const step = byN.get(t)!;
      expect(step.immediate).toBe(64);
      if (i === 0) continue;
      expect(step.recent).toHaveLength(64);
      expect(step.longterm).toHaveLength(t - 128);
      expect(step.longterm[0]).toBe(idOf(MEMORIES[0]!));
    }
  });

  it('saves every recent summary in waterfall/history, unchanged, and the long-term summary folds them all', () => {
    expect(copies.size).toBe(TRIGGERS.length);
    const names = historyFiles(root);
    expect(names).toHaveLength(TRIGGERS.length);
    for (const [n, copy] of copies) {
      expect(copy.path, `compaction at ${n}`).toMatch(/^agent\/waterfall\/history\/recent-\d{8}-\d{6}\.md$/);
      // Stamped with the build's `now` (UTC).
      const iso = nowAfter(n).toISOString();
      expect(copy.path).toContain(
        `recent-${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`,
      );
      expect(readText(root, copy.path.replace(/^agent\//, ''))).toBe(copy.recentText);
    }
    const longterm = readGenerated(root, 'waterfall/longterm.md')!;
    const folded = longterm.meta.folded as { id: string; sha256: string }[];
    expect(folded).toHaveLength(TRIGGERS.length - 1);
    for (const ref of folded) expect(sha256(readText(root, `${ref.id}.md`))).toBe(ref.sha256);
    // The previous long-term summaries are kept in history/ too.
    expect(existsSync(vaultFile(root, 'history/waterfall-longterm'))).toBe(true);
  });

  it('writes CONTEXT.md oldest layer first, within its token budget, at every step', () => {
    for (const step of steps.filter((s) => s.contextTokens > 0)) expect(step.contextTokens, `step ${step.n}`).toBeLessThanOrEqual(10_000);
    const context = readText(root, 'CONTEXT.md');
    const positions = SECTIONS.map((heading) => context.indexOf(heading));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // The long-term summary comes first and is first-person (embedded summarizer, waterfall tiers).
    const older = context.slice(positions[0]!, positions[1]!);
    expect(older).toMatch(/\bI\b/);
    // The newest memory is the last thing in the block, in full.
    expect(context.trimEnd().endsWith(MEMORIES[399]!.text.split('---\n')[2]!.trim())).toBe(true);
  });

  it('provenance: summaries name their sources with hashes, generator, input and output hashes', () => {
    const recent = readGenerated(root, 'waterfall/recent.md')!;
    expect(recent.meta).toMatchObject({
      memvault: 'summary',
      tier: 'waterfall-recent',
      stream: 'agent',
      period: 'memories 258-321',
      memories: 64,
    });
    expect(recent.meta.sources).toHaveLength(64);
    const byId = new Map(MEMORIES.map((m) => [idOf(m), m]));
    for (const source of recent.meta.sources as { id: string; sha256: string }[])
      expect(source.sha256).toBe(sha256(byId.get(source.id)!.text));
    expect(recent.meta.generator).toMatchObject({
      provider: expect.any(String),
      model: expect.any(String),
      prompt: expect.stringMatching(/^waterfall-recent@/),
    });
    expect(recent.meta.output_hash).toBe(sha256(recent.body));
    expect(recent.meta.input_hash).toMatch(/^[0-9a-f]{64}$/);
    const longterm = readGenerated(root, 'waterfall/longterm.md')!;
    expect(longterm.meta).toMatchObject({
      tier: 'waterfall-longterm',
      period: 'memories 1-257',
      memories: 257,
      waterfall: { compaction: 5, compacted_at_count: 385, covers_from: idOf(MEMORIES[0]!), covers_through: idOf(MEMORIES[256]!) },
    });
    expect((longterm.meta.sources as { id: string }[]).map((s) => s.id)).toEqual(['waterfall/longterm', longterm.meta.folded.at(-1).id]);
  });

  it('makes no summarizer call and writes nothing on a rebuild without new memories', async () => {
    const before = new Map(['CONTEXT.md', 'waterfall/recent.md', 'waterfall/longterm.md'].map((f) => [f, readText(root, f)]));
    const report = await build({ root, now: nowAfter(400), commit: false });
    expect(report.waterfall[0]!.compactions).toEqual([]);
    expect(report.written).toEqual([]);
    expect(report.waterfall[0]!.context).toMatchObject({ changed: false });
    for (const [file, text] of before) expect(readText(root, file)).toBe(text);
  });
});
