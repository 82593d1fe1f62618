import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type DuplicateInput, findDuplicates, jaccard, shingles, valuesOf } from '../../src/maintain/duplicates.js';

/** Memories of a few sentences each from a shared vocabulary: alike in words, distinct in content. */
function vault(count: number): DuplicateInput[] {
  // mulberry32: a small deterministic generator with a full 2^32 period.
  let seed = 7;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const subjects = ['scheduler', 'billing service', 'auth proxy', 'search index', 'postgres replica', 'deploy pipeline', 'cache layer'];
  const verbs = ['failed during', 'was migrated before', 'slowed down after', 'was reviewed in', 'got patched for', 'timed out on'];
  const objects = ['the nightly job', 'the release', 'the load test', 'the audit', 'the rollout', 'the incident call', 'the retro'];
  const sentence = () =>
    `The ${subjects[Math.floor(rand() * subjects.length)]} ${verbs[Math.floor(rand() * verbs.length)]} ${objects[Math.floor(rand() * objects.length)]} ticket ${Math.floor(rand() * 9000) + 1000}.`;
  return Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    path: `main/memories/m${String(i).padStart(4, '0')}.md`,
    day: `2026-0${1 + (i % 9)}-1${i % 10}`,
    importance: 'normal' as const,
    text: Array.from({ length: 12 + Math.floor(rand() * 8) }, sentence).join(' '),
  }));
}

describe('near-duplicate memories', () => {
  it('finds each planted near-duplicate with its original, and nothing else', () => {
    const memories = vault(400);
    const planted: string[] = [];
    for (let i = 0; i < 12; i++) {
      const original = memories[i * 30]!;
      const sentences = original.text.split('. ');
      // One sentence of 12–19 reworded, its value kept (a copy stating another value is no copy: consolidate-values.test.ts):
      // the kind of copy an ingest run twice, or a pasted note, leaves.
      const ticket = /ticket \d+/.exec(sentences[sentences.length - 1]!)![0];
      sentences[sentences.length - 1] = `A late note on the retro follows tomorrow, ${ticket}`;
      memories.push({ ...original, id: `dup${i}`, path: `main/memories/dup${i}.md`, day: '2026-10-01', text: sentences.join('. ') });
      planted.push(`${original.id}=dup${i}`);
    }
    const groups = findDuplicates(memories);
    const found = groups.map((group) => `${group.keep.id}=${group.duplicates.map((d) => d.id).join(',')}`).sort();
    expect(found).toEqual(planted.sort());
    for (const group of groups) expect(group.duplicates[0]!.similarity).toBeGreaterThanOrEqual(0.8);
  });

  it('keeps the most important, then the earliest memory', () => {
    const text = 'The scheduler failed during the nightly job ticket 4411 and the retry queue filled up before dawn.';
    const group = (importance: DuplicateInput['importance'], day: string, id: string): DuplicateInput => ({
      id,
      path: `main/memories/${id}.md`,
      day,
      importance,
      text,
    });
    expect(findDuplicates([group('normal', '2026-01-02', 'b'), group('normal', '2026-01-01', 'a')])[0]!.keep.id).toBe('a');
    expect(findDuplicates([group('normal', '2026-01-01', 'a'), group('high', '2026-03-01', 'c')])[0]!.keep.id).toBe('c');
  });

  it('measures similarity on content-word shingles', () => {
    expect(jaccard(shingles('alpha beta gamma delta'), shingles('alpha beta gamma delta'))).toBe(1);
    expect(jaccard(shingles('alpha beta gamma delta'), shingles('epsilon zeta eta theta'))).toBe(0);
    // Stop words do not make two texts alike.
    expect(jaccard(shingles('the of and to in'), shingles('the of and to in'))).toBe(0);
  });
});

describe('candidate pairs by prefix filtering', () => {
  it('groups exactly as comparing every pair would, for any texts and thresholds', () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta'];
    const text = fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 14 }).map((list) => list.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 2, maxLength: 12 }),
        fc.constantFrom(0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1),
        (texts, threshold) => {
          const memories = texts.map((t, i) => ({ id: `m${i}`, path: `p${i}`, day: '2026-01-01', importance: 'normal' as const, text: t }));
          const sets = texts.map(shingles);
          // Every pair compared, joined transitively: what the prefix filter must reproduce.
          const parent = texts.map((_, i) => i);
          const find = (i: number): number => (parent[i] === i ? i : find(parent[i]!));
          for (let i = 0; i < texts.length; i++)
            for (let j = i + 1; j < texts.length; j++) if (jaccard(sets[i]!, sets[j]!) >= threshold) parent[find(i)] = find(j);
          const expected = new Map<number, string[]>();
          texts.forEach((_, i) => expected.set(find(i), [...(expected.get(find(i)) ?? []), `m${i}`]));
          const brute = [...expected.values()].filter((g) => g.length > 1).map((g) => g.sort().join(','));
          const found = findDuplicates(memories, threshold).map((g) => [g.keep.id, ...g.duplicates.map((d) => d.id)].sort().join(','));
          expect(found.sort()).toEqual(brute.sort());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('values that words do not tell apart', () => {
  const text = (value: string) =>
    `The team set the connection pool size of the billing service to ${value} after the load test on the staging cluster.`;
  const pair = (a: string, b: string): DuplicateInput[] => [
    { id: 'a', path: 'a.md', day: '2026-01-01', importance: 'normal', text: a },
    { id: 'b', path: 'b.md', day: '2026-01-02', importance: 'normal', text: b },
  ];

  it('never groups memories whose numbers, dates, versions, hashes, identifiers or code spans differ', () => {
    for (const [a, b] of [
      ['20', '80'],
      ['20', '20 or 25'],
      ['2026-04-01', '2026-05-01'],
      ['v1.2.3', 'v1.2.4'],
      ['the value at commit 3f9a2c1', 'the value at commit 7be01d4'],
      ['`poolSize`', '`pool_size`'],
      ['MAX_POOL', 'MIN_POOL'],
      ['config.yaml', 'config.json'],
    ] as const) {
      // Alike in words (the shingles drop digits and identifiers' differences barely move them).
      expect(jaccard(shingles(text(a)), shingles(text(b)))).toBeGreaterThanOrEqual(0.5);
      expect(findDuplicates(pair(text(a), text(b)), 0.5)).toEqual([]);
    }
  });

  it('still groups copies that state the same values, however they are punctuated', () => {
    expect(findDuplicates(pair(text('5,000'), `${text('5000')} Noted again.`))).toHaveLength(1);
    expect(findDuplicates(pair(text('`poolSize` 20.'), text('`poolSize` 20')))).toHaveLength(1);
  });

  it('reads the values of a text', () => {
    expect([...valuesOf('Pool size 20, then 5,000 on 2026-03-02 (v1.2.3, #412, `a b`); see src/app.ts and poolSize.')].sort()).toEqual(
      ['#412', '20', '2026-03-02', '5000', '`a b`', 'poolsize', 'src/app.ts', 'v1.2.3'].sort(),
    );
  });
});
