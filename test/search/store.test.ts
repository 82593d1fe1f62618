import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQuery, runSearch } from '../../src/search/query.js';
import { closeIndex, databaseFile, readIndex, updateSearchIndex } from '../../src/search/store.js';
import { loadVault } from '../../src/load/load.js';

/** The SQLite index on real files: what one edit rewrites, what a holder of the connection sees, rebuilds, and a reader beside a writer. */

const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-store-'));
afterAll(() => {
  closeIndex(root);
  rmSync(root, { recursive: true, force: true });
});
const dir = path.join(root, 'vault', 'main', 'memories');
mkdirSync(dir, { recursive: true });
const write = (name: string, body: string, front = ''): void =>
  writeFileSync(path.join(dir, name), `---\ndate: 2026-02-1${name[0]}\n${front}---\n${body}\n`);
const load = () =>
  loadVault({
    vaultDir: path.join(root, 'vault'),
    stateDir: path.join(root, '.memvault'),
    timezone: 'UTC',
    configuredStreams: ['main'],
  });
const search = (query: string) =>
  runSearch(readIndex(root)!.index, parseQuery(query), {}, (p) => readFileSync(path.join(root, 'vault', p), 'utf8'));
const hits = (query: string): string[] => search(query).flatMap((h) => [h.path, ...h.more.map((m) => m.path)]);
/** Rows of the docs table with their rowid: a rewritten document gets a new one, an untouched one keeps it. */
const rowids = (): Record<string, number> => {
  const db = new Database(databaseFile(root), { readonly: true });
  try {
    return Object.fromEntries((db.prepare('SELECT id, rowid FROM docs').raw().all() as [string, number][]).map(([id, r]) => [id, r]));
  } finally {
    db.close();
  }
};

describe('search index store (SQLite)', () => {
  it('rewrites only the edited document, removes a deleted one, and writes nothing when nothing changed', async () => {
    write('1-a.md', 'alpha apples');
    write('2-b.md', 'beta bananas');
    write('3-c.md', 'gamma grapes');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, reason: 'missing', added: 3 });
    const before = rowids();
    write('1-a.md', 'alpha apricots');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: false, updated: 1, added: 0, removed: 0, written: true });
    const after = rowids();
    expect(after['main/memories/1-a.md']).not.toBe(before['main/memories/1-a.md']);
    expect(after['main/memories/2-b.md']).toBe(before['main/memories/2-b.md']);
    expect(after['main/memories/3-c.md']).toBe(before['main/memories/3-c.md']);
    rmSync(path.join(dir, '2-b.md'));
    expect(updateSearchIndex(root, await load())).toMatchObject({ removed: 1, updated: 0 });
    expect(hits('apricots')).toEqual(['main/memories/1-a.md']);
    expect(hits('apples')).toEqual([]);
    expect(hits('bananas')).toEqual([]);
    const mtime = statSync(databaseFile(root)).mtimeMs;
    expect(updateSearchIndex(root, await load())).toMatchObject({ written: false, added: 0, updated: 0, removed: 0 });
    expect(statSync(databaseFile(root)).mtimeMs).toBe(mtime);
  });

  it('matches a quoted phrase as a phrase, filters by tag and kind, prefixes and misspellings, and gives snippet lines', async () => {
    write('4-d.md', 'Intro line.\n\nWe ran the load test on staging.\nThe test load was small.', 'kind: decision\ntags: [perf, ops]\n');
    write('5-e.md', 'Load the test fixtures first.\nAuthentication moved to sessions.', 'tags: [ops]\n');
    updateSearchIndex(root, await load());
    expect(hits('"load test"')).toEqual(['main/memories/4-d.md']);
    expect(hits('load test').sort()).toEqual(['main/memories/4-d.md', 'main/memories/5-e.md']);
    expect(hits('test tag:perf')).toEqual(['main/memories/4-d.md']);
    expect(hits('test tag:ops kind:note').sort()).toEqual(['main/memories/5-e.md']);
    expect(hits('test kind:decision')).toEqual(['main/memories/4-d.md']);
    expect(hits('auth')).toEqual(['main/memories/5-e.md']);
    expect(hits('authentcation')).toEqual(['main/memories/5-e.md']);
    // Frontmatter is three or four lines: the snippet's line is the file's, counted from the first `---`.
    const [hit] = search('"load test"');
    const lines = readFileSync(path.join(dir, '4-d.md'), 'utf8').split('\n');
    expect(lines[hit!.line - 1]).toBe('We ran the load test on staging.');
    expect(hit!.snippet).toBe('We ran the **load** **test** on staging.');
    const [auth] = search('auth');
    expect(auth!.snippet).toBe('**Authentication** moved to sessions.');
    expect(readFileSync(path.join(dir, '5-e.md'), 'utf8').split('\n')[auth!.line - 1]).toBe('Authentication moved to sessions.');
  });

  it('gives a process that holds the connection what a build committed since, without reopening', async () => {
    const held = readIndex(root)!;
    write('6-f.md', 'delta dates');
    expect(updateSearchIndex(root, await load())).toMatchObject({ added: 1, written: true });
    expect(readIndex(root)!.index).toBe(held.index);
    expect(hits('dates')).toEqual(['main/memories/6-f.md']);
  });

  it('rebuilds a database of another format, and a file that is not a database, saying why', async () => {
    closeIndex(root);
    const db = new Database(databaseFile(root));
    db.prepare("UPDATE meta SET value = '1' WHERE key = 'format'").run();
    db.close();
    expect(readIndex(root)).toBeUndefined();
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, reason: 'outdated', added: 5 });
    expect(hits('dates')).toEqual(['main/memories/6-f.md']);
    closeIndex(root);
    for (const suffix of ['-wal', '-shm']) rmSync(`${databaseFile(root)}${suffix}`, { force: true });
    writeFileSync(databaseFile(root), 'this is not a database, just text long enough to look like a file header or two');
    expect(readIndex(root)).toBeUndefined();
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, reason: 'unreadable', added: 5 });
    expect(hits('grapes')).toEqual(['main/memories/3-c.md']);
  });

  it('lets another process read while this one writes: every read sees a whole transaction', async () => {
    const store = new URL('../../src/search/store.ts', import.meta.url).pathname;
    const query = new URL('../../src/search/query.ts', import.meta.url).pathname;
    // The reader counts the hits of `batch` until its stdin closes: every write below adds or removes both batch memories at once.
    const code = `
      const { readIndex } = await import(${JSON.stringify(store)});
      const { parseQuery, runSearch } = await import(${JSON.stringify(query)});
      const seen = new Set(); let reads = 0;
      const count = () => runSearch(readIndex(${JSON.stringify(root)}).index, parseQuery('batch'), {}, () => 'batch');
      count(); console.log('ready');
      let open = true; process.stdin.on('end', () => { open = false; }); process.stdin.resume();
      while (open) {
        await new Promise((resolve) => setImmediate(resolve));
        const groups = runSearch(readIndex(${JSON.stringify(root)}).index, parseQuery('batch'), {}, () => 'batch');
        seen.add(groups.reduce((n, g) => n + 1 + g.more.length, 0)); reads++;
        if (reads % 10 === 0) process.stdout.write('.');
      }
      console.log(JSON.stringify({ seen: [...seen].sort(), reads }));`;
    updateSearchIndex(root, await load());
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: process.cwd() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const done = new Promise<number>((resolve) => child.on('close', resolve));
    // Writing starts once the reader is reading (its start-up under load takes longer than the writes).
    await new Promise<void>((resolve) => {
      const check = (): void => void (out.includes('ready\n') || child.exitCode !== null ? resolve() : setTimeout(check, 20));
      check();
    });
    let writes = 0;
    while (writes < 6) {
      if (writes % 2 === 0) {
        write('7-g.md', `batch one ${writes}`);
        write('8-h.md', `batch two ${writes}`);
      } else {
        rmSync(path.join(dir, '7-g.md'));
        rmSync(path.join(dir, '8-h.md'));
      }
      updateSearchIndex(root, await load());
      writes++;
      // The reader reads each state many times (ten reads a dot) before the next write.
      const dots = out.length;
      await new Promise<void>((resolve) => {
        const check = (): void => void (out.length >= dots + 2 || child.exitCode !== null ? resolve() : setTimeout(check, 10));
        check();
      });
    }
    child.stdin.end();
    expect(await done, err).toBe(0);
    const result = JSON.parse(out.split('\n')[1]!.replace(/^\.*/, '')) as { seen: number[]; reads: number };
    expect(result.reads).toBeGreaterThan(2);
    expect(result.seen).toContain(2);
    // Never one of the pair without the other.
    expect(result.seen.every((n) => n === 0 || n === 2)).toBe(true);
  });
});
