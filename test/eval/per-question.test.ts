import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LocomoSample } from '../../scripts/eval/locomo.js';
import { convertSample } from '../../scripts/eval/locomo.js';
import { isNonAdversarial, rates } from '../../scripts/eval/metrics.js';
import { emptyTotals, evaluateQuestions, renderPerQuestionTables } from '../../scripts/eval/per-question.js';

/**
 * `npm run eval -- --per-question` on the tiny hand-written LoCoMo sample
 * (test/fixtures/locomo-sample.json): its vault built by the real CLI, each
 * question's context assembled in-process. The real dataset is never needed.
 */

const samples = JSON.parse(readFileSync(new URL('../fixtures/locomo-sample.json', import.meta.url), 'utf8')) as LocomoSample[];
const conversation = convertSample(samples[0]!, 1);

describe('per-question evaluation', () => {
  it('measures every question at each budget against the whole conversation and the last N tokens', async () => {
    const totals = emptyTotals([120, 2000]);
    const run = await evaluateQuestions(conversation, '', totals);
    expect(run.questions).toBe(conversation.qa.filter(isNonAdversarial).length);
    expect(totals.rows.map((r) => (r.kind === 'whole' ? 'whole' : `${r.kind}@${r.budget}`))).toEqual([
      'context@120',
      'last-n@120',
      'context@2000',
      'last-n@2000',
      'whole',
    ]);
    for (const [budget, counts] of totals.tokens) {
      expect(counts).toHaveLength(run.questions);
      for (const n of counts) expect(n).toBeLessThanOrEqual(budget);
    }
    const answer = (i: number) => rates(totals.answer[i]!).overall!;
    const evidence = (i: number) => rates(totals.evidence[i]!).overall!;
    expect(evidence(4)).toBe(1);
    // With room for the whole conversation, each question's context finds what the whole conversation holds, and relative dates resolved.
    expect(answer(2)).toBeGreaterThanOrEqual(answer(4));
    expect(evidence(2)).toBeGreaterThan(0.9);
    // At 120 tokens the headings take most of the room, but something of the question's evidence is there.
    expect(evidence(0)).toBeGreaterThan(0);
    const tables = renderPerQuestionTables(totals);
    expect(tables).toContain('| **context, 2,000 tokens** |');
    expect(tables).toContain('| last 120 tokens (baseline) |');
  }, 120_000);
});
