import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/database.js';
import { decodeLocalState, foldUsage, legacyStateFile, localStateStamp, readLocalState } from '../../src/usage/fold.js';
import { recordSources } from '../../src/usage/log.js';
import { memoryAt } from '../helpers/memory-object.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-usage-state-'));
  dirs.push(root);
  const vaultDir = path.join(root, 'vault');
  mkdirSync(path.join(vaultDir, 'main'), { recursive: true });
  return { root, vaultDir, streams: [{ name: 'main', memories: [memoryAt('main', 'a')], summaries: new Map() }] };
}

describe("this clone's usage totals in the state store", () => {
  it('are saved in .memvault/state.sqlite with a new stamp per fold, not in usage-state.json', () => {
    const { root, vaultDir, streams } = project();
    expect(localStateStamp(root)).toBe('none');
    recordSources(root, 'main', ['main/memories/a.md'], 'cli:search', new Date('2026-11-20T10:00:00Z'));
    foldUsage(root, vaultDir, streams);
    const first = localStateStamp(root);
    expect(first).not.toBe('none');
    expect(existsSync(legacyStateFile(root))).toBe(false);
    const state = readLocalState(root);
    expect(state.counts).toEqual({ main: { a: [1, '2026-11-20T10:00:00.000Z'] } });
    expect(readLocalState(root).replica).toBe(state.replica);
    recordSources(root, 'main', ['main/memories/a.md'], 'cli:search', new Date('2026-11-21T10:00:00Z'));
    foldUsage(root, vaultDir, streams);
    expect(localStateStamp(root)).not.toBe(first);
    expect(readLocalState(root).counts.main?.a?.[0]).toBe(2);
  });

  it('a row or file that does not decode is no totals: a new clone id', () => {
    const { root } = project();
    mkdirSync(path.join(root, '.memvault'), { recursive: true });
    writeFileSync(legacyStateFile(root), JSON.stringify({ replica: 'old', offset: 0, counts: { main: { a: [1] } } }));
    expect(readLocalState(root).replica).not.toBe('old');
    openStateStore(path.join(root, '.memvault'))
      .db.prepare("INSERT INTO kv (store, key, value) VALUES ('usage-state', 'state', ?)")
      .run(JSON.stringify({ replica: 'bad', through: '12', counts: {} }));
    expect(readLocalState(root).replica).not.toBe('bad');
  });

  it('decodes only whole totals', () => {
    const good = { replica: 'r', through: 3, counts: { main: { a: [2, '2026-11-20T10:00:00.000Z'] } } };
    expect(decodeLocalState(good)).toEqual(good);
    // Totals of a version that kept a log file: their offset was into that file, whose lines the store carried over.
    expect(decodeLocalState({ replica: 'r', offset: 3, ino: 7, counts: good.counts })).toEqual({ ...good, through: 0 });
    for (const bad of [
      null,
      [],
      { ...good, replica: 1 },
      { ...good, through: '3' },
      { ...good, counts: [] },
      { ...good, counts: { main: { a: [2] } } },
      { ...good, counts: { main: { a: ['2', 'x'] } } },
      { ...good, counts: { main: 'a' } },
    ])
      expect(decodeLocalState(bad)).toBeUndefined();
  });
});
