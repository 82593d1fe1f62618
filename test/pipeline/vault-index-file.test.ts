import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readVaultIndex } from '../../src/pipeline/vault-index-file.js';
import { readSiteManifest, SITE_VERSION } from '../../src/site/write.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-read-back-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, value: unknown): string => {
  const at = path.join(dir, name);
  writeFileSync(at, typeof value === 'string' ? value : JSON.stringify(value));
  return at;
};

const stream = {
  name: 'main',
  memories: { total: 2, archived: 0, pinned: 0 },
  coverage: { first_day: '2026-02-13', last_day: '2026-02-14', days_with_memories: 2 },
  package: null,
  summaries: [],
  topics: [{ tier: 'weekly', period: '2026-W07', path: 'main/weekly/2026-W07.md', terms: ['sessions'] }],
  topics_hash: 'abc',
  review: [{ path: 'main/daily/2026-02-13.md', kind: 'edited', reason: 'edited by hand' }],
};
const index = { memvault: 'index', streams: [stream], invalid: [], input_hash: 'h' };

describe('committed JSON read back is checked, not cast', () => {
  it('index.json: the shape buildIndex writes, else none (the next build writes it anew)', () => {
    expect(readVaultIndex(file('index.json', index))).toEqual(index);
    for (const bad of [
      '{not json',
      [],
      { ...index, memvault: 'manifest' },
      { ...index, streams: {} },
      { ...index, streams: [{ ...stream, topics: [{ ...stream.topics[0], terms: 'sessions' }] }] },
      { ...index, streams: [{ ...stream, memories: null }] },
    ])
      expect(readVaultIndex(file('bad.json', bad))).toBeUndefined();
    expect(readVaultIndex(path.join(dir, 'missing.json'))).toBeUndefined();
  });

  it("the site's manifest: page hashes as strings, this version, else none (every page is written again)", () => {
    const site = { memvault: 'site', version: SITE_VERSION, pages: { 'index.html': 'h1' } };
    const out = (value: unknown): string => {
      const folder = mkdtempSync(path.join(dir, 'site-'));
      writeFileSync(path.join(folder, '.memvault-site.json'), JSON.stringify(value));
      return folder;
    };
    expect(readSiteManifest(out(site))).toEqual(site);
    expect(readSiteManifest(out({ ...site, pages: { 'index.html': 1 } }))).toBeUndefined();
    expect(readSiteManifest(out({ ...site, version: SITE_VERSION + 1 }))).toBeUndefined();
  });
});
