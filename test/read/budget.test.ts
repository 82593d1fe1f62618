import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateBudget, sharesFor, TIER_NAMES } from '../../src/read/context/budget.js';
import { signalQueries } from '../../src/read/context/signals.js';
import { parseQuery } from '../../src/search/query.js';

const plenty = { critical: 1e9, relevant: 1e9, background: 1e9, index: 1e9 };

describe('allocateBudget', () => {
  it('splits by the default shares (25 / 37.5 / 25 / 12.5 %) when every tier has plenty to say', () => {
    expect(allocateBudget(8000, plenty, sharesFor(undefined))).toEqual({ critical: 2000, relevant: 3000, background: 2000, index: 1000 });
  });

  it('gives what a tier does not need to the others, by share', () => {
    const a = allocateBudget(8000, { critical: 100, relevant: 1e9, background: 1e9, index: 0 }, sharesFor(undefined));
    expect(a.critical).toBe(100);
    expect(a.index).toBe(0);
    expect(a.relevant + a.background).toBe(7900);
    expect(a.relevant / a.background).toBeCloseTo(1.5, 2);
  });

  it('never gives more than the demand, nor more than the budget', () => {
    expect(allocateBudget(8000, { critical: 10, relevant: 20, background: 30, index: 40 }, sharesFor(undefined))).toEqual({
      critical: 10,
      relevant: 20,
      background: 30,
      index: 40,
    });
    // Found by the property below: the rounding remainder once went whole to the first tier, past its demand.
    expect(allocateBudget(8, { critical: 3, relevant: 3, background: 2, index: 1 }, sharesFor('review'))).toEqual({
      critical: 3,
      relevant: 3,
      background: 2,
      index: 0,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000 }),
        fc.array(fc.integer({ min: 0, max: 40_000 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom(undefined, 'debugging', 'feature', 'review', 'planning' as const),
        (budget, d, activity) => {
          const demand = { critical: d[0]!, relevant: d[1]!, background: d[2]!, index: d[3]! };
          const a = allocateBudget(budget, demand, sharesFor(activity));
          const total = TIER_NAMES.reduce((s, t) => s + a[t], 0);
          expect(total).toBeLessThanOrEqual(budget);
          for (const t of TIER_NAMES) expect(a[t]).toBeLessThanOrEqual(demand[t]);
          // Nothing is left unused while some tier still wants more (up to one token of rounding per tier).
          if (TIER_NAMES.some((t) => a[t] < demand[t])) expect(total).toBeGreaterThanOrEqual(budget - 4);
        },
      ),
    );
  });

  it('widens critical for debugging', () => {
    expect(allocateBudget(8000, plenty, sharesFor('debugging')).critical).toBeGreaterThan(
      allocateBudget(8000, plenty, sharesFor(undefined)).critical,
    );
    for (const activity of [undefined, 'debugging', 'feature', 'review', 'planning'] as const) {
      expect(TIER_NAMES.reduce((s, t) => s + sharesFor(activity)[t], 0)).toBeCloseTo(1, 9);
    }
  });
});

describe('signalQueries', () => {
  it('turns the file into module and name, the branch into words, the error into its first line', () => {
    expect(
      signalQueries({
        query: ' sessions ',
        file: 'src/auth/session-store.ts',
        error: 'TypeError: token is undefined\n    at x (a.js:1)',
        branch: 'feature/auth-refresh-42',
      }),
    ).toEqual([
      { signal: 'query', text: 'sessions' },
      { signal: 'error', text: 'TypeError: token is undefined' },
      { signal: 'file', text: 'auth session-store' },
      { signal: 'branch', text: 'auth refresh' },
    ]);
    expect(signalQueries({ branch: 'main' })).toEqual([]);
  });
});

describe('parseQuery', () => {
  it('separates words, phrases and filters', () => {
    expect(
      parseQuery('"server  sessions" postgres tag:auth kind:decision stream:main tier:weekly since:2026-02 until:"last week" foo:bar'),
    ).toEqual({
      text: 'server sessions postgres foo:bar',
      phrases: ['server sessions'],
      filters: { tag: ['auth'], kind: ['decision'], stream: ['main'], tier: ['weekly'], since: ['2026-02'], until: ['last week'] },
    });
    expect(parseQuery('TAG:auth "unclosed phrase').filters.tag).toEqual(['auth']);
    expect(parseQuery('TAG:auth "unclosed phrase').phrases).toEqual(['unclosed phrase']);
  });
});
