import { existsSync, mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CitingMemories, openCitationStore, STORE_VERSION, type Verification } from '../../src/citations/store.js';
import { purgeDerivedStores } from '../../src/ops/purge.js';
import { openStateStore } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { createProject, removeProject, writeFiles } from '../helpers/project.js';

/** The citations' results as tables of `.memvault/state.sqlite` (src/citations/store.ts), not JSON files. */

let root: string | undefined;
afterEach(() => {
  removeProject(root);
  root = undefined;
});

const verification = (head: string): Verification => ({
  version: STORE_VERSION,
  repo: '/repo',
  head,
  checkedAt: '2026-11-28T06:00:00.000Z',
  paths: { 'src/a.ts': { at: 'absent', touched: [1_700_000_000], removed: { commit: 'c0ffee1', date: '2026-11-01' } } },
  commits: {},
  branches: {},
  stale: ['main/a.md'],
});

const memory = (sha: string, title: string): CitingMemories[string] => ({
  id: `id-${title}`,
  stream: 'main',
  day: '2026-11-01',
  kind: 'note',
  title,
  at: 1_600_000_000,
  sha,
  state: 'gone',
  stale: true,
  checked: { commit: 'x', at: 'y' },
  citations: [{ kind: 'path', target: 'src/a.ts', state: 'gone' }],
});

describe('the citation store', () => {
  it('drops the JSON store of earlier versions (.memvault/citations/): the next build checks everything once', () => {
    root = createProject({});
    writeFiles(root, { '.memvault/citations/verify.json': '{"version":1}', '.memvault/citations/cited-by/meta.json': '{}' });
    const store = openCitationStore(path.join(root, '.memvault'));
    expect(store.readVerification()).toBeUndefined();
    expect(existsSync(path.join(root, '.memvault/citations'))).toBe(false);
    expect(existsSync(path.join(root, '.memvault/state.sqlite'))).toBe(true);
  });

  it('keeps results in the state store, works states out on read, and rewrites only the rows of changed memories', () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    expect(store.stamp()).toBe('none');
    store.writeVerification(verification('h1'), { 'main/a.md': memory('sha-a', 'A'), 'main/b.md': memory('sha-b', 'B') });
    const stamp = store.stamp();
    expect(stamp).not.toBe('none');
    expect(store.readMemories()!.get('main/a.md')).toMatchObject({
      title: 'A',
      state: 'gone',
      stale: true,
      checked: { commit: 'h1' },
      citations: [{ target: 'src/a.ts', state: 'gone', detail: 'deleted in c0ffee1 on 2026-11-01' }],
    });
    const { db } = openStateStore(path.join(root, '.memvault'));
    // A row made from an unchanged memory (same sha) is not written again, even when the caller's record differs.
    store.writeVerification(verification('h2'), { 'main/a.md': memory('sha-a', 'A changed?'), 'main/c.md': memory('sha-c', 'C') });
    expect(store.stamp()).not.toBe(stamp);
    expect(db.prepare('SELECT path FROM citing_memories ORDER BY path').pluck().all()).toEqual(['main/a.md', 'main/c.md']);
    expect(store.readMemories()!.get('main/a.md')).toMatchObject({ title: 'A', checked: { commit: 'h2' } });
    expect(Object.keys(store.readMemories()!.all())).toEqual(['main/a.md', 'main/c.md']);
    store.clear();
    expect([store.stamp(), store.readVerification(), store.readMemories()]).toEqual(['none', undefined, undefined]);
  });

  it('is cleared by redact with the other derived stores (its records hold memory titles)', () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    store.writeVerification(verification('h1'), { 'main/a.md': memory('sha-a', 'token sk-live-123 in a title') });
    store.writeCitedBy({ repo: '/repo', vault: 'vault', files: { 'src/a.ts': [] } });
    expect(purgeDerivedStores(root)).toContain('.memvault/state.sqlite');
    const { db } = openStateStore(path.join(root, '.memvault'));
    expect(db.prepare('SELECT (SELECT count(*) FROM citing_memories) + (SELECT count(*) FROM cited_by)').pluck().get()).toBe(0);
    expect(store.readVerification()).toBeUndefined();
  });

  it('reads the cited-by rows asked for, and writes only the paths whose memories changed', () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    const entry = { m: 'main/a.md', day: '2026-11-01', kind: 'note', title: 'A', state: 'verified' as const };
    store.writeCitedBy({ repo: '/repo', vault: 'vault', files: { 'src/a.ts': [entry], 'src/': [entry] } });
    store.writeCitedBy({ repo: '/repo', vault: 'vault', files: { 'src/a.ts': [{ ...entry, state: 'gone', detail: 'deleted' }] } });
    const read = store.readCitedBy(() => ['src/a.ts', 'src/', 'src/b.ts'])!;
    expect(read).toMatchObject({ repo: '/repo', vault: 'vault' });
    expect([...read.found]).toEqual([['src/a.ts', [{ ...entry, state: 'gone', detail: 'deleted' }]]]);
    // A row that does not decode is as good as missing.
    openStateStore(path.join(root, '.memvault')).db.prepare('UPDATE cited_by SET entries = \'[{"m": 1}]\'').run();
    expect(store.readCitedBy(() => ['src/a.ts'])!.found.size).toBe(0);
  });

  it("patches a partial check: replaces the named memories' rows and cited-by entries, keeps the rest, all or nothing", () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    const entry = (m: string, state: 'verified' | 'gone' = 'verified') => ({ m, day: '2026-11-01', kind: 'note', title: m, state });
    store.writeVerification(verification('h1'), {
      'main/a.md': memory('sha-a', 'A'),
      'main/b.md': memory('sha-b', 'B'),
      'main/c.md': memory('sha-c', 'C'),
    });
    store.writeCitedBy({
      repo: '/repo',
      vault: 'vault',
      files: { 'src/a.ts': [entry('main/a.md'), entry('main/b.md'), entry('main/c.md')], 'src/b.ts': [entry('main/b.md')] },
    });
    // a and b named: a edited, b deleted; c and its entries kept without being given.
    const replaced = store.transaction(() => {
      const rows = store.replaceMemories((p) => p !== 'main/c.md', { 'main/a.md': memory('sha-a2', 'A2') });
      store.updateCitedBy(
        { repo: '/repo', vault: 'vault', files: { 'src/a.ts': [entry('main/a.md', 'gone')], 'src/b.ts': [] } },
        () => new Set(['main/a.md', 'main/b.md']),
      );
      return rows;
    });
    expect([...replaced]).toEqual([
      ['main/a.md', { cites: [['path', 'src/a.ts']], sha: 'sha-a' }],
      ['main/b.md', { cites: [['path', 'src/a.ts']], sha: 'sha-b' }],
    ]);
    expect(Object.fromEntries(Object.entries(store.readMemories()!.all()).map(([p, m]) => [p, m.title]))).toEqual({
      'main/a.md': 'A2',
      'main/c.md': 'C',
    });
    const read = store.readCitedBy(() => ['src/a.ts', 'src/b.ts'])!;
    expect([...read.found]).toEqual([['src/a.ts', [entry('main/c.md'), entry('main/a.md', 'gone')]]]);
    // A write that fails halfway leaves nothing of itself.
    expect(() =>
      store.transaction(() => {
        store.replaceMemories(() => true, {});
        throw new Error('killed');
      }),
    ).toThrow('killed');
    expect(Object.keys(store.readMemories()!.all())).toEqual(['main/a.md', 'main/c.md']);
  });

  it('replaces the same rows whether it walks the table or looks the named ones up (`kept`), and walks when a named one is gone', () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    const all = { 'main/a.md': memory('sha-a', 'A'), 'main/b.md': memory('sha-b', 'B'), 'main/c.md': memory('sha-c', 'C') };
    const { db } = openStateStore(path.join(root, '.memvault'));
    const rows = () => db.prepare('SELECT path, sha, record FROM citing_memories ORDER BY path').raw().all();
    // a and c named (their group moved), b kept: each write once by the walk, once by the look-up, from the same rows.
    const replace = (now: CitingMemories, kept: number | undefined) => {
      store.writeVerification(verification('h1'), all);
      const asked: string[] = [];
      const named = (p: string): boolean => {
        asked.push(p);
        return p !== 'main/b.md';
      };
      const replaced = store.replaceMemories(named, now, kept);
      return { replaced: [...replaced], rows: rows(), asked };
    };
    // An edit: c's content changed, a's did not. Looked up, b's row is not even asked about.
    const edited = { 'main/a.md': all['main/a.md'], 'main/c.md': memory('sha-c2', 'C2') };
    const walked = replace(edited, undefined);
    const looked = replace(edited, 1);
    expect(looked.replaced).toEqual(walked.replaced);
    expect(looked.rows).toEqual(walked.rows);
    expect(walked.asked).toContain('main/b.md');
    expect(looked.asked).not.toContain('main/b.md');
    expect(looked.replaced).toEqual([
      ['main/a.md', { sha: 'sha-a' }],
      ['main/c.md', { cites: [['path', 'src/a.ts']], sha: 'sha-c' }],
    ]);
    // c deleted: the row count says a named row is not among `now`'s, so the table is walked and c's row removed.
    const deleted = { 'main/a.md': all['main/a.md'] };
    const walkedDeleted = replace(deleted, undefined);
    const lookedDeleted = replace(deleted, 1);
    expect(lookedDeleted.replaced).toEqual(walkedDeleted.replaced);
    expect(lookedDeleted.rows).toEqual(walkedDeleted.rows);
    expect(lookedDeleted.replaced.map(([p]) => p)).toEqual(['main/a.md', 'main/c.md']);
    expect(lookedDeleted.rows.map((r) => (r as string[])[0])).toEqual(['main/a.md', 'main/b.md']);
  });

  it("keeps the stale memories' notes in rows of their own, writing only those that changed", () => {
    root = createProject({});
    const store = openCitationStore(path.join(root, '.memvault'));
    const { db } = openStateStore(path.join(root, '.memvault'));
    const stale = (head: string, notes: Record<string, string>): Verification => ({
      ...verification(head),
      stale: Object.keys(notes),
      notes: Object.fromEntries(Object.entries(notes).filter(([, note]) => note !== '')),
    });
    store.writeVerification(
      stale('h1', { 'main/a.md': 'cites `src/a.ts`, deleted', 'main/b.md': 'cites `src/b.ts`, 5 commits since', 'main/c.md': '' }),
      {},
    );
    const first = store.readVerification()!;
    expect([first.stale.sort(), first.notes]).toEqual([
      ['main/a.md', 'main/b.md', 'main/c.md'],
      { 'main/a.md': 'cites `src/a.ts`, deleted', 'main/b.md': 'cites `src/b.ts`, 5 commits since' },
    ]);
    // The facts' row says nothing of them: its size does not grow with the stale memories.
    const row = db.prepare("SELECT value FROM kv WHERE store = 'citations' AND key = 'verification'").pluck().get() as string;
    expect(row).not.toContain('main/a.md');
    // Against the notes read: b's note changed, c is no longer stale, d is; a's row is not written again.
    db.prepare("UPDATE citation_notes SET note = 'kept as it was' WHERE memory = 'main/a.md'").run();
    const before = { ...first, notes: { ...first.notes, 'main/a.md': 'cites `src/a.ts`, deleted' } };
    store.writeVerification(
      stale('h2', {
        'main/a.md': 'cites `src/a.ts`, deleted',
        'main/b.md': 'cites `src/b.ts`, 6 commits since',
        'main/d.md': 'cites `src/d.ts`, deleted',
      }),
      undefined,
      before,
    );
    expect(db.prepare('SELECT memory, note FROM citation_notes ORDER BY memory').raw().all()).toEqual([
      ['main/a.md', 'kept as it was'],
      ['main/b.md', 'cites `src/b.ts`, 6 commits since'],
      ['main/d.md', 'cites `src/d.ts`, deleted'],
    ]);
    // Without what the store holds, every note is written again.
    store.writeVerification(stale('h3', { 'main/a.md': 'cites `src/a.ts`, deleted' }), undefined);
    expect(db.prepare('SELECT memory, note FROM citation_notes').raw().all()).toEqual([['main/a.md', 'cites `src/a.ts`, deleted']]);
    store.clear();
    expect(db.prepare('SELECT count(*) FROM citation_notes').pluck().get()).toBe(0);
  });

  it('opens a store of schema 3 with a table for the notes, its other rows kept (a verification of version 2 is checked again)', () => {
    root = createProject({});
    const file = path.join(root, '.memvault', 'state.sqlite');
    mkdirSync(path.dirname(file), { recursive: true });
    const old = new Database(file);
    for (const migrate of MIGRATIONS.slice(0, 3)) migrate(old);
    old.pragma('user_version = 3');
    old.prepare("INSERT INTO citing_memories (path, sha, record) VALUES ('main/a.md', '1:sha-a', '{}')").run();
    const { stale: _stale, ...facts } = verification('h0');
    old
      .prepare("INSERT INTO kv (store, key, value) VALUES ('citations', 'verification', ?)")
      .run(JSON.stringify({ ...facts, version: 2, stale: ['main/a.md'] }));
    old.close();
    const store = openCitationStore(path.join(root, '.memvault'));
    expect(store.readVerification()).toBeUndefined();
    const { db } = openStateStore(path.join(root, '.memvault'));
    expect(db.prepare('SELECT count(*) FROM citing_memories').pluck().get()).toBe(1);
    store.writeVerification(verification('h1'), undefined);
    expect(db.prepare('SELECT memory FROM citation_notes').pluck().all()).toEqual(['main/a.md']);
    expect(store.readVerification()).toMatchObject({ head: 'h1', stale: ['main/a.md'] });
  });
});
