import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LocomoSample } from '../../scripts/eval/locomo.js';
import { convertSample } from '../../scripts/eval/locomo.js';
import { bm25Baseline, bm25Sessions } from '../../scripts/eval/bm25-baseline.js';
import { evidenceTurnRecall, evidenceTurns, isNonAdversarial, rates } from '../../scripts/eval/metrics.js';
import {
  addSearchRanking,
  emptySearchTotals,
  emptyTotals,
  evaluateQuestions,
  renderPerQuestionTables,
  renderSearchTable,
  sessionsOfPaths,
} from '../../scripts/eval/per-question.js';
import { countTokens } from '../../src/util/tokens.js';

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
      'bm25@120',
      'last-n@120',
      'context@2000',
      'bm25@2000',
      'last-n@2000',
      'whole',
    ]);
    for (const [budget, counts] of totals.tokens) {
      expect(counts).toHaveLength(run.questions);
      for (const n of counts) expect(n).toBeLessThanOrEqual(budget);
    }
    const answer = (i: number) => rates(totals.answer[i]!).overall!;
    const evidence = (i: number) => rates(totals.evidence[i]!).overall!;
    const turns = (i: number) => rates(totals.turns[i]!).overall!;
    expect(evidence(6)).toBe(1);
    expect(turns(6)).toBe(1);
    // With room for the whole conversation, each question's context finds what the whole conversation holds, and relative dates resolved.
    expect(answer(3)).toBeGreaterThanOrEqual(answer(6));
    expect(evidence(3)).toBeGreaterThan(0.9);
    // The BM25 baseline with room for every turn holds every evidence turn.
    expect(turns(4)).toBe(1);
    // At 120 tokens the headings take most of the room, but something of the question's evidence is there.
    expect(evidence(0)).toBeGreaterThan(0);
    const tables = renderPerQuestionTables(totals);
    expect(tables).toContain('| **context, 2,000 tokens** |');
    expect(tables).toContain('| last 120 tokens (baseline) |');
    expect(tables).toContain('| BM25 over turns, 2,000 tokens (strong baseline) |');
    expect(tables).toContain('Evidence-turn recall');
    expect(totals.search.memvault.questions).toBeGreaterThan(0);
    expect(totals.search.memvault.questions).toBe(totals.search.bm25.questions);
    expect(renderSearchTable(totals.search)).toContain('| **memvault search** |');
  }, 120_000);
});

describe('the strong BM25 baseline', () => {
  const baseline = bm25Baseline(conversation);
  const question = conversation.qa.find((qa) => isNonAdversarial(qa) && (qa.evidence?.length ?? 0) > 0)!;

  it('packs the hits with their neighbouring turns under dated session headers, within the budget', () => {
    for (const budget of [60, 200, 2000]) {
      const text = baseline.contextFor(question.question, budget);
      expect(countTokens(text, 'o200k_base')).toBeLessThanOrEqual(budget);
    }
    const text = baseline.contextFor(question.question, 2000);
    expect(text).toMatch(/^## Session \d+ \(\d{4}-\d{2}-\d{2}T/);
    const evidence = evidenceTurns(conversation).find((q) => q.qa === question)!;
    expect(rates(evidenceTurnRecall(text, [evidence])).overall).toBe(1);
  });

  it('ranks sessions for the search measures', () => {
    const ranked = bm25Sessions(conversation)(question.question);
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked.every((s) => conversation.sessions.some((x) => x.index === s))).toBe(true);
  });
});

describe('evidence measures', () => {
  it('counts an evidence turn present only when it is there whole, resolved dates aside', () => {
    const qa = { question: 'q', answer: 'a', category: 4, evidence: ['D1:1'] };
    const turns = [{ qa, turns: ['i lost my job yesterday.'] }];
    expect(rates(evidenceTurnRecall('Ana: I lost my **job** yesterday (7 May 2023).', turns)).overall).toBe(1);
    expect(rates(evidenceTurnRecall('Ana lost her job.', turns)).overall).toBe(0);
  });

  it('maps hits to sessions (memories wherever archived, dailies to their day) and scores rankings', () => {
    const first = conversation.sessions[0]!;
    const file = first.path.slice(first.path.lastIndexOf('/') + 1);
    expect(sessionsOfPaths(conversation, [`conv-1/archive/2023-Q2/memories/${file}`])).toEqual([first.index]);
    expect(sessionsOfPaths(conversation, [`conv-1/daily/${first.day}.md`, `conv-1/weekly/2023-W19.md`])).toContain(first.index);
    const totals = emptySearchTotals();
    addSearchRanking(totals, [3, 1, 2, 4, 5, 6], new Set([1, 6]));
    expect(totals).toEqual({ questions: 1, hit5: 1, recall5: 0.5, recall10: 1, all5: 0, all10: 1 });
  });
});
