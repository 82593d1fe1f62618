import { describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/store/cache.js';
import { decodeEntry, encodeEntry, MEMORY_ROW } from '../../src/store/cache-codec.js';
import type { Citation } from '../../src/vault/citation-model.js';
import type { Memory } from '../../src/vault/model.js';

/** A parse-cache entry written to its row (JSON text, as the store holds it) and read back. */
function roundTrip(entry: CacheEntry, key: string): CacheEntry {
  const row = JSON.parse(JSON.stringify(encodeEntry(entry)));
  return decodeEntry(key, row, () => {
    throw new Error('a memory has no lists');
  });
}

const key = 'main/memories/2026/01/a.md';

function memory(extra: Partial<Memory> = {}): Memory {
  return {
    id: '2026/01/a',
    stream: 'main',
    path: key,
    location: 'memories',
    date: '2026-01-02T10:00:00+01:00',
    day: '2026-01-02',
    minute: 600,
    title: 'A title',
    kind: 'decision',
    tags: ['db', 'ops'],
    importance: 'high',
    sha256: 'ab'.repeat(32),
    ...extra,
  };
}

describe('parse-cache memory rows', () => {
  it('are arrays that read back as the entry they were made from', () => {
    const entry: CacheEntry = {
      size: 120,
      mtimeMs: 1_700_000_000_123.25,
      sha256: 'ab'.repeat(32),
      result: { type: 'memory', memory: memory() },
    };
    const row = encodeEntry(entry);
    expect(Array.isArray(row) && row[0]).toBe(MEMORY_ROW);
    expect(roundTrip(entry, key)).toEqual(entry);
  });

  it('keep an absent title, headings and secrets absent, and every other field of the memory', () => {
    const untitled = memory({
      title: undefined,
      duplicateOf: '2026/01/b',
      citations: [{ kind: 'issue', target: '#12', line: 3 }],
    } as Partial<Memory>);
    delete (untitled as Partial<Memory>).title;
    const entry: CacheEntry = { size: 9, mtimeMs: 5, sha256: 'ab'.repeat(32), result: { type: 'memory', memory: untitled } };
    const back = roundTrip(entry, key);
    expect(back).toEqual(entry);
    expect(Object.hasOwn((back.result as { memory: Memory }).memory, 'title')).toBe(false);
    expect(Object.hasOwn(back, 'headings')).toBe(false);
    expect(Object.hasOwn(back.result, 'secrets')).toBe(false);

    const withAll: CacheEntry = {
      ...entry,
      headings: [],
      result: { type: 'memory', memory: memory(), secrets: [{ kind: 'aws', line: 2, column: 4, secret: 'AKIA…' }] },
    };
    expect(roundTrip(withAll, key)).toEqual(withAll);
  });

  it('keep every kind of citation with its line range, symbol and quote, stored as tuples', () => {
    const citations: Citation[] = [
      { kind: 'issue', target: '#4234', line: 13 },
      { kind: 'issue', target: 'acme/app#7', line: 14 },
      { kind: 'commit', target: '3f2a1c0', line: 15 },
      { kind: 'branch', target: 'feature/retry', line: 16 },
      { kind: 'path', target: 'src/net/', line: 17 },
      {
        kind: 'path',
        target: 'src/net/retry.ts',
        line: 18,
        lines: [10, 20],
        symbol: 'retryWithBackoff',
        quote: { kind: 'block', text: ['const delay = base * 2 ** attempt;'], height: 3 },
      },
    ];
    const entry: CacheEntry = {
      size: 9,
      mtimeMs: 5,
      sha256: 'ab'.repeat(32),
      result: { type: 'memory', memory: memory({ citations }) },
    };
    expect(roundTrip(entry, key)).toEqual(entry);
    const row = JSON.stringify(encodeEntry(entry));
    // Tuples, not objects: no key names in the row (a build reads every row).
    expect(row).not.toContain('"kind":"issue"');
    expect(row).toContain('["i","#4234",13]');
    expect(row.length).toBeLessThan(JSON.stringify({ ...entry, result: { memory: memory({ citations }) } }).length);
  });
});
