import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearch } from '../../src/read/search.js';
import { closeIndex } from '../../src/search/store.js';
import { copyProject, createProject, memory, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';

/**
 * The search index is derived from the vault and disposable (issue 26, finding 5): a file damaged the way an
 * attacker (or a bad disk) damages it, cut short, or replaced by another program's SQLite database is rebuilt from
 * the vault by `memvault search`, `search --reindex` and `build`, each exiting 0 with the right hits and saying so
 * once; a search whose file is replaced or damaged under its open connection answers all the same; a query past its
 * bounds is a user error, not a crash. Real CLI in child processes, real SQLite files damaged on disk.
 */

const NOW = '2026-02-20T12:00:00Z';
const files: Record<string, string> = {
  'vault/main/memories/2026-02-10-auth.md': memory({
    date: '2026-02-10T14:05:00Z',
    title: 'Auth refactor',
    kind: 'decision',
    tags: ['auth', 'backend'],
    body: 'Replaced JWT with server sessions.\n\nSessions live in Postgres, 30-day expiry.',
  }),
  'vault/main/memories/2026-02-11-notes.md': memory({
    date: '2026-02-11T09:00:00Z',
    title: 'Notes',
    body: 'Server restarts are slow.\n\nThe zephyrine cluster was retired today.',
  }),
  'vault/main/memories/2026-02-13-deploy.md': memory({
    date: '2026-02-13T10:00:00Z',
    title: 'Friday deploy',
    tags: ['release'],
    body: 'Deploys go out on Fridays; the zephyrine mirror is checked first.',
  }),
  'vault/ops/memories/2026-02-12-ops.md': memory({
    date: '2026-02-12T10:00:00Z',
    title: 'Ops',
    tags: ['auth'],
    body: 'Rotated the auth certificates on the edge proxies.',
  }),
};

const indexFile = (root: string): string => path.join(root, '.memvault', 'search', 'index.sqlite');

/** Folds the WAL into the file and drops it: the file alone then holds the index, as an attacker finds it at rest. */
function settle(file: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('journal_mode = DELETE');
  db.close();
}

/** Overwrites `length` bytes of the file from byte `from` (to its end by default) with pseudo-random bytes (the same every run). */
function garbage(file: string, from: number, length = statSync(file).size - from): void {
  const bytes = Buffer.alloc(length);
  let x = 0x2545f491;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, from);
  closeSync(fd);
}

function pageOf(file: string, table?: string): { size: number; root: number } {
  const db = new Database(file, { readonly: true });
  const size = db.pragma('page_size', { simple: true }) as number;
  const root = table ? (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(table) as number) : 1;
  db.close();
  return { size, root };
}

/** Another program's SQLite database at the index's path: a `meta` and a `docs` table of its own, and its data. */
function foreign(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const db = new Database(file);
  db.exec(
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); CREATE TABLE docs (x); CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('alice')",
  );
  db.close();
}

/** The ways the file is damaged; each keeps SQLite's 100-byte header, so the file still looks like a database. */
const DAMAGE: Record<string, (file: string) => void> = {
  // The schema page (page 1, the header's) is kept: the file opens, its tables are listed, their pages are garbage.
  'pages after the first overwritten': (file) => garbage(file, pageOf(file).size),
  // The postings only: the file opens and its version reads as current; the first query meets the damage.
  'postings pages overwritten': (file) => {
    const page = pageOf(file, 'fts_data');
    garbage(file, (page.root - 1) * page.size);
  },
  // One page: the root of the postings. The update's reads (meta, buckets) pass; only a query finds it.
  'postings root page overwritten': (file) => {
    const page = pageOf(file, 'fts_data');
    garbage(file, (page.root - 1) * page.size, page.size);
  },
  'everything after the 100-byte header overwritten': (file) => garbage(file, 100),
  'cut short': (file) => truncateSync(file, Math.max(pageOf(file).size * 2, Math.floor(statSync(file).size / 2))),
  'another SQLite database': foreign,
};

let base: string;
let expected: string[];
const copies: string[] = [];
/** A copy of the built project with its index damaged one way. */
function damaged(kind: string, edit?: Record<string, string>): string {
  const root = copyProject(base);
  copies.push(root);
  if (edit) writeFiles(root, edit);
  settle(indexFile(root));
  DAMAGE[kind]!(indexFile(root));
  return root;
}
const pathsOf = (json: any): string[] => json.hits.map((h: any) => h.path);
const count = (text: string, needle: string): number => text.split(needle).length - 1;

/** The file at the index's path is an index of ours again (its `docs` table has our columns, the foreign table is gone). */
function isOurs(root: string): boolean {
  const db = new Database(indexFile(root), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('docs') as string[];
    return !tables.includes('users') && columns.includes('sha256');
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  base = createProject(files);
  await runCliJson(['build', '--no-commit', '--now', NOW, '--json'], { cwd: base });
  expected = pathsOf((await runCliJson(['search', 'zephyrine', '--json'], { cwd: base })).json);
  expect(expected.slice(0, 2).sort()).toEqual(['main/memories/2026-02-11-notes.md', 'main/memories/2026-02-13-deploy.md']);
}, 60_000);
afterAll(() => {
  removeProject(base);
  for (const root of copies) removeProject(root);
});

const slow = process.env.MEMVAULT_SLOW !== '1';
/** Every kind of damage with MEMVAULT_SLOW=1; by default the kinds the old code stopped on, and one more per command. */
const kinds = (fast: string[]): string[] => (slow ? fast : Object.keys(DAMAGE));

describe('a damaged or foreign search index is rebuilt, never an error', () => {
  it('`memvault search` answers with the right hits and says once that it rebuilt the index', async () => {
    for (const kind of kinds([
      'pages after the first overwritten',
      'postings root page overwritten',
      'cut short',
      'another SQLite database',
    ])) {
      const root = damaged(kind);
      const text = await runCli(['search', 'zephyrine'], { cwd: root });
      expect(text.code, `${kind}: ${text.stderr}`).toBe(0);
      expect(text.stderr, kind).toBe('');
      expect(text.stdout.split('\n')[0], kind).toMatch(
        /^\(search index built: \d+ documents, the old one was (unreadable|not a memvault index)\)$/,
      );
      expect(count(text.stdout, 'search index built'), kind).toBe(1);
      expect(isOurs(root), kind).toBe(true);
      // Rebuilt once: the next search finds the same hits and rebuilds nothing.
      const json = (await runCliJson(['search', 'zephyrine', '--json'], { cwd: root })).json;
      expect(pathsOf(json), kind).toEqual(expected);
      expect(json.index.rebuilt, kind).toBe(false);
    }
  }, 120_000);

  it('`memvault search --reindex` rebuilds a damaged or foreign file', async () => {
    for (const kind of kinds(['pages after the first overwritten', 'another SQLite database'])) {
      const root = damaged(kind);
      const result = await runCli(['search', '--reindex', 'zephyrine', '--json'], { cwd: root });
      expect(result.code, `${kind}: ${result.stderr}`).toBe(0);
      const json = JSON.parse(result.stdout);
      expect(json.index, kind).toMatchObject({ rebuilt: true, reason: 'forced' });
      expect(pathsOf(json), kind).toEqual(expected);
      expect(isOurs(root), kind).toBe(true);
    }
  }, 120_000);

  it('`memvault build` rebuilds it (one info note), and the edit it indexed is found', async () => {
    const edit = {
      'vault/main/memories/2026-02-20-today.md': memory({ date: '2026-02-20T09:00:00Z', title: 'Today', body: 'The quillwort rollout.' }),
    };
    for (const kind of kinds(['pages after the first overwritten', 'postings pages overwritten', 'another SQLite database'])) {
      const root = damaged(kind, edit);
      const build = await runCli(['build', '--no-commit', '--now', NOW], { cwd: root });
      expect(build.code, `${kind}: ${build.stderr}`).toBe(0);
      expect(count(build.stderr + build.stdout, '[search/rebuilt]'), `${kind}: ${build.stderr}`).toBe(1);
      expect(build.stderr, kind).toMatch(/^\.memvault\/search\/index\.sqlite:1:1 info search index rebuilt from the vault/m);
      expect(isOurs(root), kind).toBe(true);
      // The build left a whole, current index: the search rebuilds nothing and finds the memory it added.
      const json = (await runCliJson(['search', 'quillwort', '--json'], { cwd: root })).json;
      expect(json.index.rebuilt, kind).toBe(false);
      expect(pathsOf(json)[0], kind).toBe('main/memories/2026-02-20-today.md');
      expect(pathsOf((await runCliJson(['search', 'zephyrine', '--json'], { cwd: root })).json), kind).toEqual(expected);
    }
  }, 120_000);
});

describe('an index path that cannot be written', () => {
  it('a directory in its place: search answers from memory, build goes on with one warning', async () => {
    const root = copyProject(base);
    copies.push(root);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexFile(root)}${suffix}`, { force: true });
    mkdirSync(path.join(indexFile(root), 'x'), { recursive: true });
    const json = await runCli(['search', 'zephyrine', '--json'], { cwd: root });
    expect(json.code, json.stderr).toBe(0);
    expect(pathsOf(JSON.parse(json.stdout))).toEqual(expected);
    const build = await runCli(['build', '--no-commit', '--now', NOW], { cwd: root });
    expect(build.code, build.stderr).toBe(0);
    expect(count(build.stderr, '[search/unwritable]'), build.stderr).toBe(1);
    // No rebuild file is left beside it.
    expect(readdirSync(path.dirname(indexFile(root))).sort()).toEqual(['index.sqlite']);
  }, 60_000);
});

describe('context reads a damaged index through the same path', () => {
  it('`memvault context --query` exits 0 and finds the memory when only the postings are damaged', async () => {
    const root = damaged('postings root page overwritten');
    const context = await runCli(['context', '--query', 'zephyrine', '--now', NOW], { cwd: root });
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toContain('zephyrine');
    expect(isOurs(root)).toBe(true);
    expect((await runCliJson(['search', 'zephyrine', '--json'], { cwd: root })).json.index.rebuilt).toBe(false);
  }, 60_000);
});

describe('a search whose index is replaced or damaged under it', () => {
  it('answers when the file is damaged in place, or renamed over, after the session opened it', async () => {
    const root = copyProject(base);
    copies.push(root);
    try {
      const session = await openSearch(root);
      expect((await session.search('zephyrine')).hits.map((h) => h.path)).toEqual(expected);
      // Between its open and its next query: the postings overwritten in the file the connection holds (same inode).
      const page = pageOf(indexFile(root), 'fts_data');
      garbage(indexFile(root), (page.root - 1) * page.size);
      expect((await session.search('zephyrine')).hits.map((h) => h.path)).toEqual(expected);
      expect(session.built).toMatchObject({ rebuilt: true, reason: 'unreadable' });
      // Another process puts another SQLite database in its place (a rename: a new inode at the path).
      const other = path.join(root, 'other.sqlite');
      foreign(other);
      renameSync(other, indexFile(root));
      expect((await session.search('zephyrine')).hits.map((h) => h.path)).toEqual(expected);
      expect(session.built).toMatchObject({ rebuilt: true, reason: 'foreign' });
      expect(isOurs(root)).toBe(true);
    } finally {
      closeIndex(root);
    }
  }, 60_000);

  it('searches racing a --reindex that replaces the file all exit 0 with the right hits', async () => {
    // A damaged file (the postings, found at the first query) that every process finds and rebuilds at once; then a
    // whole index replaced by --reindex while searches read it: each reads the old file or the new one, never half.
    const rounds = slow ? 2 : 10;
    for (let round = 0; round < rounds; round++) {
      const root = round === 0 ? damaged('postings pages overwritten') : copyProject(base);
      const runs = await Promise.all([
        runCli(['search', 'zephyrine', '--json'], { cwd: root }),
        runCli(['search', '--reindex', 'zephyrine', '--json'], { cwd: root }),
        runCli(['search', 'zephyrine', '--json'], { cwd: root }),
        runCli(['search', '--reindex', 'zephyrine', '--json'], { cwd: root }),
      ]);
      for (const run of runs) {
        expect(run.code, `round ${round}: ${run.stderr}`).toBe(0);
        expect(pathsOf(JSON.parse(run.stdout)), `round ${round}`).toEqual(expected);
      }
      expect(isOurs(root)).toBe(true);
      removeProject(root);
    }
  }, 180_000);
});

describe('query bounds', () => {
  it('1,000 tag: filters or a 20,000-character query are user errors with the limit, not crashes; 100 filters run', async () => {
    const tags = Array.from({ length: 1000 }, (_, i) => `tag:t${i}`);
    const many = await runCli(['search', 'zephyrine', ...tags], { cwd: base });
    expect(many.code, many.stderr).toBe(1);
    expect(many.stderr).toContain('memvault: the query has 1,000 filters');
    expect(many.stderr).toContain('at most 100 filters');
    expect(many.stderr).toContain('[search/too-large]');
    expect(many.stderr).not.toContain('internal error');
    const long = await runCli(['search', 'zephyrine '.repeat(2000)], { cwd: base });
    expect(long.code, long.stderr).toBe(1);
    expect(long.stderr).toContain('at most 10,000 characters');
    // At the bound: runs (no memory carries a hundred tags, so nothing is found).
    const session = await openSearch(base);
    try {
      expect((await session.search(['zephyrine', ...tags.slice(0, 99), 'tag:backend'].join(' '))).hits).toEqual([]);
      expect((await session.search('zephyrine tag:release')).hits.map((h) => h.path)).toEqual(['main/memories/2026-02-13-deploy.md']);
    } finally {
      closeIndex(base);
    }
  }, 60_000);
});
