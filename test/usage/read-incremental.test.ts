import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../../src/usage/log.js';
import { readUsageFile, readUsageFileUncached } from '../../src/usage/read.js';

/**
 * A long-lived process reads usage counts again after every answer it records: when only the log grew, the events
 * added are counted into the last answer. It must equal reading everything again, and leave the last answer as it was.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-usage-read-'));
const vaultDir = path.join(root, 'vault');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const plain = (file: Map<string, Map<string, unknown>>) =>
  Object.fromEntries([...file].map(([id, replicas]) => [id, Object.fromEntries(replicas)]));
const served = (...names: string[]) => names.map((name) => ({ stream: 'main', path: `main/memories/2026/03/${name}.md` }));

describe('usage counts read again after the log grew', () => {
  it('equal a full read, with usage.json and another stream; the previous answer is not changed', () => {
    mkdirSync(path.join(vaultDir, 'main'), { recursive: true });
    mkdirSync(path.join(root, '.memvault'), { recursive: true });
    writeFileSync(
      path.join(vaultDir, 'main', 'usage.json'),
      `{\n"#": "usage counts: one line per id, {clone: [count, last used]}; merged by line (merge=union)",\n"2026/03/a": {"other": [4, "2026-03-01T00:00:00.000Z"]}\n}\n`,
    );
    // This clone's id, as a fold leaves it (without one, every read would make up a new id).
    writeFileSync(path.join(root, '.memvault', 'usage-state.json'), JSON.stringify({ replica: 'c10e', offset: 0, counts: {} }));
    recordUsage(root, served('a', 'b'), 'cli:search', new Date('2026-03-02T00:00:00Z'));
    const first = readUsageFile(root, vaultDir, 'main');
    const firstCopy = plain(first);
    expect(plain(first)).toEqual(plain(readUsageFileUncached(root, vaultDir, 'main')));

    recordUsage(root, served('a', 'c'), 'mcp:context', new Date('2026-03-03T00:00:00Z'));
    recordUsage(root, [{ stream: 'ops', path: 'ops/memories/2026/03/x.md' }], 'mcp:search', new Date('2026-03-03T00:00:00Z'));
    const second = readUsageFile(root, vaultDir, 'main');
    expect(plain(second)).toEqual(plain(readUsageFileUncached(root, vaultDir, 'main')));
    expect(second.get('2026/03/a')?.size).toBe(2);
    expect(second.has('2026/03/d')).toBe(false);
    recordUsage(root, served('d'), 'cli:zoom', new Date('2026-03-04T00:00:00Z'));
    const third = readUsageFile(root, vaultDir, 'main');
    expect(third.has('2026/03/d')).toBe(true);
    expect(plain(third)).toEqual(plain(readUsageFileUncached(root, vaultDir, 'main')));
    expect(plain(first)).toEqual(firstCopy);
  });
});
