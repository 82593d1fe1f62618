import { afterAll, describe, expect, it } from 'vitest';
import { newestForLook } from '../../src/pipeline/build.js';
import { MAX_SUMMARIZED_SOURCES, summarizedRefs } from '../../src/pipeline/calendar/rollup-sources.js';
import { memoryAt } from '../helpers/memory-object.js';
import { createProject, memory, removeProject, runCliJson } from '../helpers/project.js';

/**
 * Issue 29: what a build says about its own time (`stats.stages`), and the caps that keep one very busy day from
 * costing a summary or the near-duplicate look the whole day (a sample of the day instead, the same below the cap).
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeProject(root);
});

describe('a summary of a very busy day', () => {
  const refs = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `m${i}` }));

  it('reads every source up to the cap, in order', () => {
    const some = refs(MAX_SUMMARIZED_SOURCES);
    expect(summarizedRefs(some, () => 'normal')).toBe(some);
  });

  it('reads at most the cap: every pinned and high one, then every stride-th of the rest from the first, in order', () => {
    const many = refs(10_000);
    const importance = (id: string) => (id === 'm5001' ? 'pinned' : id === 'm7' ? 'high' : 'normal');
    const read = summarizedRefs(many, importance, 100);
    // 9,998 others in at most 98 places: a stride of 128 (the smallest power of two that leaves no more), 79 of them.
    expect(read).toHaveLength(2 + 79);
    expect(read.map((r) => r.id)).toContain('m5001');
    expect(read.map((r) => r.id)).toContain('m7');
    expect(read[0]!.id).toBe('m0');
    const positions = read.map((r) => Number(r.id.slice(1)));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('keeps its sample when a memory is added at the end, unless the new one falls on the stride', () => {
    const importance = () => 'normal';
    const ids = (count: number) => summarizedRefs(refs(count), importance, 100).map((r) => r.id);
    // 10,000: a stride of 128; the 10,001st memory (index 10,000) is not a multiple of it, the 10,113th (index 10,112) is.
    expect(ids(10_001)).toEqual(ids(10_000));
    expect(ids(10_113)).toEqual([...ids(10_112), 'm10112']);
  });
});

describe("the build's near-duplicate look on a very busy day", () => {
  const day = (d: string, count: number) => Array.from({ length: count }, (_, i) => ({ ...memoryAt('main', `${d}-${i}`), day: d }));

  it('reads every memory of the window (and no other) up to the cap, the newest of them beyond it', () => {
    const quiet = [...day('2026-11-10', 3), ...day('2026-11-20', 5)];
    expect(newestForLook(quiet, new Set(['2026-11-20']), 7)).toEqual(quiet.filter((m) => m.day === '2026-11-20'));
    const busy = [...day('2026-11-01', 10), ...day('2026-11-19', 1500), ...day('2026-11-20', 1500)];
    const looked = newestForLook(busy, new Set(['2026-11-20']), 7);
    expect(looked).toHaveLength(2000);
    expect(looked.at(-1)).toBe(busy.at(-1));
    expect(looked.some((m) => m.day === '2026-11-01')).toBe(false);
  });
});

describe('build --json stats.stages', () => {
  it('says where the time went, by stage', async () => {
    const root = createProject({
      'vault/main/memories/2026-11-19-a.md': memory({ date: '2026-11-19T09:00:00Z', body: 'Fixed the CSV export of #412.' }),
      'vault/main/memories/2026-11-20-b.md': memory({ date: '2026-11-20T10:00:00Z', body: 'Released v1.8.2 with the rounding fix.' }),
    });
    roots.push(root);
    const report = (await runCliJson(['build', '--now', '2026-11-21T06:00:00Z', '--json', '--no-commit'], { cwd: root })).json;
    const stages = report.stats.stages as Record<string, number>;
    for (const stage of ['load', 'plan', 'apply', 'package', 'index', 'commit', 'gc.main', 'write'])
      expect(stages[stage], stage).toBeGreaterThanOrEqual(0);
    expect(Object.keys(stages)).toEqual(Object.keys(stages).sort());
    expect(stages.apply).toBeLessThanOrEqual(report.stats.ms);
  });
});
