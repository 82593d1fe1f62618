import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCheckCache } from '../../src/facts-check/cache.js';
import { readPending } from '../../src/pipeline/pending.js';
import { openVectorStore, storeName } from '../../src/search/embeddings/vectors.js';
import { closeStateStores, openStateStore, STATE_FILE } from '../../src/store/database.js';
import { kvTable, zodDecode } from '../../src/store/kv.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import * as z from 'zod';

/**
 * The state store itself (store/): one file, opened once per process, its schema version, what it carries over from
 * the files it replaces and removes them, a file that is not a database or is of a newer memvault, and the typed rows
 * of the small stores. Real files in a temp dir; a second connection reads the file as another process would.
 */

let stateDir: string;
beforeEach(() => {
  stateDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'memvault-store-')), '.memvault');
});
afterEach(() => {
  closeStateStores();
  rmSync(path.dirname(stateDir), { recursive: true, force: true });
});

const file = (): string => path.join(stateDir, STATE_FILE);

function otherConnection<T>(work: (db: Database.Database) => T): T {
  const db = new Database(file());
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe('the state store', () => {
  it('is one SQLite file in WAL mode at the current schema version, opened once per process', () => {
    const store = openStateStore(stateDir);
    expect(openStateStore(stateDir)).toBe(store);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(otherConnection((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION);
    expect(readdirSync(stateDir).filter((name) => !name.startsWith(STATE_FILE))).toEqual([]);
  });

  it('opens the file anew when it was removed under the open connection (redact, a test, a person)', () => {
    const first = openStateStore(stateDir);
    kvTable(first, 't', zodDecode(z.number())).set('k', 1);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file()}${suffix}`, { force: true });
    const second = openStateStore(stateDir);
    expect(second).not.toBe(first);
    expect(kvTable(second, 't', zodDecode(z.number())).get('k')).toBeUndefined();
  });

  it('commits a transaction whole or not at all', () => {
    const store = openStateStore(stateDir);
    const table = kvTable(store, 't', zodDecode(z.number()));
    expect(() =>
      store.transaction(() => {
        table.set('a', 1);
        throw new Error('stopped half-way');
      }),
    ).toThrow('stopped half-way');
    expect(table.get('a')).toBeUndefined();
    store.transaction(() => table.set('a', 2));
    expect(otherConnection((db) => db.prepare("SELECT value FROM kv WHERE store = 't'").pluck().get())).toBe('2');
  });

  it("reads a row only through its store's decoder: a row that does not decode is as good as missing", () => {
    const table = kvTable(openStateStore(stateDir), 'folders', zodDecode(z.object({ m: z.number() })));
    table.set('/a', { m: 1 });
    otherConnection((db) => {
      db.prepare("INSERT INTO kv (store, key, value) VALUES ('folders', '/b', '{\"m\":\"one\"}')").run();
      db.prepare("INSERT INTO kv (store, key, value) VALUES ('folders', '/c', '{not json')").run();
    });
    expect(table.get('/b')).toBeUndefined();
    expect(table.get('/c')).toBeUndefined();
    expect(table.entries()).toEqual([['/a', { m: 1 }]]);
  });

  it('carries over the uncommitted record, the facts --check answers and the vectors, and removes the files it replaces', () => {
    mkdirSync(path.join(stateDir, 'cache'), { recursive: true });
    writeFileSync(path.join(stateDir, 'cache', 'files.json'), '{}');
    writeFileSync(path.join(stateDir, 'cache', 'content.pack'), '');
    const move = {
      stream: 'main',
      kind: 'memory',
      id: '2026/01/a',
      from: 'main/memories/a.md',
      to: 'main/archive/2026-Q1/a.md',
      quarter: '2026-Q1',
    };
    writeFileSync(
      path.join(stateDir, 'uncommitted.json'),
      JSON.stringify({
        version: 1,
        written: [{ path: 'main/daily/2026-01-02.md', sha256: 'a'.repeat(64) }],
        historyCopies: [],
        archived: [move],
      }),
    );
    const answer = { contradicts: true, confidence: 0.9, reason: 'r', judge: 'm@12345678' };
    writeFileSync(path.join(stateDir, 'facts-check.json'), JSON.stringify({ version: 1, answers: { 'x:y': answer } }));
    const name = storeName('embed', undefined);
    mkdirSync(path.join(stateDir, 'embeddings'));
    writeFileSync(path.join(stateDir, 'embeddings', `${name}.json`), JSON.stringify({ model: 'embed', dimensions: 2 }));
    const record = Buffer.alloc(32 + 8);
    Buffer.from('1'.padStart(64, '0'), 'hex').copy(record);
    Buffer.from(new Float32Array([0.6, 0.8]).buffer).copy(record, 32);
    // A torn last record (a crash while appending) is left out.
    writeFileSync(path.join(stateDir, 'embeddings', `${name}.bin`), Buffer.concat([record, Buffer.from([1, 2, 3])]));
    for (const legacy of ['config-cache.json', 'record.json', 'swept-folders.json']) writeFileSync(path.join(stateDir, legacy), '{}');
    mkdirSync(path.join(stateDir, 'hooks'));
    writeFileSync(path.join(stateDir, 'hooks', 'session-start.json'), '{}');
    mkdirSync(path.join(stateDir, 'ingested', 'main'), { recursive: true });
    writeFileSync(path.join(stateDir, 'ingested', 'main', 'f'.repeat(64)), '{"memories":2}\n');
    // The usage log's lines the totals did not count yet are carried over into usage_events; a damaged line is not.
    const served = { ts: '2026-01-02T00:00:00.000Z', stream: 'main', path: 'main/memories/a.md', via: 'cli:search' };
    writeFileSync(path.join(stateDir, 'usage.log'), `${JSON.stringify(served)}\nnot json\n`);

    expect(readPending(stateDir)).toEqual({
      written: [{ path: 'main/daily/2026-01-02.md', sha256: 'a'.repeat(64) }],
      historyCopies: [],
      archived: [move],
    });
    expect(readCheckCache(path.dirname(stateDir)).answers.get('x:y')).toEqual(answer);
    const vectors = openVectorStore(path.dirname(stateDir), 'embed', undefined);
    expect(vectors.size).toBe(1);
    expect([...vectors.get('1'.padStart(64, '0'))!]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(openStateStore(stateDir).db.prepare('SELECT ts, stream, path, via FROM usage_events').all()).toEqual([served]);
    expect(readdirSync(stateDir).sort()).toEqual(['hooks', STATE_FILE, `${STATE_FILE}-shm`, `${STATE_FILE}-wal`].sort());
    expect(readdirSync(path.join(stateDir, 'hooks'))).toEqual([]);
  });

  it('removes a replaced file a process killed after the import left behind, at the next open', () => {
    openStateStore(stateDir);
    closeStateStores();
    writeFileSync(path.join(stateDir, 'uncommitted.json'), '{"written": []}');
    openStateStore(stateDir);
    expect(existsSync(path.join(stateDir, 'uncommitted.json'))).toBe(false);
  });

  it('starts afresh beside a file that is not a database (kept as state.sqlite.damaged)', () => {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(file(), 'this is not a database, but a file of the same name '.repeat(200));
    const table = kvTable(openStateStore(stateDir), 't', zodDecode(z.number()));
    table.set('k', 3);
    expect(table.get('k')).toBe(3);
    expect(existsSync(`${file()}.damaged`)).toBe(true);
  });

  it('refuses a file of a newer memvault (a downgrade) instead of rewriting it', () => {
    mkdirSync(stateDir, { recursive: true });
    otherConnection((db) => db.pragma(`user_version = ${SCHEMA_VERSION + 1}`));
    expect(() => openStateStore(stateDir)).toThrow(/written by a newer memvault/);
    expect(otherConnection((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION + 1);
  });
});
