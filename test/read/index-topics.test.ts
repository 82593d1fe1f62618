import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { topicsOf } from '../../src/read/context/warm.js';
import type { ReadVault } from '../../src/read/vault.js';

/** `index.json` arrives with a clone: what a context reads of it is checked, a damaged topic left out on its own. */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function vaultWith(index: string): ReadVault {
  const vaultDir = mkdtempSync(path.join(os.tmpdir(), 'memvault-topics-'));
  dirs.push(vaultDir);
  writeFileSync(path.join(vaultDir, 'index.json'), index);
  // topicsOf reads only the folder and keeps its memo per loaded vault.
  return { vaultDir, loaded: {} } as unknown as ReadVault;
}

describe('topicsOf', () => {
  it('keeps the well-formed topics of each stream and leaves out the damaged ones', () => {
    const good = { tier: 'weekly', period: '2026-W07', path: 'main/weekly/2026-W07.md', terms: ['queue', 'invoice'] };
    const vault = vaultWith(
      JSON.stringify({
        streams: [
          { name: 'main', topics: [good, { period: '2026-W08', path: 'x.md', terms: 'queue' }, null] },
          { name: 7, topics: [good] },
          'not a stream',
        ],
      }),
    );
    expect(topicsOf(vault, 'main')).toEqual([{ period: good.period, path: good.path, terms: good.terms }]);
    expect(topicsOf(vault, '7')).toEqual([]);
  });

  it('gives no topics for a file that is not JSON or has no stream list', () => {
    expect(topicsOf(vaultWith('{ not json'), 'main')).toEqual([]);
    expect(topicsOf(vaultWith(JSON.stringify({ streams: 'main' })), 'main')).toEqual([]);
    expect(topicsOf(vaultWith('[]'), 'main')).toEqual([]);
  });
});
