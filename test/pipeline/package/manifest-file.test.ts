import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifestFile, readManifestInputHash } from '../../../src/pipeline/package/manifest-file.js';

/**
 * A manifest's input hash from its last bytes: the plan's hint that a package is stale without reading a manifest of
 * ~30 MB (a busy day). Only an end that is exactly the last key `input_hash` counts; anything else reads as no hint.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hash = 'ab12'.repeat(16);

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('readManifestInputHash', () => {
  it('reads the last key of a manifest as memvault writes it, however long the items before it', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, status: 'left-out' }));
    const manifest = { memvault: 'manifest', items, input_hash: hash };
    const file = write('big.json', `${JSON.stringify(manifest, null, 2)}\n`);
    expect(readManifestInputHash(file)).toBe(hash);
    expect(readManifestFile(file)).toBeUndefined(); // not a whole manifest: the hint never stands for the check
  });

  it('gives no hint for an end that is not the input hash: another key last, a cut file, no file', () => {
    expect(readManifestInputHash(write('other-last.json', `{"input_hash": "${hash}", "tokens": 3}\n`))).toBeUndefined();
    expect(readManifestInputHash(write('cut.json', `{"items": [], "input_hash": "${hash.slice(0, 40)}`))).toBeUndefined();
    expect(readManifestInputHash(write('in-a-reason.json', `{"reason": "\\"input_hash\\": \\"${hash}\\"}"}`))).toBeUndefined();
    expect(readManifestInputHash(path.join(dir, 'none.json'))).toBeUndefined();
  });
});
