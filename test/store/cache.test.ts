import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeStateStores } from '../../src/store/database.js';
import { ParseCache, type CacheEntry, parseCacheStamp, purgeParseCache } from '../../src/store/cache.js';
import { listLength } from '../../src/store/cache-codec.js';
import { checkableCitationCount, citationsUnread } from '../../src/store/lazy-citations.js';
import type { Memory, Summary } from '../../src/vault/model.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-cache-'));
});
afterEach(() => {
  closeStateStores();
  rmSync(dir, { recursive: true, force: true });
});

/** A connection of its own to the store's file, as another process has. */
function withDb<T>(work: (db: Database.Database) => T): T {
  const db = new Database(path.join(dir, 'state.sqlite'));
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const memoryPath = (n: number): string => `main/memories/2026/01/m-${n}.md`;

function memoryEntry(n: number, title = `Memory ${n}`): CacheEntry {
  const sha = n.toString(16).padStart(64, '0');
  const memory: Memory = {
    id: `2026/01/m-${n}`,
    stream: 'main',
    path: memoryPath(n),
    location: 'memories',
    date: '2026-01-02T10:00:00+01:00',
    day: '2026-01-02',
    minute: 540 + n,
    title,
    kind: 'session',
    tags: ['auth'],
    importance: n === 1 ? 'pinned' : 'normal',
    sha256: sha,
  };
  return { size: 100 + n, mtimeMs: 1_700_000_000_000 + n, sha256: sha, result: { type: 'memory', memory } };
}

/** The entry with a path citation and an issue in its memory. */
function withCitations(entry: CacheEntry): CacheEntry {
  const memory = (entry.result as { memory: Memory }).memory;
  memory.citations = [
    { kind: 'path', target: 'src/net/retry.ts', line: 3 },
    { kind: 'issue', target: '#12', line: 4 },
  ];
  return entry;
}

function summaryEntry(): CacheEntry {
  const summary: Summary = {
    path: 'main/daily/2026-01-02.md',
    sha256: 'f'.repeat(64),
    bodyHash: 'e'.repeat(64),
    meta: {
      memvault: 'summary',
      tier: 'daily',
      stream: 'main',
      period: '2026-01-02',
      start: '2026-01-02',
      end: '2026-01-02',
      sources: [{ id: '2026/01/m-1', sha256: '1'.padStart(64, '0') }],
      memories: 1,
      tokens: 42,
      bytes: 180,
      generator: { provider: 'extractive', model: 'memvault-extractive-1', prompt: 'daily@1' },
      input_hash: 'a'.repeat(64),
      output_hash: 'e'.repeat(64),
      dropped: ['Décidé : garder « Zoë » — 東京 🚀'],
    },
  };
  return { size: 999, mtimeMs: 1_700_000_000_999, sha256: 'f'.repeat(64), result: { type: 'summary', summary } };
}

/** One build's worth: opens the cache, records these memories, saves. */
function saveMemories(...numbers: number[]): void {
  const cache = ParseCache.open(dir, 'UTC');
  for (const n of numbers) cache.set(memoryPath(n), memoryEntry(n));
  cache.save();
}

/** Every entry of a freshly opened cache, as plain data. */
function reopen(paths: string[]): Record<string, CacheEntry | undefined> {
  const cache = ParseCache.open(dir, 'UTC');
  return Object.fromEntries(paths.map((p) => [p, cache.get(p)]));
}

describe('parse cache on disk', () => {
  it('reads back every kind of entry exactly, non-ASCII text included', () => {
    const cache = ParseCache.open(dir, 'UTC');
    const memory = memoryEntry(1, 'Zoë’s 東京 notes 🚀');
    const summary = summaryEntry();
    const invalid: CacheEntry = {
      size: 3,
      mtimeMs: 5,
      sha256: 'c'.repeat(64),
      result: {
        type: 'invalid',
        diagnostics: [
          { path: 'main/memories/bad.md', line: 2, column: 1, severity: 'error', reason: 'broken YAML', rule: 'memory/frontmatter' },
        ],
      },
    };
    cache.set('main/memories/2026/01/m-1.md', memory, { body: 'Zoë went to 東京.', sentences: [] });
    cache.set('main/daily/2026-01-02.md', summary);
    cache.set('main/memories/bad.md', invalid);
    cache.save();

    const again = ParseCache.open(dir, 'UTC');
    expect(again.get('main/memories/2026/01/m-1.md')).toEqual(memory);
    expect(again.get('main/daily/2026-01-02.md')).toEqual(summary);
    expect(again.get('main/memories/bad.md')).toEqual(invalid);
    expect(again.readContent('main/memories/2026/01/m-1.md', memory.sha256)?.body).toBe('Zoë went to 東京.');
  });

  it('writes only what changed, in one transaction, and moves the generation on with each save that changes an entry', () => {
    saveMemories(...Array.from({ length: 50 }, (_, i) => i + 1));
    const generation = parseCacheStamp(dir);
    const second = ParseCache.open(dir, 'UTC');
    second.retain(new Set(Array.from({ length: 50 }, (_, i) => memoryPath(i + 1))));
    expect(second.modified).toBe(false);
    second.save(); // nothing changed: nothing written
    expect(parseCacheStamp(dir)).toBe(generation);
    second.set(memoryPath(7), memoryEntry(7, 'Edited title'));
    second.retain(new Set(Array.from({ length: 50 }, (_, i) => memoryPath(i + 1)).filter((p) => p !== memoryPath(9))));
    second.save();
    expect(parseCacheStamp(dir)).not.toBe(generation);
    const again = reopen([memoryPath(7), memoryPath(8), memoryPath(9)]);
    expect(again[memoryPath(7)]).toEqual(memoryEntry(7, 'Edited title'));
    expect(again[memoryPath(8)]).toEqual(memoryEntry(8));
    expect(again[memoryPath(9)]).toBeUndefined();
    expect(withDb((db) => db.prepare('SELECT count(*) FROM parse_files').pluck().get())).toBe(49);
  });

  it('names its state by the generation, and no state once this process changed an entry', () => {
    const fresh = ParseCache.open(dir, 'UTC');
    expect(fresh.state).toBeUndefined(); // never saved
    fresh.set(memoryPath(1), memoryEntry(1));
    fresh.save();
    const opened = ParseCache.open(dir, 'UTC');
    expect(opened.state).toBe(parseCacheStamp(dir));
    opened.set(memoryPath(2), memoryEntry(2));
    expect(opened.state).toBeUndefined();
  });

  it("keeps a summary's lists out of its row, in their place among its metadata, read from parse_lists when first used", () => {
    const summary = summaryEntry();
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summary);
    first.save();
    const stored = JSON.parse(
      withDb((db) => db.prepare('SELECT entry FROM parse_files WHERE path = ?').pluck().get('main/daily/2026-01-02.md') as string),
    );
    // In the row each list is its length: the index counts sources without reading them.
    expect(stored.result.summary.meta).toMatchObject({ sources: 1, dropped: 1, tokens: 42 });

    const again = ParseCache.open(dir, 'UTC').get('main/daily/2026-01-02.md')?.result;
    if (again?.type !== 'summary' || summary.result.type !== 'summary') throw new Error('not a summary');
    const meta = again.summary.meta;
    expect(Object.keys(meta)).toEqual(Object.keys(summary.result.summary.meta));
    expect(Object.getOwnPropertyDescriptor(meta, 'sources')?.get).toBeDefined();
    expect(listLength(meta, 'sources')).toBe(1);
    expect(Object.getOwnPropertyDescriptor(meta, 'sources')?.get).toBeDefined();
    expect(meta.dropped).toEqual(['Décidé : garder « Zoë » — 東京 🚀']);
    // One read brings both lists in as plain values.
    expect(Object.getOwnPropertyDescriptor(meta, 'sources')?.value).toEqual(summary.result.summary.meta.sources);
  });

  it('a long-lived reader still finds the lists of the summary it holds after a build replaced that summary', () => {
    const summary = summaryEntry();
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summary);
    first.save();
    const reader = ParseCache.open(dir, 'UTC');
    // Another build writes the daily anew (another file hash, other lists).
    const builder = ParseCache.open(dir, 'UTC');
    const rewritten = summaryEntry();
    if (rewritten.result.type !== 'summary') throw new Error('not a summary');
    rewritten.sha256 = '9'.repeat(64);
    rewritten.result.summary.sha256 = rewritten.sha256;
    rewritten.result.summary.meta.dropped = ['other'];
    builder.set('main/daily/2026-01-02.md', rewritten);
    builder.save();
    expect(reader.get('main/daily/2026-01-02.md')?.result).toEqual(summary.result);
    expect(ParseCache.open(dir, 'UTC').get('main/daily/2026-01-02.md')?.result).toEqual(rewritten.result);
  });

  it('removes lists no entry names once they outnumber the live ones', () => {
    const cache = ParseCache.open(dir, 'UTC');
    for (let n = 0; n < 300; n++) {
      const entry = summaryEntry();
      entry.sha256 = n.toString(16).padStart(64, '0');
      cache.set('main/daily/2026-01-02.md', entry);
      cache.save();
    }
    // One live summary: the dead lists went once there were more than 256 of them.
    expect(withDb((db) => db.prepare('SELECT count(*) FROM parse_lists').pluck().get())).toBeLessThan(257);
    const again = ParseCache.open(dir, 'UTC').get('main/daily/2026-01-02.md')?.result;
    expect(again?.type === 'summary' ? again.summary.meta.dropped : undefined).toEqual(['Décidé : garder « Zoë » — 東京 🚀']);
  });

  it('looks for dead lists once enough entries changed since the last look, not at every save', () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set('main/daily/2026-01-02.md', summaryEntry());
    cache.save();
    // Dead lists (another process's, say): not looked for by a save of one change (counting the live lists walks every
    // entry), but once 256 entries changed since the last look.
    const lists = (n: number) => `e${n.toString(16)}`.padStart(64, '0');
    withDb((db) => {
      const insert = db.prepare("INSERT INTO parse_lists (sha256, path, lists) VALUES (?, 'main/daily/2026-01-01.md', '{}')");
      for (let n = 0; n < 300; n++) insert.run(lists(n));
    });
    const count = () => withDb((db) => db.prepare('SELECT count(*) FROM parse_lists').pluck().get());
    for (let n = 1; n < 255; n++) {
      cache.set('main/daily/2026-01-02.md', { ...cache.get('main/daily/2026-01-02.md')!, mtimeMs: n });
      cache.save();
    }
    expect(count()).toBe(301);
    cache.set('main/daily/2026-01-02.md', { ...cache.get('main/daily/2026-01-02.md')!, mtimeMs: 255 });
    cache.save();
    expect(count()).toBe(1);
  });

  it("says the cache is damaged when a summary's lists are gone, instead of using something else", () => {
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summaryEntry());
    first.save();
    withDb((db) => db.exec('DELETE FROM parse_lists'));
    const result = ParseCache.open(dir, 'UTC').get('main/daily/2026-01-02.md')?.result;
    expect(() => (result?.type === 'summary' ? result.summary.meta.sources : undefined)).toThrow(/no source list/);
  });

  it('reads a body only for the hash it was parsed from', () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(memoryPath(1), memoryEntry(1), { body: 'first', sentences: [] });
    expect(cache.readContent(memoryPath(1), memoryEntry(1).sha256)?.body).toBe('first'); // before the save, from memory
    cache.save();
    const again = ParseCache.open(dir, 'UTC');
    expect(again.readContent(memoryPath(1), memoryEntry(1).sha256)?.body).toBe('first');
    expect(again.readContent(memoryPath(1), 'd'.repeat(64))).toBeUndefined();
    again.set(memoryPath(1), { ...memoryEntry(1), sha256: 'd'.repeat(64) });
    again.save();
    // The entry's hash moved on without a new body: the old body is not this file's.
    expect(ParseCache.open(dir, 'UTC').readContent(memoryPath(1), 'd'.repeat(64))).toBeUndefined();
  });

  it('writes bodies before the save when asked, lets go of them, and reads them back from the store', () => {
    const cache = ParseCache.open(dir, 'UTC');
    const content = {
      body: 'Zoë chose 東京.\n\n## Next',
      sentences: [{ text: 'Zoë chose 東京.', section: '', block: 0, role: 'decision' as const, mustKeep: ['decision' as const] }],
      headings: [[2, 3, 1, 16, 23] as [number, number, number, number, number]],
    };
    cache.set(memoryPath(1), memoryEntry(1), content);
    cache.set(memoryPath(2), memoryEntry(2), { body: 'second', sentences: [] });
    expect(cache.pendingBodyCount).toBe(2);
    expect(cache.flushBodies()).toEqual(new Set([memoryEntry(1).sha256, memoryEntry(2).sha256]));
    expect(cache.pendingBodyCount).toBe(0);
    // Not the object it was given: read back from the store, equal to it.
    const read = cache.readContent(memoryPath(1), memoryEntry(1).sha256);
    expect(read).not.toBe(content);
    expect(read).toEqual(content);
    // Written before the entries: a cold cache (a rewrite at the save) keeps the bodies flushed before it.
    cache.save();
    const again = ParseCache.open(dir, 'UTC');
    expect(again.readContent(memoryPath(1), memoryEntry(1).sha256)).toEqual(content);
    expect(again.readContent(memoryPath(2), memoryEntry(2).sha256)?.body).toBe('second');
  });

  it('a flush into a cache of another key first empties it, so none of its entries is read with the new bodies', () => {
    const old = ParseCache.open(dir, 'UTC');
    old.set(memoryPath(1), memoryEntry(1), { body: 'parsed in UTC', sentences: [] });
    old.save();
    const stamp = parseCacheStamp(dir);
    const other = ParseCache.open(dir, 'Europe/Paris');
    other.set(memoryPath(2), memoryEntry(2), { body: 'parsed in Paris', sentences: [] });
    other.flushBodies();
    // Before the save: the UTC entries are gone (a UTC reader starts empty), and a session holding them saves nothing back.
    expect(ParseCache.open(dir, 'UTC').size).toBe(0);
    expect(parseCacheStamp(dir)).not.toBe(stamp);
    other.set(memoryPath(1), memoryEntry(1));
    other.save();
    const paris = ParseCache.open(dir, 'Europe/Paris');
    expect(paris.readContent(memoryPath(1), memoryEntry(1).sha256)).toBeUndefined(); // the UTC body is gone
    expect(paris.readContent(memoryPath(2), memoryEntry(2).sha256)?.body).toBe('parsed in Paris');
  });

  it('starts empty for another time zone, and when a row is damaged, and is then written anew', () => {
    saveMemories(1, 2);
    expect(ParseCache.open(dir, 'Europe/Paris').get(memoryPath(1))).toBeUndefined();
    withDb((db) => db.prepare("UPDATE parse_files SET entry = '{not json' WHERE path = ?").run(memoryPath(2)));
    const damaged = ParseCache.open(dir, 'UTC');
    expect(damaged.size).toBe(0);
    damaged.set(memoryPath(1), memoryEntry(1));
    damaged.save();
    // Written anew: the damaged row is gone with the rest.
    expect(reopen([memoryPath(1), memoryPath(2)])).toEqual({ [memoryPath(1)]: memoryEntry(1), [memoryPath(2)]: undefined });
  });

  it("keeps a memory's citations out of its row, counted there, read from parse_citations when first used", () => {
    const cited = withCitations(memoryEntry(1));
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(memoryPath(1), cited);
    cache.set(memoryPath(2), memoryEntry(2));
    cache.save();
    const row = withDb((db) => db.prepare('SELECT entry FROM parse_files WHERE path = ?').pluck().get(memoryPath(1)) as string);
    expect(row).not.toContain('retry.ts');
    expect(row.endsWith(',2,1]')).toBe(true);
    const back = ParseCache.open(dir, 'UTC');
    const memory = (back.get(memoryPath(1))!.result as { memory: Memory }).memory;
    expect(citationsUnread(memory)).toBe(true);
    expect(checkableCitationCount(memory)).toBe(1);
    expect(memory.citations).toEqual((cited.result as { memory: Memory }).memory.citations);
    expect(Object.hasOwn((back.get(memoryPath(2))!.result as { memory: Memory }).memory, 'citations')).toBe(false);
    // Saved again unread (a new mtime), the entry keeps them: they stay in the table under its hash.
    const again = ParseCache.open(dir, 'UTC');
    again.set(memoryPath(1), { ...again.get(memoryPath(1))!, mtimeMs: 5 });
    again.save();
    expect(reopen([memoryPath(1)])[memoryPath(1)]).toEqual({ ...cited, mtimeMs: 5 });
  });

  it('starts empty on a cache of the row form before (citations in the rows), and is then written anew', () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(memoryPath(1), withCitations(memoryEntry(1)));
    cache.save();
    // As row form 2 wrote it: the citations as tuples at the end of the row, `rows: 2` in the key.
    withDb((db) => {
      const entry = JSON.parse(db.prepare('SELECT entry FROM parse_files').pluck().get() as string) as unknown[];
      const old = [
        2,
        ...entry.slice(1, 16),
        [
          ['p', 'src/net/retry.ts', 3],
          ['i', '#12', 4],
        ],
      ];
      db.prepare('UPDATE parse_files SET entry = ?').run(JSON.stringify(old));
      db.prepare('DELETE FROM parse_citations').run();
      const key = JSON.parse(
        JSON.parse(db.prepare("SELECT value FROM kv WHERE store = 'parse-cache' AND key = 'key'").pluck().get() as string),
      );
      db.prepare("UPDATE kv SET value = ? WHERE store = 'parse-cache' AND key = 'key'").run(
        JSON.stringify(JSON.stringify({ ...key, rows: 2 })),
      );
    });
    const old = ParseCache.open(dir, 'UTC');
    expect(old.size).toBe(0);
    old.set(memoryPath(1), withCitations(memoryEntry(1)));
    old.save();
    expect(reopen([memoryPath(1)])[memoryPath(1)]).toEqual(withCitations(memoryEntry(1)));
  });

  it("says the cache is damaged when a memory's citations are gone, instead of reading it as citing nothing", () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(memoryPath(1), withCitations(memoryEntry(1)));
    cache.save();
    withDb((db) => db.prepare('DELETE FROM parse_citations').run());
    const memory = (ParseCache.open(dir, 'UTC').get(memoryPath(1))!.result as { memory: Memory }).memory;
    expect(() => memory.citations).toThrow(/no citations for `main\/memories\/2026\/01\/m-1\.md`/);
  });

  it('redact: empties it, leaves no text of it in the file, and moves the generation so no reader saves old entries back', () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(memoryPath(1), memoryEntry(1, 'Token ghp_SECRETSECRETSECRET'), { body: 'ghp_SECRETSECRETSECRET', sentences: [] });
    cache.save();
    const before = parseCacheStamp(dir);
    purgeParseCache(dir);
    expect(parseCacheStamp(dir)).not.toBe(before);
    expect(ParseCache.open(dir, 'UTC').size).toBe(0);
    const bytes = readdirSync(dir).map((name) => readFileSync(path.join(dir, name)).toString('latin1'));
    expect(bytes.some((text) => text.includes('SECRETSECRET'))).toBe(false);
  });
});
