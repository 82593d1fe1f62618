import { afterAll, describe, expect, it } from 'vitest';
import { SummarizerError } from '../../../src/llm/faults.js';
import type { Summarizer, SummaryRequest } from '../../../src/llm/types.js';
import { build } from '../../../src/pipeline/build.js';
import { removeProject } from '../../helpers/project.js';
import { addMemories, createWaterfallProject, nowAfter, readGenerated, waterfallStatusOf } from './helpers.js';

/**
 * The waterfall through the `Summarizer` interface with a fake model: the
 * tiers and sources it is asked for, and a model fault in the middle of a
 * compaction, which leaves the vault consistent for the next build.
 */

function fakeModel(options: { failOn?: string } = {}): Summarizer & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    provider: 'fake',
    model: 'fake-1',
    requests,
    promptId: (tier) => `${tier}@fake`,
    async summarize(request) {
      requests.push(request);
      if (request.tier === options.failOn)
        throw new SummarizerError(
          { kind: 'timeout', message: 'no answer within 120 s', fatal: false } as never,
          { calls: 1, inputTokens: 0, outputTokens: 0 },
          1,
        );
      // An answer that fills most of the budget (one token a word), so two of them no longer fit a merge.
      const words = Math.floor(request.budget.tokens * 0.8);
      return {
        body: `## Summary\n\n- I ${Array.from({ length: words }, () => 'did').join(' ')}.`,
        usage: { calls: 1, inputTokens: 100, outputTokens: words },
      };
    },
  };
}

describe('waterfall with a model behind the Summarizer interface', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeProject));

  it('asks for the waterfall tiers with the right sources and budgets; provenance names the model and prompt', async () => {
    const root = createWaterfallProject();
    roots.push(root);
    addMemories(root, 1, 260);
    const model = fakeModel();
    const report = await build({ root, now: nowAfter(260), commit: false, summarizer: model });
    expect(report.waterfall[0]!.compactions.map((c) => c.count)).toEqual([129, 193, 257]);
    // Compaction 2 folds one recent summary, which fits the long-term budget: merged, no call. (Retries, attempt > 0,
    // come from the rollup's must-keep check: this fake drops every date and code span.)
    const firsts = model.requests.filter((r) => r.attempt === 0);
    expect(firsts.map((r) => r.tier)).toEqual(['waterfall-recent', 'waterfall-recent', 'waterfall-longterm', 'waterfall-recent']);
    const [first, , fold] = firsts;
    expect(first!.sources).toHaveLength(65);
    expect(first!.budget.tokens).toBeLessThan(800);
    expect(fold!.sources.map((s) => s.id)).toEqual([
      'waterfall/longterm',
      expect.stringMatching(/^waterfall\/history\/recent-\d{8}-\d{6}-2$/),
    ]);
    expect(fold!.budget.tokens).toBeLessThan(1200);
    expect(report.waterfall[0]!.usage.calls).toBe(model.requests.length);
    const recent = readGenerated(root, 'waterfall/recent.md')!;
    expect(recent.meta.generator).toEqual({ provider: 'fake', model: 'fake-1', prompt: 'waterfall-recent@fake' });
    expect(readGenerated(root, 'waterfall/longterm.md')!.meta.generator.prompt).toBe('waterfall-longterm@fake');
  });

  it('a model fault in the middle of a compaction is reported, leaves a consistent vault, and the next build finishes it', async () => {
    const root = createWaterfallProject();
    roots.push(root);
    addMemories(root, 1, 193);
    await build({ root, now: nowAfter(129), commit: false, summarizer: fakeModel() });
    const failing = await build({ root, now: nowAfter(193), commit: false, summarizer: fakeModel({ failOn: 'waterfall-recent' }) });
    expect(failing.waterfall[0]!.failed).toMatchObject({ compaction: 2, tier: 'waterfall-recent', kind: 'timeout' });
    // What the failed compaction wrote before the fault is reported (and so committed): the fold, and the note on the fault.
    expect(failing.waterfall[0]!.written).toEqual([
      expect.stringMatching(/\/waterfall\/longterm\.md$/),
      expect.stringMatching(/\/CONTEXT\.md$/),
    ]);
    expect(failing.written).toEqual(expect.arrayContaining(failing.waterfall[0]!.written));
    expect(failing.waterfall[0]!.notes).toEqual([
      expect.stringMatching(/^compaction 2 \(waterfall-recent\) failed: .*the next build retries it$/),
    ]);
    // The fold was written (a merge, no call); the recent summary was not: the next build resumes there.
    expect(readGenerated(root, 'waterfall/longterm.md')!.meta.waterfall.compaction).toBe(2);
    expect(readGenerated(root, 'waterfall/recent.md')!.meta.waterfall.compaction).toBe(1);
    expect((await waterfallStatusOf(root, 193)).integrity.problems.map((p) => p.check)).toEqual(['compaction']);

    const retried = await build({ root, now: nowAfter(193), commit: false, summarizer: fakeModel() });
    expect(retried.waterfall[0]!.compactions).toMatchObject([
      { compaction: 2, count: 193, reason: 'resume', longterm: null, recent: { positions: [66, 129] } },
    ]);
    const status = await waterfallStatusOf(root, 193);
    expect(status.integrity.ok).toBe(true);
    expect(status).toMatchObject({ compaction: 2, next_compaction_at: 257, layers: { longterm: 65, recent: 64, immediate: 64 } });
  });
});
