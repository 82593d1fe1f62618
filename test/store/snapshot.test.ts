import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeStateStore, openStateStore, useStateSnapshot } from '../../src/store/database.js';

/**
 * `build --dry-run` reads the state store from a copy in memory (`useStateSnapshot`): the rows on disk are there to
 * read, what is written goes nowhere, and `.memvault/` is left as it was (no file created, no WAL, no migration).
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function stateDir(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-snapshot-'));
  dirs.push(root);
  return path.join(root, '.memvault');
}

const put = (dir: string, key: string, value: string) =>
  openStateStore(dir).db.prepare('INSERT OR REPLACE INTO kv (store, key, value) VALUES (?, ?, ?)').run('test', key, value);
const get = (dir: string, key: string) =>
  openStateStore(dir).db.prepare('SELECT value FROM kv WHERE store = ? AND key = ?').pluck().get('test', key);

/** Every file of the folder and its bytes. */
function files(dir: string): Map<string, string> {
  if (!existsSync(dir)) return new Map();
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name)).toString('base64')]));
}

describe('useStateSnapshot', () => {
  it('reads the rows on disk, keeps what is written in memory, and leaves the folder byte for byte', () => {
    const dir = stateDir();
    put(dir, 'a', '"on disk"');
    closeStateStore(dir);
    const before = files(dir);
    const release = useStateSnapshot(dir);
    expect(get(dir, 'a')).toBe('"on disk"');
    put(dir, 'b', '"dry run"');
    expect(get(dir, 'b')).toBe('"dry run"');
    release();
    expect(files(dir)).toEqual(before);
    expect(get(dir, 'b')).toBeUndefined();
    closeStateStore(dir);
  });

  it('creates nothing when there is no store yet', () => {
    const dir = stateDir();
    const release = useStateSnapshot(dir);
    put(dir, 'a', '1');
    expect(get(dir, 'a')).toBe('1');
    release();
    expect(existsSync(dir)).toBe(false);
  });

  it('sets aside the connection this process holds and gives it back', () => {
    const dir = stateDir();
    const held = openStateStore(dir);
    put(dir, 'a', '"held"');
    const release = useStateSnapshot(dir);
    expect(openStateStore(dir)).not.toBe(held);
    release();
    expect(openStateStore(dir)).toBe(held);
    expect(get(dir, 'a')).toBe('"held"');
    closeStateStore(dir);
  });
});
