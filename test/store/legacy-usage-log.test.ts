import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { importLegacyUsageLog, LEGACY_FOLDED_LOG, LEGACY_USAGE_LOG } from '../../src/store/legacy-usage-log.js';
import { MIGRATIONS } from '../../src/store/schema.js';

/**
 * The usage log files of earlier versions, carried over into `usage_events`: only the lines their totals had not
 * counted, read as that version's fold read them (an offset into `usage.log`, or into the folded file its inode names).
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const line = (name: string): string =>
  `${JSON.stringify({ ts: '2026-11-20T10:00:00.000Z', stream: 'main', path: `main/memories/${name}.md`, via: 'cli:search' })}\n`;

function carriedOver(files: Record<string, string>, state: (dir: string) => object | undefined): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-legacy-usage-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) migration(db);
  const totals = state(dir);
  if (totals) db.prepare("INSERT INTO kv (store, key, value) VALUES ('usage-state', 'state', ?)").run(JSON.stringify(totals));
  importLegacyUsageLog(db, dir);
  return (db.prepare('SELECT path FROM usage_events ORDER BY seq').pluck().all() as string[]).map((p) => path.basename(p, '.md'));
}

describe('the usage log of earlier versions', () => {
  it('past the offset its totals counted in usage.log; a torn last line waits for nobody', () => {
    const files = { [LEGACY_USAGE_LOG]: `${line('a')}${line('b')}${line('c').slice(0, 20)}` };
    expect(carriedOver(files, () => ({ replica: 'r', offset: line('a').length, counts: {} }))).toEqual(['b']);
  });

  it('the folded file past the offset when its inode is the counted one, then all of the live log', () => {
    const files = { [LEGACY_FOLDED_LOG]: `${line('a')}${line('b')}`, [LEGACY_USAGE_LOG]: `${line('c')}${line('d')}` };
    const state = (dir: string) => ({
      replica: 'r',
      offset: line('a').length,
      ino: statSync(path.join(dir, LEGACY_FOLDED_LOG)).ino,
      counts: {},
    });
    expect(carriedOver(files, state)).toEqual(['b', 'c', 'd']);
  });

  it('a folded file another inode names was never counted: all of it', () => {
    const files = { [LEGACY_FOLDED_LOG]: `${line('a')}${line('b')}` };
    expect(carriedOver(files, () => ({ replica: 'r', offset: 5, ino: 1, counts: {} }))).toEqual(['a', 'b']);
  });

  it('without totals: every line', () => {
    expect(carriedOver({ [LEGACY_USAGE_LOG]: `${line('a')}${line('b')}` }, () => undefined)).toEqual(['a', 'b']);
  });
});
