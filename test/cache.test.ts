import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParseCache, type CacheEntry } from '../src/vault/cache.js';
import { listLength } from '../src/vault/cache-codec.js';
import type { Memory, Summary } from '../src/vault/model.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const filesJson = (): string => path.join(dir, 'files.json');
const filesLog = (): string => path.join(dir, 'files.log');

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
  it('reads back every kind of entry exactly, non-ASCII text included, from a pure-ASCII files.json', () => {
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

    const raw = readFileSync(filesJson());
    expect(raw.every((byte) => byte < 0x80)).toBe(true);
    const again = ParseCache.open(dir, 'UTC');
    expect(again.get('main/memories/2026/01/m-1.md')).toEqual({ ...memory, content: expect.any(Array) });
    expect(again.get('main/daily/2026-01-02.md')).toEqual({ ...summary, lists: expect.any(Array) });
    expect(again.get('main/memories/bad.md')).toEqual(invalid);
    expect(again.readContent('main/memories/2026/01/m-1.md', memory.sha256)?.body).toBe('Zoë went to 東京.');
  });

  it('records a later change as one line in files.log and leaves files.json untouched', () => {
    saveMemories(...Array.from({ length: 50 }, (_, i) => i + 1));
    const before = readFileSync(filesJson());
    const beforeMtime = statSync(filesJson()).mtimeMs;

    const second = ParseCache.open(dir, 'UTC');
    second.retain(new Set(Array.from({ length: 50 }, (_, i) => `main/memories/2026/01/m-${i + 1}.md`)));
    expect(second.modified).toBe(false);
    second.set('main/memories/2026/01/m-7.md', memoryEntry(7, 'Edited title'));
    expect(second.modified).toBe(true);
    second.retain(
      new Set(Array.from({ length: 50 }, (_, i) => `main/memories/2026/01/m-${i + 1}.md`).filter((p) => !p.endsWith('m-9.md'))),
    );
    second.save();

    expect(readFileSync(filesJson()).equals(before)).toBe(true);
    expect(statSync(filesJson()).mtimeMs).toBe(beforeMtime);
    expect(readFileSync(filesLog(), 'utf8').trimEnd().split('\n')).toHaveLength(1);
    const seen = reopen(['main/memories/2026/01/m-7.md', 'main/memories/2026/01/m-9.md', 'main/memories/2026/01/m-8.md']);
    expect(seen['main/memories/2026/01/m-7.md']?.result).toMatchObject({ type: 'memory', memory: { title: 'Edited title' } });
    expect(seen['main/memories/2026/01/m-9.md']).toBeUndefined();
    expect(seen['main/memories/2026/01/m-8.md']).toEqual(memoryEntry(8));
  });

  it('ignores a line torn by a crash, and the next save starts a fresh files.json', () => {
    saveMemories(1);
    saveMemories(2);
    appendFileSync(filesLog(), '{"base":"x","packSize":0,"entries":{"main/memories/2026/01/m-3.md":');

    const afterCrash = ParseCache.open(dir, 'UTC');
    expect(afterCrash.get('main/memories/2026/01/m-2.md')).toEqual(memoryEntry(2));
    expect(afterCrash.get('main/memories/2026/01/m-3.md')).toBeUndefined();
    afterCrash.set('main/memories/2026/01/m-4.md', memoryEntry(4));
    afterCrash.save();
    expect(existsSync(filesLog())).toBe(false);
    const seen = reopen(['main/memories/2026/01/m-1.md', 'main/memories/2026/01/m-2.md', 'main/memories/2026/01/m-4.md']);
    expect(Object.values(seen).every((entry) => entry !== undefined)).toBe(true);
  });

  it('ignores log lines written against an older files.json', () => {
    saveMemories(1);
    saveMemories(2);
    const staleLog = readFileSync(filesLog());
    // A save that writes a new files.json (forced here by a log it did not read), then a crash before the old log was removed.
    const folded = ParseCache.open(dir, 'UTC');
    folded.set('main/memories/2026/01/m-1.md', memoryEntry(1, 'Renamed'));
    folded.retain(new Set(['main/memories/2026/01/m-1.md']));
    appendFileSync(filesLog(), 'not json\n');
    folded.save();
    expect(existsSync(filesLog())).toBe(false);
    writeFileSync(filesLog(), staleLog);

    const seen = reopen(['main/memories/2026/01/m-1.md', 'main/memories/2026/01/m-2.md']);
    expect(seen['main/memories/2026/01/m-1.md']?.result).toMatchObject({ memory: { title: 'Renamed' } });
    expect(seen['main/memories/2026/01/m-2.md']).toBeUndefined();
  });

  it('folds a large log back into files.json', () => {
    saveMemories(1);
    const big = ParseCache.open(dir, 'UTC');
    for (let n = 2; n <= 3000; n++) big.set(`main/memories/2026/01/m-${n}.md`, memoryEntry(n, `A long title for memory ${n} `.repeat(4)));
    big.save();
    expect(existsSync(filesLog())).toBe(false);
    expect(reopen(['main/memories/2026/01/m-2999.md'])['main/memories/2026/01/m-2999.md']).toEqual(
      memoryEntry(2999, `A long title for memory 2999 `.repeat(4)),
    );
  });

  it("keeps a summary's lists out of files.json, in their place among its metadata, read from the pack when first used", () => {
    const summary = summaryEntry();
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summary);
    first.save();
    const stored = JSON.parse(readFileSync(filesJson(), 'latin1')).entries['main/daily/2026-01-02.md'];
    // In files.json each list is its length: the index counts sources without reading them.
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

  it('moves unread lists with the records when it compacts the pack, and after a log fold', () => {
    const summary = summaryEntry();
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summary);
    first.set(memoryPath(1), memoryEntry(1), { body: 'x'.repeat(1_200_000), sentences: [] });
    first.save();
    // The memory's large body becomes dead: the pack is over 1 MB and mostly dead, so this save compacts it.
    const second = ParseCache.open(dir, 'UTC');
    const edited = { ...memoryEntry(1), sha256: 'd'.repeat(64) };
    second.set(memoryPath(1), edited, { body: 'short', sentences: [] });
    second.save();
    expect(statSync(path.join(dir, 'content.pack')).size).toBeLessThan(10_000);
    // This process read the lists before their records moved.
    expect(second.get('main/daily/2026-01-02.md')?.result).toEqual(summary.result);
    // Then enough changes to fold the log into a new files.json, the summary's lists still unread.
    const third = ParseCache.open(dir, 'UTC');
    for (let n = 2; n <= 3000; n++) third.set(memoryPath(n), memoryEntry(n, `A long title for memory ${n} `.repeat(4)));
    third.save();
    expect(existsSync(filesLog())).toBe(false);

    const last = ParseCache.open(dir, 'UTC');
    expect(last.get('main/daily/2026-01-02.md')?.result).toEqual(summary.result);
    expect(last.readContent(memoryPath(1), 'd'.repeat(64))?.body).toBe('short');
  });

  it('reads lists from the pack it opened after another process compacts the pack', () => {
    const summary = summaryEntry();
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summary);
    first.set(memoryPath(1), memoryEntry(1), { body: 'x'.repeat(1_200_000), sentences: [] });
    first.save();
    const reader = ParseCache.open(dir, 'UTC');
    // Another build: the large body dies, the pack is compacted and renamed over the old one.
    const builder = ParseCache.open(dir, 'UTC');
    builder.set(memoryPath(1), { ...memoryEntry(1), sha256: 'd'.repeat(64) }, { body: 'short', sentences: [] });
    builder.save();
    expect(statSync(path.join(dir, 'content.pack')).size).toBeLessThan(10_000);
    expect(reader.get('main/daily/2026-01-02.md')?.result).toEqual(summary.result);
  });

  it('says the cache is damaged when a list record is gone, instead of using something else', () => {
    const first = ParseCache.open(dir, 'UTC');
    first.set('main/daily/2026-01-02.md', summaryEntry());
    first.save();
    writeFileSync(path.join(dir, 'content.pack'), ' '.repeat(statSync(path.join(dir, 'content.pack')).size));
    const result = ParseCache.open(dir, 'UTC').get('main/daily/2026-01-02.md')?.result;
    expect(() => (result?.type === 'summary' ? result.summary.meta.sources : undefined)).toThrow(/no source list/);
  });

  it('starts empty for another time zone', () => {
    saveMemories(1);
    expect(ParseCache.open(dir, 'Europe/Paris').get('main/memories/2026/01/m-1.md')).toBeUndefined();
  });
});
