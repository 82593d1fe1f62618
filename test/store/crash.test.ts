import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStateStores } from '../../src/store/database.js';
import { ParseCache } from '../../src/store/cache.js';
import { shortHistory, workTreeFiles } from '../git/helpers.js';
import { copyProject, createProject, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * Crash safety of the state store: a process killed with SIGKILL (the test-only `MEMVAULT_TEST_CRASH_AFTER` hook,
 * git/crash-point.ts) inside the parse cache's save, its rows written and not committed, leaves a store that opens
 * and passes SQLite's integrity check, holding what the last commit held (here: nothing of the cache). The next build
 * writes exactly what an uninterrupted build writes, and the one after it finds everything cached. The real CLI in
 * child processes: the killed process and the one that recovers are two.
 */

const NOW = '2026-02-20T12:00:00Z';
const history = shortHistory('2026-02-01', '2026-02-18');
const roots: string[] = [];

/** Every vault file's text, by path. */
function vaultFiles(root: string): Map<string, string> {
  const vault = path.join(root, 'vault');
  return new Map(workTreeFiles(vault).map((file) => [file, readFileSync(path.join(vault, file), 'utf8')]));
}

function inspect(root: string): { integrity: string; files: number; generation: unknown } {
  const db = new Database(path.join(root, '.memvault', 'state.sqlite'));
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      files: db.prepare('SELECT count(*) FROM parse_files').pluck().get() as number,
      generation: db.prepare("SELECT value FROM kv WHERE store = 'parse-cache' AND key = 'generation'").pluck().get(),
    };
  } finally {
    db.close();
  }
}

/** The compiled parse cache (`npm run build`), for a child process that saves it and is killed. */
const COMPILED_CACHE = fileURLToPath(new URL('../../dist/src/store/cache.js', import.meta.url));

/** A child process: saves `entries` memories (generation 1), then `entries` more, killed before that save commits. */
const SAVER = `
const { ParseCache } = await import(process.argv[1]);
const [dir, entries] = [process.argv[2], Number(process.argv[3])];
const save = (from) => {
  const cache = ParseCache.open(dir, 'UTC');
  for (let n = from; n < from + entries; n++) {
    const sha = n.toString(16).padStart(64, '0');
    const memory = { id: 'm-' + n, location: 'memories', date: '2026-01-02', day: '2026-01-02', minute: 0, title: 'T' + n, kind: 'note', tags: [], importance: 'normal' };
    cache.set('main/memories/m-' + n + '.md', { size: n, mtimeMs: n, sha256: sha, result: { type: 'memory', memory } }, { body: 'body '.repeat(200) + n, sentences: [] });
  }
  cache.save();
};
save(0);
save(entries);
`;

describe('a process killed while it saves the parse cache', () => {
  it('leaves the store as its last commit left it: every entry of the first save, none of the second', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-store-crash-'));
    try {
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', SAVER, COMPILED_CACHE, dir, '2000'], {
        env: { ...process.env, MEMVAULT_TEST_CRASH_AFTER: 'store-commit:2' },
        encoding: 'utf8',
      });
      expect(child.signal, child.stderr).toBe('SIGKILL');
      const db = new Database(path.join(dir, 'state.sqlite'));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
      const cache = ParseCache.open(dir, 'UTC');
      expect(cache.size).toBe(2000);
      expect(cache.state).toBe('1');
      expect(cache.get('main/memories/m-1999.md')?.sha256).toBe((1999).toString(16).padStart(64, '0'));
      expect(cache.get('main/memories/m-2000.md')).toBeUndefined();
      expect(cache.readContent('main/memories/m-7.md', (7).toString(16).padStart(64, '0'))?.body).toMatch(/ 7$/);
    } finally {
      closeStateStores();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Four CLI builds of a small vault (~10-15 s on the shared 2-core machine).
describe.skipIf(process.env.MEMVAULT_SLOW !== '1')('a build killed while it saves the state store', () => {
  let base: string;
  let reference: Map<string, string>;
  beforeAll(async () => {
    base = createProject(history.files);
    roots.push(base);
    const clean = copyProject(base);
    roots.push(clean);
    await runCliJson(['build', '--now', NOW, '--json'], { cwd: clean });
    reference = vaultFiles(clean);
  }, 60_000);
  afterAll(() => roots.forEach(removeProject));

  it('leaves a usable store holding the last commit; the next build finishes the work and the one after finds it cached', async () => {
    const root = copyProject(base);
    roots.push(root);
    // The 1st transaction is the temp-file sweep's, the 2nd the parse cache's save (checked below: none of its rows).
    const killed = await runCli(['build', '--now', NOW, '--json'], { cwd: root, env: { MEMVAULT_TEST_CRASH_AFTER: 'store-commit:2' } });
    expect(killed.code).toBe(128); // killed by a signal
    expect(inspect(root)).toEqual({ integrity: 'ok', files: 0, generation: undefined });

    const recovered = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
    expect(recovered.json.stats.read).toBe(recovered.json.stats.files);
    expect(vaultFiles(root)).toEqual(reference);
    const after = inspect(root);
    expect(after.integrity).toBe('ok');
    expect(after.files).toBe(recovered.json.stats.files);

    const again = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
    expect(again.json.written).toEqual([]);
    expect(again.json.stats.read).toBe(0);
  }, 60_000);
});
