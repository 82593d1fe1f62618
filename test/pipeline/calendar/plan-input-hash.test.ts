import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputHashOf, type PlanContext } from '../../../src/pipeline/calendar/plan.js';
import { hashValue } from '../../../src/util/hash.js';
import type { CalendarTier, SourceRef } from '../../../src/vault/model.js';

/**
 * A summary records its input hash; a build that hashed the same inputs any
 * other way would regenerate every summary of every vault. The planner writes
 * the canonical form once (memo key and hashed text): it must stay the hash of
 * the canonical JSON of `{tier, period, sources, generator, budget}`.
 */

const budget = { target_tokens: 400, max_bytes: 4000 };
const context = (prompt: string): PlanContext => ({
  stream: 'main',
  horizon: '2026-11-20',
  force: false,
  generator: { provider: 'extractive', model: 'memvault-extractive-1', promptId: (tier) => `${tier}@${prompt}` },
  budgets: {
    daily: budget,
    weekly: { ...budget, target_tokens: 800 },
    monthly: budget,
    longterm: { target_tokens: 2000, max_bytes: 20000 },
  },
});

function expected(tier: CalendarTier, period: string, sources: readonly SourceRef[], ctx: PlanContext): string {
  const { provider, model } = ctx.generator;
  return hashValue({
    tier,
    period,
    sources,
    generator: { provider, model, prompt: ctx.generator.promptId(tier) },
    budget: ctx.budgets[tier],
  });
}

const sha = fc.stringMatching(/^[0-9a-f]{64}$/);
const source = fc.oneof(
  fc.record({ id: fc.string({ maxLength: 40 }), sha256: sha }),
  // Unusual refs: a key out of order, a non-ASCII id, an extra field (canonical JSON sorts and keeps them).
  fc.record({ sha256: sha, id: fc.string({ unit: 'grapheme', maxLength: 20 }), extra: fc.integer() }),
);

describe('inputHashOf', () => {
  it('is the hash of the canonical inputs, for any sources (memoized or not)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CalendarTier>('daily', 'weekly', 'monthly', 'longterm'),
        fc.string({ maxLength: 12 }),
        fc.array(source, { maxLength: 30 }),
        fc.string({ maxLength: 8 }),
        (tier, period, sources, prompt) => {
          const ctx = context(prompt);
          const want = expected(tier, period, sources, ctx);
          expect(inputHashOf(tier, period, sources, ctx)).toBe(want);
          // Second call: from the memo.
          expect(inputHashOf(tier, period, sources, ctx)).toBe(want);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('changes with each input', () => {
    const ctx = context('a1');
    const sources = [{ id: '2026/11/2026-11-20-a', sha256: 'a'.repeat(64) }];
    const base = inputHashOf('daily', '2026-11-20', sources, ctx);
    expect(inputHashOf('daily', '2026-11-19', sources, ctx)).not.toBe(base);
    expect(inputHashOf('weekly', '2026-11-20', sources, ctx)).not.toBe(base);
    expect(inputHashOf('daily', '2026-11-20', [{ ...sources[0]!, sha256: 'b'.repeat(64) }], ctx)).not.toBe(base);
    expect(inputHashOf('daily', '2026-11-20', sources, context('a2'))).not.toBe(base);
    expect(
      inputHashOf('daily', '2026-11-20', sources, { ...ctx, budgets: { ...ctx.budgets, daily: { ...budget, max_bytes: 1 } } }),
    ).not.toBe(base);
    // A summary written before this change recorded this very value.
    expect(base).toBe(expected('daily', '2026-11-20', sources, ctx));
  });
});
