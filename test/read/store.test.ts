import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQuery, runSearch } from '../../src/read/search/query.js';
import { readIndex, updateSearchIndex } from '../../src/read/search/store.js';
import { loadVault } from '../../src/vault/load.js';

/** The index store on real files: snapshot, change log, compaction, and what a new reader sees. */

const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = path.join(root, 'vault', 'main', 'memories');
mkdirSync(dir, { recursive: true });
const write = (name: string, body: string): void => writeFileSync(path.join(dir, name), `---\ndate: 2026-02-1${name[0]}\n---\n${body}\n`);
const load = () =>
  loadVault({
    vaultDir: path.join(root, 'vault'),
    cacheDir: path.join(root, '.memvault', 'cache'),
    timezone: 'UTC',
    configuredStreams: ['main'],
  });
const log = path.join(root, '.memvault', 'search', 'changes.jsonl');
const snapshot = path.join(root, '.memvault', 'search', 'index.json');
const manifest = path.join(root, '.memvault', 'search', 'docs.json');
const hits = (word: string): string[] =>
  runSearch(readIndex(root)!.index, parseQuery(word), {}, (p) => readFileSync(path.join(root, 'vault', p), 'utf8')).map((h) => h.path);

describe('search index store', () => {
  it('writes a snapshot, then logs one line per changed document, and folds the log into the snapshot when it grows', async () => {
    write('1-a.md', 'alpha apples');
    write('2-b.md', 'beta bananas');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, added: 2 });
    expect(existsSync(log)).toBe(false);
    write('1-a.md', 'alpha apricots');
    const before = statSync(snapshot);
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: false, updated: 1, added: 0 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
    // The build compared hashes in the manifest and appended: the snapshot was neither rewritten nor needed.
    expect(statSync(snapshot)).toMatchObject({ mtimeMs: before.mtimeMs, ino: before.ino });
    rmSync(path.join(dir, '2-b.md'));
    expect(updateSearchIndex(root, await load())).toMatchObject({ removed: 1 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(hits('apricots')).toEqual(['main/memories/1-a.md']);
    expect(hits('apples')).toEqual([]);
    expect(hits('bananas')).toEqual([]);
    write('3-c.md', 'gamma grapes');
    expect(updateSearchIndex(root, await load(), { compactAfter: 2 })).toMatchObject({ added: 1 });
    expect(existsSync(log)).toBe(false);
    expect(hits('grapes')).toEqual(['main/memories/3-c.md']);
    const manifestBefore = statSync(manifest).mtimeMs;
    expect(updateSearchIndex(root, await load())).toMatchObject({ written: false });
    expect(statSync(manifest).mtimeMs).toBe(manifestBefore);
  });

  it('gives a reader that holds the index the changes appended since, without reading the snapshot again', async () => {
    const held = readIndex(root)!;
    write('4-d.md', 'delta dates');
    const report = updateSearchIndex(root, await load());
    expect(report).toMatchObject({ added: 1, written: true });
    expect(report).not.toHaveProperty('compacted');
    expect(readIndex(root)).toBe(held);
    expect(hits('dates')).toEqual(['main/memories/4-d.md']);
    // A snapshot that no longer agrees with the manifest (another size) is rebuilt, not trusted.
    writeFileSync(snapshot, '{}');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, added: 3 });
    expect(hits('dates')).toEqual(['main/memories/4-d.md']);
  });
});
