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

  it('refuses every citation zod refuses and takes every one it takes (the plain form is checked without zod)', () => {
    const refused: unknown[] = [
      ['i', '#12', 3.5],
      ['i', '#12'],
      ['i', '#12', 3, {}, 4],
      ['i', '#12', 3, 'x'],
      ['i', '#12', null],
      ['i', null, 3],
      ['I', '#12', 3],
      ['i', '#12', '3'],
      ['i', '#12', 1e20],
      ['p', 'a.ts', 1, { lines: [1] }],
      ['p', 'a.ts', 1, { quote: { kind: 'block', text: 'x', height: 1 } }],
      'i',
      null,
      { 0: 'i', 1: '#12', 2: 3, length: 3 },
    ];
    for (const cited of refused) {
      const read = readShardWith({ ...line, c: [['i', '#1', 1], cited] });
      expect(read.entries.size, JSON.stringify(cited)).toBe(0);
    }
    expect(readShardWith({ ...line, c: 'i' }).entries.size).toBe(0);
    const taken: unknown[] = [
      ['i', '#12', -3],
      ['b', 'x', 0],
      ['p', 'a.ts', 1, {}],
      ['p', 'a.ts', 1, { lines: [1, 2], symbol: 's', quote: { kind: 'spans', text: ['a', 'b'], height: 2 } }],
      ['c', 'abc1234', 9, { other: 'kept as zod keeps it: dropped from no object, checked by no one' }],
    ];
    const read = readShardWith({ ...line, c: taken });
    expect(read.warnings).toEqual([]);
    expect((read.entries.get(line.p)!.result as { memory: Memory }).memory.citations).toHaveLength(taken.length);
  });

  it('refuses heading spans that are not five integers, and takes those that are', () => {
    for (const span of [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, '5'], [1.5, 2, 3, 4, 5], [1, 2, 3, 4, 1e20], null, 'x']) {
      expect(readShardWith({ ...line, h: [[0, 8, 2, 3, 8], span] }).entries.size, JSON.stringify(span)).toBe(0);
    }
    expect(readShardWith({ ...line, h: 'x' }).entries.size).toBe(0);
    const read = readShardWith({
      ...line,
      h: [
        [0, 8, 2, 3, 8],
        [-1, 0, 1, -1, -1],
      ],
    });
    expect(read.warnings).toEqual([]);
    expect(read.entries.get(line.p)!.headings).toEqual([
      [0, 8, 2, 3, 8],
      [-1, 0, 1, -1, -1],
    ]);
  });

  it('names the shard and line of the first line that is not a record line', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-record-'));
    const shardDir = path.join(dir, RECORD_DIR, 'main');
    mkdirSync(shardDir, { recursive: true });
    const other = { ...line, p: 'main/memories/2026/01/b.md' };
    const lines = [header('UTC'), JSON.stringify(line), JSON.stringify({ ...other, c: [['i', '#1', 'three']] })];
    writeFileSync(path.join(shardDir, 'memories-2026-01.jsonl'), `${lines.join('\n')}\n`);
    const read = readRecord(dir, ['main'], 'UTC');
    expect(read.entries.size).toBe(0); // the whole shard: its files are read instead
    expect(read.warnings).toHaveLength(1);
    expect(read.warnings[0]).toMatchObject({
      rule: 'record/unreadable',
      path: `${RECORD_DIR}/main/memories-2026-01.jsonl`,
      line: 3,
    });
    expect(read.warnings[0]!.reason).toContain('a line is not a record line');
  });
});
