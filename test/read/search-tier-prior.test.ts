import { describe, expect, it } from 'vitest';
import type { RankedDoc } from '../../src/search/index.js';
import { TIER_PRIOR, withTierPrior } from '../../src/search/query.js';

const doc = (id: string, tier: string, score: number): RankedDoc => ({
  id,
  tier,
  score,
  stream: 'main',
  kind: tier === 'memories' ? 'note' : 'summary',
  period: '2026-02-12',
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
