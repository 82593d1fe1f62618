import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentStore } from '../../src/load/content-store.js';
import { ParseCache, type CacheEntry, type ParsedContent } from '../../src/store/cache.js';
import { closeStateStores } from '../../src/store/database.js';
import type { Memory } from '../../src/vault/model.js';
import { sha256 } from '../../src/util/hash.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-content-'));
});
afterEach(() => {
  closeStateStores();
  rmSync(dir, { recursive: true, force: true });
});

function memory(n: number): Memory {
  return {
    id: `m-${n}`,
    stream: 'main',
    path: `main/memories/m-${n}.md`,
    location: 'memories',
    date: '2026-01-02',
    day: '2026-01-02',
    minute: n,
    title: undefined,
    kind: 'session',
    tags: [],
    importance: 'normal',
    sha256: n.toString(16).padStart(64, '0'),
  };
}

const entryOf = (m: Memory): CacheEntry => ({ size: 10, mtimeMs: 1, sha256: m.sha256, result: { type: 'memory', memory: m } });

describe('content store', () => {
  it('lets go of the bodies it wrote to the state store and reads them back the same', () => {
    // No vault files: a body read from disk would throw, so each one below comes from memory or the store.
    const cache = ParseCache.open(path.join(dir, '.memvault'), 'UTC');
    const content = new ContentStore(path.join(dir, 'vault'), cache);
    const bodies = new Map<number, ParsedContent>();
    for (const n of [1, 2, 3]) {
      const parsed: ParsedContent = {
        body: `Body ${n}: Zoë decided.`,
        sentences: [{ text: `Body ${n}: Zoë decided.`, section: '', block: 0, role: 'decision', mustKeep: ['decision'] }],
        headings: [],
      };
      bodies.set(n, parsed);
      cache.set(memory(n).path, entryOf(memory(n)), parsed);
      content.remember(memory(n).sha256, parsed);
    }
    content.release(4); // fewer than asked for: kept
    expect(cache.pendingBodyCount).toBe(3);
    expect(content.memory(memory(1))).toBe(bodies.get(1));
    content.release(3);
    expect(cache.pendingBodyCount).toBe(0);
    for (const n of [1, 2, 3]) {
      const read = content.memory(memory(n));
      expect(read).not.toBe(bodies.get(n)); // not held any more: read back
      expect(read).toEqual(bodies.get(n));
    }
    expect(content.parsed).toBe(0); // nothing parsed again
  });

  it('keeps a body the parse cache does not hold (no entry for its file)', () => {
    const cache = ParseCache.open(path.join(dir, '.memvault'), 'UTC');
    const content = new ContentStore(path.join(dir, 'vault'), cache);
    const parsed: ParsedContent = { body: 'Only here.', sentences: [], headings: [] };
    content.remember(memory(4).sha256, parsed);
    cache.set(memory(5).path, entryOf(memory(5)), { body: 'five', sentences: [] });
    content.release();
    expect(content.shown(memory(4))).toBe(parsed);
  });

  it("gives a memory's opening from its file's beginning when no parsed body is at hand, parsing nothing in full", () => {
    const cache = ParseCache.open(path.join(dir, '.memvault'), 'UTC');
    const vault = path.join(dir, 'vault');
    const content = new ContentStore(vault, cache, { openingsFromBeginning: true });
    const text =
      '---\ndate: 2026-01-02\n---\n\n# Session\n\nThe first sentence. The second sentence.\n\nThe third sentence. The fourth one.\n\nThe fifth sentence.\n';
    const bytes = Buffer.from(text);
    const file: Memory = { ...memory(6), sha256: sha256(bytes) };
    mkdirSync(path.dirname(path.join(vault, file.path)), { recursive: true });
    writeFileSync(path.join(vault, file.path), bytes);
    expect(content.opening(file, 3)).toEqual(['The first sentence.', 'The second sentence.', 'The third sentence.']);
    expect(content.parsed).toBe(0); // neither counted nor kept as a parsed body
    expect(cache.pendingBodyCount).toBe(0);
    // A parsed body at hand is used as it is (here one that says otherwise, to tell which was read).
    content.remember(file.sha256, {
      body: 'x',
      sentences: [{ text: 'Known.', section: '', block: 0, role: 'context', mustKeep: [] }],
      headings: [],
    });
    expect(content.opening(file, 3)).toEqual(['Known.']);
  });

  it("parses a memory whole for its opening outside a fresh clone's first build, and keeps it for the next build", () => {
    const stateDir = path.join(dir, '.memvault');
    const cache = ParseCache.open(stateDir, 'UTC');
    const vault = path.join(dir, 'vault');
    const content = new ContentStore(vault, cache);
    const text = '---\ndate: 2026-01-02\n---\n\nThe first sentence. The second sentence.\n\nThe third sentence.\n';
    const bytes = Buffer.from(text);
    const file: Memory = { ...memory(7), sha256: sha256(bytes) };
    mkdirSync(path.dirname(path.join(vault, file.path)), { recursive: true });
    writeFileSync(path.join(vault, file.path), bytes);
    cache.set(file.path, entryOf(file));
    expect(content.opening(file, 2)).toEqual(['The first sentence.', 'The second sentence.']);
    expect(content.parsed).toBe(1);
    cache.save();
    // The next build reads the body back from the cache: nothing parsed.
    const next = new ContentStore(vault, ParseCache.open(stateDir, 'UTC'));
    expect(next.opening(file, 3)).toEqual(['The first sentence.', 'The second sentence.', 'The third sentence.']);
    expect(next.parsed).toBe(0);
  });
});
