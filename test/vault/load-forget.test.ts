import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache } from '../../src/store/cache.js';
import { loadVault, type LoadOptions } from '../../src/load/load.js';

/**
 * The loader reads only the files the parse cache does not hold as they are, and forgets the entries of files that are
 * gone. It skips the forgetting pass when the cache holds exactly as many entries as files were found: these cases
 * check that a rename (one file gone, one new: the same count), a deletion and an unchanged load all leave the cache
 * holding exactly the files on disk. Real files in a temp dir, the real cache.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-load-forget-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const vaultDir = path.join(root, 'vault');
const stateDir = path.join(root, '.memvault');
const options: LoadOptions = { vaultDir, stateDir, timezone: 'UTC', configuredStreams: ['main'] };

function memory(name: string, day: string): void {
  const file = path.join(vaultDir, 'main', 'memories', '2026', '01', `${name}.md`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `---\ndate: ${day}T10:00:00Z\ntitle: ${name}\n---\nBody of ${name}.\n`);
}

async function load(): Promise<{ ids: string[]; read: number; cached: string[] }> {
  const loaded = await loadVault(options);
  loaded.cache.save();
  loaded.cache.close();
  const ids = (loaded.state.streams.get('main')?.memories ?? []).map((m) => m.id);
  // What the next process finds in the saved cache.
  const reopened = ParseCache.open(stateDir, 'UTC');
  const cached = [...reopened.values()].map((entry) => (entry.result.type === 'memory' ? entry.result.memory.path : '?')).sort();
  reopened.close();
  return { ids, read: loaded.stats.read, cached };
}

describe('loadVault and the parse cache', () => {
  it('reads only changed files and keeps the cache to the files on disk through renames and deletions', async () => {
    memory('a', '2026-01-02');
    memory('b', '2026-01-03');
    memory('c', '2026-01-04');
    const all = ['main/memories/2026/01/a.md', 'main/memories/2026/01/b.md', 'main/memories/2026/01/c.md'];
    expect(await load()).toEqual({ ids: ['2026/01/a', '2026/01/b', '2026/01/c'], read: 3, cached: all });
    // Nothing changed: nothing read, nothing forgotten.
    expect(await load()).toEqual({ ids: ['2026/01/a', '2026/01/b', '2026/01/c'], read: 0, cached: all });
    // A rename: as many files as before, one of them new.
    const dir = path.join(vaultDir, 'main', 'memories', '2026', '01');
    renameSync(path.join(dir, 'b.md'), path.join(dir, 'b2.md'));
    expect(await load()).toEqual({
      ids: ['2026/01/a', '2026/01/b2', '2026/01/c'],
      read: 1,
      cached: ['main/memories/2026/01/a.md', 'main/memories/2026/01/b2.md', 'main/memories/2026/01/c.md'],
    });
    rmSync(path.join(dir, 'a.md'));
    expect(await load()).toEqual({
      ids: ['2026/01/b2', '2026/01/c'],
      read: 0,
      cached: ['main/memories/2026/01/b2.md', 'main/memories/2026/01/c.md'],
    });
  });
});
