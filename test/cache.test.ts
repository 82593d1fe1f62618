import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParseCache, type CacheEntry } from '../src/vault/cache.js';
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
    expect(again.get('main/daily/2026-01-02.md')).toEqual(summary);
    expect(again.get('main/memories/bad.md')).toEqual(invalid);
    expect(again.readContent('main/memories/2026/01/m-1.md', memory.sha256)?.body).toBe('Zoë went to 東京.');
  });

  it('records a later change as one line in files.log and leaves files.json untouched', () => {
    saveMemories(...Array.from({ length: 50 }, (_, i) => i + 1));
    const before = readFileSync(filesJson());
    const beforeMtime = statSync(filesJson()).mtimeMs;

    const second = ParseCache.open(dir, 'UTC');
    second.set('main/memories/2026/01/m-7.md', memoryEntry(7, 'Edited title'));
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

  it('starts empty for another time zone', () => {
    saveMemories(1);
    expect(ParseCache.open(dir, 'Europe/Paris').get('main/memories/2026/01/m-1.md')).toBeUndefined();
  });
});
