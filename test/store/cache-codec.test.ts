import { describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/store/cache.js';
import { decodeEntry, decodeStoredCitations, encodeEntry, MEMORY_ROW, storedCitationsOf } from '../../src/store/cache-codec.js';
import { checkableCitationCount, citationsUnread } from '../../src/store/lazy-citations.js';
import type { Citation } from '../../src/vault/citation-model.js';
import type { Memory } from '../../src/vault/model.js';

/**
 * A parse-cache entry written to its row (JSON text, as the store holds it) and read back; its citations as
 * `parse_citations` holds them, read when asked for (`reads` counts the reads).
 */
function roundTrip(entry: CacheEntry, key: string, reads = { count: 0 }): CacheEntry {
  const row = JSON.parse(JSON.stringify(encodeEntry(entry, key)));
  const citations = storedCitationsOf(entry.result);
  return decodeEntry(
    key,
    row,
    () => {
      throw new Error('a memory has no lists');
    },
    (memories) => {
      expect(memories.map((m) => m.sha256)).toEqual([entry.sha256]);
      reads.count++;
      return new Map([[entry.sha256, decodeStoredCitations(citations!)]]);
    },
  );
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
    const row = encodeEntry(entry, key);
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

  it('leave out an id the path gives, in memories/ and in an archive quarter, and keep one the frontmatter gave', () => {
    const entry = (at: string, extra: Partial<Memory>): CacheEntry => ({
      size: 9,
      mtimeMs: 5,
      sha256: 'ab'.repeat(32),
      result: { type: 'memory', memory: memory({ path: at, ...extra }) },
    });
    const archived = 'main/archive/2025-Q4/2025/11/b.md';
    for (const [at, extra, stored] of [
      [key, {}, 0],
      [archived, { id: '2025/11/b', location: 'archive' }, 0],
      [key, { id: 'auth-decision' }, 'auth-decision'],
      [archived, { id: '2026/01/a', location: 'archive' }, '2026/01/a'],
    ] as const) {
      const e = entry(at, extra as Partial<Memory>);
      expect((encodeEntry(e, at) as unknown[])[6]).toBe(stored);
      expect(roundTrip(e, at)).toEqual(e);
    }
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
    const reads = { count: 0 };
    const back = roundTrip(entry, key, reads);
    const memoryBack = (back.result as { memory: Memory }).memory;
    // Counted in the row, read from the store only when asked for (a build reads every row, a few memories' citations).
    expect(checkableCitationCount(memoryBack)).toBe(4);
    expect(citationsUnread(memoryBack)).toBe(true);
    expect(reads.count).toBe(0);
    expect(back).toEqual(entry);
    expect(reads.count).toBe(1);
    expect(citationsUnread(memoryBack)).toBe(false);
    expect(memoryBack.citations).toEqual(citations);
    expect(reads.count).toBe(1);
    const row = JSON.stringify(encodeEntry(entry, key));
    expect(row).not.toContain('#4234');
    expect(row.endsWith(',6,4]')).toBe(true);
    // Kept apart as tuples, not objects: no key names.
    const stored = storedCitationsOf(entry.result)!;
    expect(stored).not.toContain('"kind":"issue"');
    expect(stored).toContain('["i","#4234",13]');
    // A memory whose citations were not read yet stores none again (the store has them under its hash), and its row
    // keeps their counts without reading them.
    const again = roundTrip(entry, key, reads);
    expect(storedCitationsOf(again.result)).toBeUndefined();
    expect(JSON.stringify(encodeEntry(again, key))).toBe(row);
    expect(reads.count).toBe(1);
  });
});
