import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const hits = (word: string): string[] =>
  runSearch(readIndex(root)!.index, parseQuery(word), {}, (p) => readFileSync(path.join(root, 'vault', p), 'utf8')).map((h) => h.path);

describe('search index store', () => {
  it('writes a snapshot, then logs one line per changed document, and folds the log into the snapshot when it grows', async () => {
    write('1-a.md', 'alpha apples');
    write('2-b.md', 'beta bananas');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, added: 2 });
    expect(existsSync(log)).toBe(false);
    write('1-a.md', 'alpha apricots');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: false, updated: 1, added: 0 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
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
    expect(updateSearchIndex(root, await load())).toMatchObject({ written: false });
  });
});
