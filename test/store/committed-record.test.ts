import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { header, RECORD_DIR, readRecord } from '../../src/store/committed-record.js';
import type { Memory } from '../../src/vault/model.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A vault folder whose record holds one shard with `line` after the header; what `readRecord` makes of it. */
function readShardWith(line: Record<string, unknown>): ReturnType<typeof readRecord> {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-record-'));
  const shardDir = path.join(dir, RECORD_DIR, 'main');
  mkdirSync(shardDir, { recursive: true });
  writeFileSync(path.join(shardDir, 'memories-2026-01.jsonl'), `${header('UTC')}\n${JSON.stringify(line)}\n`);
  return readRecord(dir, ['main'], 'UTC');
}

const line = {
  p: 'main/memories/2026/01/a.md',
  b: 'a'.repeat(40),
  s: 'b'.repeat(64),
  m: {
    date: '2026-01-02T10:00:00Z',
    day: '2026-01-02',
    id: '2026/01/a',
    importance: 'normal',
    kind: 'note',
    location: 'memories',
    minute: 600,
    tags: [],
  },
};

describe('the committed record: citations', () => {
  it("reads a memory's citations from the tuples in `c`", () => {
    const read = readShardWith({
      ...line,
      c: [
        ['i', '#12', 3],
        ['p', 'src/net/retry.ts', 5, { lines: [10, 20], symbol: 'retry' }],
      ],
    });
    expect(read.warnings).toEqual([]);
    const entry = read.entries.get(line.p)!;
    expect((entry.result as { memory: Memory }).memory.citations).toEqual([
      { kind: 'issue', target: '#12', line: 3 },
      { kind: 'path', target: 'src/net/retry.ts', line: 5, lines: [10, 20], symbol: 'retry' },
    ]);
  });

  it('treats a shard whose citations are not tuples of the known kinds as unreadable (the files are read instead)', () => {
    for (const c of [[['x', '#12', 3]], [['i', 12, 3]], [{ kind: 'issue', target: '#12', line: 3 }]]) {
      const read = readShardWith({ ...line, c });
      expect(read.entries.size, JSON.stringify(c)).toBe(0);
      expect(read.warnings.map((w) => w.rule)).toEqual(['record/unreadable']);
    }
    // Citations left in the memory's fields would go unchecked: not a record line either.
    const inMemory = readShardWith({ ...line, m: { ...line.m, citations: [{ kind: 'issue', target: '#12', line: 3 }] } });
    expect(inMemory.entries.size).toBe(0);
  });
});
