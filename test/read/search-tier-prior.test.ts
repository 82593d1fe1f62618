import { describe, expect, it } from 'vitest';
import type { RankedDoc } from '../../src/search/index.js';
import { TIER_PRIOR, withNamedDays, withTierPrior } from '../../src/search/query.js';

const doc = (id: string, tier: string, score: number, period = '2026-02-12'): RankedDoc => ({
  id,
  tier,
  score,
  stream: 'main',
  kind: tier === 'memories' ? 'note' : 'summary',
  period,
  title: id,
  tags: [],
  start: '2026-02-12',
  end: '2026-02-12',
  date: '2026-02-12',
  sha256: '',
  terms: [],
});

describe('search: the tier prior', () => {
  it('ranks a weekly that matches better than its memory below it, unless it matches four times better', () => {
    const ranked = withTierPrior([doc('main/weekly/2026-W07.md', 'weekly', 3), doc('main/memories/a.md', 'memories', 1)]);
    expect(ranked.map((d) => d.id)).toEqual(['main/memories/a.md', 'main/weekly/2026-W07.md']);
    const far = withTierPrior([doc('main/weekly/2026-W07.md', 'weekly', 5), doc('main/memories/a.md', 'memories', 1)]);
    expect(far[0]!.id).toBe('main/weekly/2026-W07.md');
  });

  it('leaves memories and daily summaries at their score, and keeps the order of ties', () => {
    expect(TIER_PRIOR.daily).toBeUndefined();
    const ranked = withTierPrior([doc('main/memories/b.md', 'memories', 2), doc('main/daily/2026-02-12.md', 'daily', 2)]);
    expect(ranked.map((d) => [d.id, d.score])).toEqual([
      ['main/memories/b.md', 2],
      ['main/daily/2026-02-12.md', 2],
    ]);
  });
});

describe('search: a day the query names', () => {
  it("scores that day's memories and daily as the best document, leaves the rest, and changes nothing without a day", () => {
    const results = [
      doc('main/memories/a.md', 'memories', 5, '2026-02-12'),
      doc('main/weekly/2026-W07.md', 'weekly', 4, '2026-W07'),
      doc('main/memories/b.md', 'memories', 1, '2026-02-10'),
      doc('main/daily/2026-02-10.md', 'daily', 0.5, '2026-02-10'),
    ];
    expect(withNamedDays(results, ['2026-02-10']).map((d) => [d.id, d.score])).toEqual([
      ['main/memories/a.md', 5],
      ['main/memories/b.md', 5],
      ['main/daily/2026-02-10.md', 5],
      ['main/weekly/2026-W07.md', 4],
    ]);
    expect(withNamedDays(results, [])).toEqual(results);
  });
});
