import { describe, expect, it } from 'vitest';
import { namedDays } from '../../src/search/named-days.js';
import { relevantFor } from '../../src/read/context/relevant.js';
import type { Memory } from '../../src/vault/model.js';

/** A query that names a day: the day read from its words, and that day's memories ranked as the best match. Pure. */

describe('namedDays', () => {
  it('reads days written with their year, in the common orders and abbreviations', () => {
    expect(namedDays('Where was Kate on 31 Dec 2023?')).toEqual(['2023-12-31']);
    expect(namedDays('What did Gina find on 1 February, 2023?')).toEqual(['2023-02-01']);
    expect(namedDays('Naps on January 6 2024, and on Oct. 13th, 2023').sort()).toEqual(['2023-10-13', '2024-01-06']);
    expect(namedDays('the 23rd of December 2023')).toEqual(['2023-12-23']);
    expect(namedDays('see 2026-03-04')).toEqual(['2026-03-04']);
  });

  it('reads no day without a year, and no impossible day', () => {
    expect(namedDays('What happened on May 7?')).toEqual([]);
    expect(namedDays('plans for May 2023')).toEqual([]);
    expect(namedDays('on 31 February 2023 or 2023-02-30')).toEqual([]);
  });
});

describe('relevantFor with a named day', () => {
  const memories = [
    {
      path: 'c/memories/2023-12-30-s2.md',
      day: '2023-12-30',
      body: 'Emi: I made pasta with basil and tomatoes from the garden.\n\nElise: Nice.',
    },
    { path: 'c/memories/2023-12-29-s1.md', day: '2023-12-29', body: 'Emi: Pasta carbonara.\n\nElise: Yum.' },
  ];
  const byPath = new Map(memories.map((m) => [m.path, { path: m.path, day: m.day } as unknown as Memory]));
  const first = (query: string): string | undefined =>
    relevantFor({
      query,
      hits: [
        { path: memories[0]!.path, score: 10 },
        { path: memories[1]!.path, score: 4 },
      ],
      byPath,
      bodyOf: (p) => memories.find((m) => m.path === p)?.body,
      ladder: (p) => [{ source: p, label: p, text: memories.find((m) => m.path === p)!.body }],
      memoryVersion: (m) => ({ source: m.path, label: m.path, text: '' }),
    })[0]?.versions[0]?.source;

  // The search ranked the 30th's memory higher; the 29th's says it in fewer words. Named, the 29th counts as the best match.
  it("quotes the named day's memory first, though the search ranked another day's higher", () => {
    expect(first('What pasta did Kate make?')).toBe(memories[0]!.path);
    expect(first('What pasta did Kate make on 29 Dec 2023?')).toBe(memories[1]!.path);
  });
});
