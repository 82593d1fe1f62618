import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkIntegrity, type HistoryCopy } from '../../../src/pipeline/waterfall/integrity.js';
import {
  assignLayers,
  nextTrigger,
  planWaterfall,
  waterfallPosition,
  type CompactionStep,
  type WaterfallWindows,
} from '../../../src/pipeline/waterfall/plan.js';
import { assembleContext, CONTEXT_SECTIONS } from '../../../src/pipeline/waterfall/context.js';
import type { Memory, Summary } from '../../../src/vault/model.js';

/**
 * The pure waterfall: trigger counts, layers, planning after restarts and
 * crashes, CONTEXT.md assembly and the integrity checks, on in-memory
 * memories and summaries (no files). Written files: files.test.ts.
 */

const DEFAULT: WaterfallWindows = { immediate: 64, recent: 64 };

function memoryAt(n: number, overrides: Partial<Memory> = {}): Memory {
  const minute = n % 1440;
  const day = `2026-01-${String(1 + Math.floor(n / 1440)).padStart(2, '0')}`;
  return {
    id: `m${String(n).padStart(5, '0')}`,
    stream: 'agent',
    path: `agent/memories/m${String(n).padStart(5, '0')}.md`,
    location: 'memories',
    date: `${day}T00:00:00Z`,
    day,
    minute,
    title: undefined,
    kind: 'action',
    tags: [],
    importance: 'normal',
    sha256: `sha-${n}`,
    ...overrides,
  };
}

const memories = (count: number): Memory[] => Array.from({ length: count }, (_, i) => memoryAt(i + 1));

interface State {
  recent: Summary | undefined;
  longterm: Summary | undefined;
  /** History copies (what the executor would write), by path. */
  history: Map<string, HistoryCopy>;
}

function summary(tier: 'waterfall-recent' | 'waterfall-longterm', meta: Partial<Summary['meta']>): Summary {
  const path = `agent/waterfall/${tier === 'waterfall-recent' ? 'recent' : 'longterm'}.md`;
  const sha = `sha-${tier}-${meta.waterfall?.compaction}`;
  return {
    meta: {
      memvault: 'summary',
      tier,
      stream: 'agent',
      period: '',
      start: '',
      end: '',
      sources: [],
      memories: 0,
      tokens: 10,
      bytes: 40,
      generator: { provider: 'test', model: 'test', prompt: 'p' },
      input_hash: `in-${sha}`,
      output_hash: `out-${sha}`,
      ...meta,
    },
    path,
    sha256: sha,
    bodyHash: `out-${sha}`,
  };
}

/** What the executor does with a step, on in-memory summaries. */
function apply(state: State, step: CompactionStep): State {
  let longterm = state.longterm;
  if (step.fold && state.recent) {
    const copy = state.recent.meta.waterfall!.history!;
    longterm = summary('waterfall-longterm', {
      memories: step.fold.memories,
      sources: [
        ...(state.longterm ? [{ id: 'waterfall/longterm', sha256: state.longterm.sha256 }] : []),
        { id: copy.slice('agent/'.length, -3), sha256: state.recent.sha256 },
      ],
      folded: [...(state.longterm?.meta.folded ?? []), { id: copy.slice('agent/'.length, -3), sha256: state.recent.sha256 }],
      waterfall: {
        compaction: step.compaction,
        compacted_at_count: step.count,
        covers_from: step.fold.coversFrom.id,
        covers_through: step.fold.coversThrough.id,
      },
    });
  }
  const historyPath = `agent/waterfall/history/recent-${step.compaction}.md`;
  const recent = summary('waterfall-recent', {
    memories: step.recent.length,
    sources: step.recent.map((m) => ({ id: m.id, sha256: m.sha256 })),
    waterfall: {
      compaction: step.compaction,
      compacted_at_count: step.count,
      covers_from: step.recent[0]!.id,
      covers_through: step.recent.at(-1)!.id,
      history: historyPath,
    },
  });
  const history = new Map(state.history);
  history.set(historyPath, { path: historyPath, sha256: recent.sha256, summary: recent });
  return { recent, longterm, history };
}

/** Adds memories one at a time, planning after each; returns the counts compactions ran at and the final state. */
function drive(
  count: number,
  windows: WaterfallWindows,
  options: { forceAt?: number[]; onStep?: (n: number, state: State, all: Memory[]) => void } = {},
): { at: number[]; state: State } {
  const all = memories(count);
  let state: State = { recent: undefined, longterm: undefined, history: new Map() };
  const at: number[] = [];
  for (let n = 1; n <= count; n++) {
    const plan = planWaterfall({
      memories: all.slice(0, n),
      recent: state.recent,
      longterm: state.longterm,
      windows,
      force: options.forceAt?.includes(n) ?? false,
    });
    for (const step of plan.steps) {
      state = apply(state, step);
      at.push(step.count);
    }
    options.onStep?.(n, state, all.slice(0, n));
  }
  return { at, state };
}

describe('waterfall triggers', () => {
  it('first at immediate + recent + 1 (129), then every recent (193, 257, …), never elsewhere', () => {
    expect(nextTrigger(0, DEFAULT)).toBe(129);
    expect(nextTrigger(129, DEFAULT)).toBe(193);
    const { at } = drive(1000, DEFAULT);
    expect(at).toEqual([129, 193, 257, 321, 385, 449, 513, 577, 641, 705, 769, 833, 897, 961]);
  });

  it('holds for any windows, and every memory is in exactly one layer at every step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 120 }),
        (immediate, recent, count) => {
          const windows = { immediate, recent };
          const expected: number[] = [];
          for (let t = immediate + recent + 1; t <= count; t += recent) expected.push(t);
          const { at } = drive(count, windows, {
            onStep: (n, state, all) => {
              const layers = assignLayers(all, state.recent, state.longterm);
              const ids = [...layers.longterm, ...layers.recent, ...layers.immediate].map((m) => m.id);
              expect(new Set(ids).size).toBe(n);
              expect(ids.length).toBe(n);
              // The verbatim layer is the newest memories, never fewer than the window once there are enough.
              expect(layers.immediate).toEqual(all.slice(n - layers.immediate.length));
              expect(layers.immediate.length).toBeGreaterThanOrEqual(Math.min(n, immediate));
              expect(layers.immediate.length).toBeLessThanOrEqual(immediate + recent);
              // Exact provenance agrees with the layers.
              expect(
                checkIntegrity({
                  stream: 'agent',
                  memories: all,
                  recent: state.recent,
                  longterm: state.longterm,
                  history: state.history,
                  windows,
                }).ok,
              ).toBe(true);
            },
          });
          expect(at).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('--force compacts at any count with something to summarize; the next trigger counts from there', () => {
    const { at, state } = drive(200, DEFAULT, { forceAt: [100] });
    expect(at).toEqual([100, 164]);
    expect(state.recent!.meta.sources).toHaveLength(64);
    const forced = planWaterfall({ memories: memories(100), recent: undefined, longterm: undefined, windows: DEFAULT, force: true });
    expect(forced.steps).toMatchObject([{ compaction: 1, count: 100, reason: 'forced', fold: null, positions: [1, 36] }]);
    expect(forced.steps[0]!.recent).toHaveLength(36);
  });

  it('--force with nothing outside the immediate window does nothing and says why', () => {
    const plan = planWaterfall({ memories: memories(40), recent: undefined, longterm: undefined, windows: DEFAULT, force: true });
    expect(plan.steps).toEqual([]);
    expect(plan.skipped).toMatch(/all 40 memories are within the immediate window \(64\)/);
    // Twice in a row: the second has nothing new to summarize.
    const { state } = drive(150, DEFAULT, { forceAt: [150] });
    const again = planWaterfall({ memories: memories(150), ...state, windows: DEFAULT, force: true });
    expect(again.steps).toEqual([]);
    expect(again.skipped).toBeDefined();
  });

  it('catches up with every trigger passed while no build ran, each at its own count', () => {
    const plan = planWaterfall({ memories: memories(400), recent: undefined, longterm: undefined, windows: DEFAULT, force: false });
    expect(plan.steps.map((s) => [s.compaction, s.count, s.positions])).toEqual([
      [1, 129, [1, 65]],
      [2, 193, [66, 129]],
      [3, 257, [130, 193]],
      [4, 321, [194, 257]],
      [5, 385, [258, 321]],
    ]);
    expect(plan.steps.map((s) => s.fold?.memories ?? 0)).toEqual([0, 65, 129, 193, 257]);
  });

  it('resumes a compaction interrupted after its fold: only the recent summary is written, the count does not move', () => {
    const { state } = drive(193, DEFAULT);
    // As if the process died after writing the long-term summary of compaction 2: recent.md is still compaction 1's.
    const before = drive(192, DEFAULT).state;
    const interrupted = { recent: before.recent, longterm: state.longterm };
    expect(waterfallPosition(193, interrupted.recent, interrupted.longterm, DEFAULT)).toMatchObject({
      compaction: 2,
      lastCount: 193,
      interrupted: true,
      nextAt: 257,
    });
    const plan = planWaterfall({ memories: memories(195), ...interrupted, windows: DEFAULT, force: false });
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0]).toMatchObject({ compaction: 2, count: 193, reason: 'resume', fold: null, positions: [66, 129] });
  });

  it('a memory added later with an older date lands in the verbatim layer until the next compaction', () => {
    const { state } = drive(150, DEFAULT);
    const all = memories(150);
    const late = memoryAt(100, { id: 'late', path: 'agent/memories/late.md', minute: 100, sha256: 'late' });
    const withLate = [...all.slice(0, 100), late, ...all.slice(100)];
    const layers = assignLayers(withLate, state.recent, state.longterm);
    expect(layers.immediate.map((m) => m.id)).toContain('late');
    const plan = planWaterfall({ memories: [...withLate, ...memories(193).slice(150)], ...state, windows: DEFAULT, force: false });
    expect(plan.steps[0]!.recent.map((m) => m.id)).toContain('late');
  });
});

describe('integrity', () => {
  const setup = () => {
    const all = memories(200);
    const { state } = drive(200, DEFAULT);
    return {
      all,
      state,
      input: { stream: 'agent', memories: all, recent: state.recent, longterm: state.longterm, history: state.history, windows: DEFAULT },
    };
  };

  it('reports the figures of a healthy stream', () => {
    const { input } = setup();
    const report = checkIntegrity(input);
    expect(report).toMatchObject({
      ok: true,
      layers: { longterm: 65, recent: 64, immediate: 71 },
      accounted: { memories: 200, in_one_layer: 200, in_no_layer: [], in_two_layers: [], missing: [], verified: true },
      sources: { checked: 129, changed: [] },
      history: { recent_summaries: 2, present: 2, missing: [], changed: [], unreferenced: [] },
    });
  });

  it('flags a missing history copy, a changed source, a memory no summary covers, and a deleted source', () => {
    const { all, input } = setup();
    const history = new Map(input.history);
    history.delete('agent/waterfall/history/recent-1.md');
    const edited = all.map((m) => (m.id === 'm00100' ? { ...m, sha256: 'edited' } : m));
    const report = checkIntegrity({ ...input, history, memories: edited });
    expect(report.ok).toBe(false);
    expect(report.history.missing).toEqual(['agent/waterfall/history/recent-1.md']);
    expect(report.sources.changed).toEqual(['m00100']);
    expect(report.accounted.verified).toBe(false);

    const late = memoryAt(10, { id: 'late', path: 'agent/memories/late.md', minute: 10, sha256: 'late' });
    const withLate = [...all.slice(0, 10), late, ...all.slice(10)];
    const lateReport = checkIntegrity({ ...input, memories: withLate });
    expect(lateReport.accounted.in_no_layer).toEqual(['late']);
    expect(lateReport.accounted.in_one_layer).toBe(200);

    const deleted = checkIntegrity({ ...input, memories: all.filter((m) => m.id !== 'm00100') });
    expect(deleted.accounted.missing).toEqual(['m00100']);
    expect(deleted.problems.map((p) => p.check)).toEqual(['accounted']);
  });
});

describe('CONTEXT.md assembly', () => {
  const bodies = new Map<string, string>();
  const base = (count: number, maxTokens: number) => {
    const all = memories(count).map((m) => ({ ...m, title: `Step ${m.id}`, date: `${m.day}T08:00:00Z` }));
    for (const m of all)
      bodies.set(
        m.id,
        `I did step ${m.id} of the migration. It took ${m.minute} seconds and touched \`src/${m.id}.ts\`. Everything passed afterwards.`,
      );
    const { state } = drive(count, DEFAULT);
    const layers = assignLayers(all, state.recent, state.longterm);
    return {
      stream: 'agent',
      position: waterfallPosition(count, state.recent, state.longterm, DEFAULT),
      layers,
      longterm: state.longterm,
      recent: state.recent,
      maxTokens,
      tokenizer: 'o200k_base' as const,
      readMemory: (m: Memory) => ({
        body: bodies.get(m.id)!,
        sentences: [{ text: bodies.get(m.id)!.split('. ')[0]!, section: '', block: 0, role: 'done' as const, mustKeep: [] }],
      }),
      readSummary: (s: Summary) => ({
        body: `# agent: ${s.meta.tier}\n\n## Summary\n\n- I summarized ${s.meta.sources.length} things.`,
        sentences: [],
      }),
    };
  };

  it('is in order, oldest layer first: older memories, recent past, then the immediate memories in full', () => {
    const context = assembleContext(base(200, 10_000));
    const positions = CONTEXT_SECTIONS.map((title) => context.text.indexOf(`## ${title}`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(context.text.match(/^### /gm)).toHaveLength(71);
    expect(context.text).toContain('- I summarized 64 things.');
    expect(context.text).not.toContain('## Summary');
    expect(context).toMatchObject({ shortened: 0, leftOut: 0, overBudget: false });
  });

  it('shortens, then leaves out, the oldest verbatim memories to stay within the budget, and says so', () => {
    const full = assembleContext(base(200, 100_000));
    const trimmed = assembleContext(base(200, Math.floor(full.tokens * 0.8)));
    expect(trimmed.tokens).toBeLessThanOrEqual(Math.floor(full.tokens * 0.8));
    expect(trimmed.shortened).toBeGreaterThan(0);
    expect(trimmed.leftOut).toBe(0);
    expect(trimmed.text).toMatch(new RegExp(`the ${trimmed.shortened} oldest memories below are shortened to their first sentence`));
    // The newest memory is still in full.
    expect(trimmed.text.trimEnd().endsWith('Everything passed afterwards.')).toBe(true);
    const tight = assembleContext(base(200, 700));
    expect(tight.leftOut).toBeGreaterThan(0);
    expect(tight.tokens).toBeLessThanOrEqual(700);
    expect(tight.text).toMatch(/left out; they are in the vault under `agent\/memories\/`/);
  });

  it('before the first compaction: every memory in full, and the summary sections say when they fill', () => {
    const context = assembleContext(base(10, 10_000));
    expect(context.text).toContain('_Nothing yet: the first compaction summarizes the oldest memories here once the stream has 129._');
    expect(context.text.match(/^### /gm)).toHaveLength(10);
  });
});
