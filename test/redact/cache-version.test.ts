import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DETECTOR_VERSION } from '../../src/redact/detect.js';
import { closeStateStores } from '../../src/store/database.js';
import { ParseCache, type CacheEntry } from '../../src/store/cache.js';
import { parseVaultFile } from '../../src/load/parse-file.js';
import { classifyPath } from '../../src/vault/paths.js';
import { SECRET_CASES } from './corpus.js';

/** The parse cache keeps what the detector found, and only for the rule set that found it. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-secret-cache-'));
});
afterEach(() => {
  closeStateStores();
  rmSync(dir, { recursive: true, force: true });
});

const file = 'main/memories/2026/02/2026-02-13-token.md';
const github = SECRET_CASES.find((c) => c.name === 'GitHub classic PAT')!;

function parsed(text: string): CacheEntry {
  const bytes = Buffer.from(text);
  const { result } = parseVaultFile(bytes, file, classifyPath(file), 'UTC');
  return { size: bytes.length, mtimeMs: 1, sha256: result.type === 'memory' ? result.memory.sha256 : '', result };
}

describe('secrets in the parse cache', () => {
  it('a memory parse records each secret with its place, and the cache reads it back', () => {
    const entry = parsed(`---\ndate: 2026-02-13\n---\nPushed with\n  ${github.line}\n`);
    expect(entry.result).toMatchObject({
      type: 'memory',
      secrets: [{ kind: 'github', line: 5, column: 3 + github.line.indexOf(github.secret), secret: github.secret }],
    });
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(file, entry);
    cache.save();
    expect(ParseCache.open(dir, 'UTC').get(file)?.result).toMatchObject({
      type: 'memory',
      secrets: (entry.result as { secrets: unknown }).secrets,
    });
    expect(parsed('---\ndate: 2026-02-13\n---\nNothing to hide.\n').result).not.toHaveProperty('secrets');
  });

  it('a cache written with another rule set is dropped: every memory is scanned again', () => {
    const cache = ParseCache.open(dir, 'UTC');
    cache.set(file, parsed(`---\ndate: 2026-02-13\n---\n${github.line}\n`));
    cache.save();
    // The cache's key names the rule set; another one (an older memvault's) is another cache.
    const db = new Database(path.join(dir, 'state.sqlite'));
    const key = JSON.parse(db.prepare("SELECT value FROM kv WHERE store = 'parse-cache' AND key = 'key'").pluck().get() as string);
    expect(JSON.parse(key).detector).toBe(DETECTOR_VERSION);
    const older = JSON.stringify({ ...JSON.parse(key), detector: 'secretlint-preset-recommend@0.0.1;memvault-rules@0' });
    db.prepare("UPDATE kv SET value = ? WHERE store = 'parse-cache' AND key = 'key'").run(JSON.stringify(older));
    db.close();
    expect(ParseCache.open(dir, 'UTC').get(file)).toBeUndefined();
  });
});
