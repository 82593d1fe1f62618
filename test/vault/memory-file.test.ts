import { describe, expect, it } from 'vitest';
import { parseMemoryFile, writeMemoryFile, type MemoryPlace, type NewMemory } from '../../src/vault/memory-file.js';
import type { Diagnostic, MemoryContent } from '../../src/vault/model.js';

/** parseMemoryFile and writeMemoryFile: round trips, dates, ids, defaults and bad files. Hostile input: memory-file-hostile.test.ts. */

/** A file at `main/memories/<inside>`. */
function place(inside = '2026/03/note.md'): MemoryPlace {
  return { path: `main/memories/${inside}`, stream: 'main', location: 'memories', relativeId: inside.replace(/\.md$/, '') };
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...utf8(part)] : part)));

function parseOk(input: string | Uint8Array, inside?: string, zone = 'UTC'): MemoryContent {
  const result = parseMemoryFile(typeof input === 'string' ? utf8(input) : input, place(inside), zone);
  if (!result.ok) throw new Error(`expected the memory to parse, got ${JSON.stringify(result.diagnostics)}`);
  return result.content;
}

/** The one diagnostic of a bad file (fails the test when there is not exactly one). */
function parseBad(input: string | Uint8Array, inside?: string): Diagnostic {
  const result = parseMemoryFile(typeof input === 'string' ? utf8(input) : input, place(inside), 'UTC');
  expect(result.ok, 'expected a diagnostic').toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.diagnostics).toHaveLength(1);
  const diagnostic = result.diagnostics[0]!;
  expect(diagnostic.path).toBe(place(inside).path);
  expect(diagnostic.severity).toBe('error');
  expect(diagnostic.hint, 'every diagnostic carries a hint').toBeTruthy();
  return diagnostic;
}

describe('writeMemoryFile → parseMemoryFile round trip', () => {
  const memories: NewMemory[] = [
    {
      date: '2026-03-01T10:00:00+01:00',
      title: 'Ünïcødé — 日本語 🎉',
      kind: 'session',
      tags: ['auth', 'b c', 'ü'],
      importance: 'high',
      id: 'projects/auth-refactor',
      extra: { project: 'memvault', score: 3, reviewed: true, nested: { a: [1, 2] } },
      body: 'Replaced JWT with server sessions.\n\n- Decision: `sessions` live in Postgres.\n- Ünïcødé bullet 🎉\n',
    },
    { date: '2026-02-13', body: 'Short note.' },
    {
      date: '2026-02-13T23:59:59Z',
      title: 'yes: no # not a comment',
      kind: 'decision',
      tags: ['123', 'true', 'null', '2026-01-01'],
      importance: 'pinned',
      extra: { note: '--- looks like a fence', empty: '', list: ['x', 'y'] },
      body: 'Above the rule.\n\n---\n\nBelow the rule, with "quotes" and \'apostrophes\'.',
    },
    {
      date: '2026-07-04 08:15',
      title: '"Quoted" title: with colon',
      kind: 'fact',
      importance: 'low',
      extra: { key: 'db.engine', value: 'postgres', scope: 'backend', confidence: 0.9 },
      body: '# Heading\n\n中文内容。第二句。\n\n```ts\nconst a = 1;\n```\n',
    },
  ];

  for (const [index, memory] of memories.entries()) {
    it(`memory ${index + 1} reads back with the same fields, extra keys and body`, () => {
      const text = writeMemoryFile(memory);
      const { memory: read, body, frontmatter } = parseOk(text);
      expect(read.date).toBe(memory.date.replace(' ', 'T'));
      expect(read.title).toBe(memory.title);
      expect(read.kind).toBe(memory.kind ?? 'note');
      expect(read.tags).toEqual(memory.tags ?? []);
      expect(read.importance).toBe(memory.importance ?? 'normal');
      expect(read.id).toBe(memory.id ?? place().relativeId);
      for (const [key, value] of Object.entries(memory.extra ?? {})) expect(frontmatter[key], `extra key \`${key}\``).toEqual(value);
      expect(body).toBe(memory.body.trim());
    });
  }

  it('a written file is written again identically after reading (stable serialisation)', () => {
    const memory = memories[0]!;
    const text = writeMemoryFile(memory);
    const { body, frontmatter } = parseOk(text);
    const { date, id, title, kind, tags, importance, ...extra } = frontmatter as Record<string, unknown>;
    const again = writeMemoryFile({
      date: String(date),
      id: id as string,
      title: title as string,
      kind: kind as string,
      tags: tags as string[],
      importance: importance as NewMemory['importance'],
      extra,
      body,
    });
    expect(again).toBe(text);
  });

  it('unknown frontmatter keys are passed through untouched', () => {
    const { frontmatter } = parseOk(
      '---\ndate: 2026-01-01\nproject: x\nnested: {a: 1, b: [true, null]}\nvalid_from: 2026-01-01\n---\nbody\n',
    );
    expect(frontmatter).toEqual({ date: '2026-01-01', project: 'x', nested: { a: 1, b: [true, null] }, valid_from: '2026-01-01' });
  });
});

describe('the date of a memory', () => {
  it('comes from `date`', () => {
    const { memory } = parseOk('---\ndate: 2026-03-04\n---\nHi\n');
    expect([memory.date, memory.day, memory.minute]).toEqual(['2026-03-04', '2026-03-04', 0]);
  });

  it('comes from `created` when there is no `date`', () => {
    const { memory } = parseOk('---\ncreated: 2026-03-04T09:30:00Z\n---\nHi\n');
    expect([memory.day, memory.minute]).toEqual(['2026-03-04', 570]);
  });

  it('`date` wins over `created`', () => {
    const { memory } = parseOk('---\ndate: 2026-01-02\ncreated: 2026-01-01\n---\nHi\n');
    expect(memory.day).toBe('2026-01-02');
  });

  it('comes from the file name when the frontmatter has none', () => {
    const { memory } = parseOk('---\ntitle: Standup\n---\nHi\n', 'misc/2026-03-05-standup.md');
    expect(memory.day).toBe('2026-03-05');
    expect(memory.title).toBe('Standup');
  });

  it('comes from the file name when there is no frontmatter at all', () => {
    const { memory, body } = parseOk('Just a line of text.\n', '2026-03-05.md');
    expect(memory.day).toBe('2026-03-05');
    expect(body).toBe('Just a line of text.');
  });

  it('a datetime with an offset maps to its day in the configured zone', () => {
    const text = '---\ndate: 2026-03-01T23:30:00-05:00\n---\nLate evening in New York.\n';
    const utc = parseOk(text, undefined, 'UTC').memory;
    const newYork = parseOk(text, undefined, 'America/New_York').memory;
    expect([utc.day, utc.minute]).toEqual(['2026-03-02', 4 * 60 + 30]);
    expect([newYork.day, newYork.minute]).toEqual(['2026-03-01', 23 * 60 + 30]);
    // The original text, offset included, is kept.
    expect(utc.date).toBe('2026-03-01T23:30:00-05:00');
    expect(newYork.date).toBe('2026-03-01T23:30:00-05:00');
  });

  it('a datetime without an offset is read in the configured zone', () => {
    const { memory } = parseOk('---\ndate: 2026-03-01T10:00:00\n---\nHi\n', undefined, 'Asia/Tokyo');
    expect([memory.day, memory.minute]).toEqual(['2026-03-01', 600]);
  });

  it('a bare date is that day in every zone', () => {
    for (const zone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      expect(parseOk('---\ndate: 2026-03-01\n---\nHi\n', undefined, zone).memory.day).toBe('2026-03-01');
    }
  });
});

describe('the id of a memory', () => {
  it('defaults to the path inside memories/ without .md', () => {
    expect(parseOk('---\ndate: 2026-01-01\n---\nHi\n', '2026/01/standup.md').memory.id).toBe('2026/01/standup');
  });

  it('frontmatter `id` wins', () => {
    expect(parseOk('---\ndate: 2026-01-01\nid: custom/id\n---\nHi\n', '2026/01/standup.md').memory.id).toBe('custom/id');
  });

  it('a numeric `id` is read as text', () => {
    expect(parseOk('---\ndate: 2026-01-01\nid: 42\n---\nHi\n').memory.id).toBe('42');
  });
});

describe('fields and their defaults', () => {
  it('kind defaults to note, importance to normal, tags to none', () => {
    const { memory } = parseOk('---\ndate: 2026-01-01\n---\nHi\n');
    expect([memory.kind, memory.importance, memory.tags, memory.title]).toEqual(['note', 'normal', [], undefined]);
  });

  it('tags may be written as a comma-separated string', () => {
    expect(parseOk('---\ndate: 2026-01-01\ntags: auth, backend\n---\nHi\n').memory.tags).toEqual(['auth', 'backend']);
  });

  it('a pinned memory makes its lead sentence must-keep; an unpinned one does not', () => {
    const text = (importance: string) =>
      `---\ndate: 2026-01-01\nimportance: ${importance}\n---\nNever deploy on Fridays here. The staging box is shared.\n`;
    const pinned = parseOk(text('pinned')).sentences;
    expect(pinned.map((s) => s.text)).toEqual(['Never deploy on Fridays here.', 'The staging box is shared.']);
    expect(pinned[0]!.mustKeep).toContain('pinned');
    expect(parseOk(text('high')).sentences.some((s) => s.mustKeep.includes('pinned'))).toBe(false);
  });

  it('a file with a byte-order mark parses like one without', () => {
    const { memory, body } = parseOk('\uFEFF---\ndate: 2026-01-01\ntitle: a\n---\nBody\n');
    expect([memory.day, memory.title, body]).toEqual(['2026-01-01', 'a', 'Body']);
  });

  it('a file with Windows line endings (CRLF) reads the same values as with LF', () => {
    const text = '---\r\ndate: 2026-01-01\r\nkind: session\r\nimportance: high\r\n---\r\nBody line.\r\n';
    const result = parseMemoryFile(utf8(text), place(), 'UTC');
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.content.memory.kind).toBe('session');
    expect(result.content.memory.importance).toBe('high');
    expect(result.content.memory.day).toBe('2026-01-01');
  });
});

describe('bad files give exactly one diagnostic with rule, line, column and hint', () => {
  it('broken YAML: duplicate key (memory/frontmatter)', () => {
    const d = parseBad('---\ndate: 2026-01-01\ndate: 2026-01-02\n---\nBody\n');
    expect(d).toMatchObject({ rule: 'memory/frontmatter', line: 3, column: 1 });
    expect(d.reason).toMatch(/YAML/);
  });

  it('broken YAML: unclosed flow sequence is reported on its line (memory/frontmatter)', () => {
    const d = parseBad('---\ndate: 2026-01-01\ntags: [a, b\n---\nBody\n');
    expect(d).toMatchObject({ rule: 'memory/frontmatter', line: 3 });
  });

  it('frontmatter that is a list, not a mapping (memory/frontmatter)', () => {
    const d = parseBad('---\n- a\n- b\n---\nBody\n');
    expect(d).toMatchObject({ rule: 'memory/frontmatter', line: 2, column: 1 });
    expect(d.reason).toMatch(/mapping/);
  });

  it('no date and no date in the file name (memory/no-date)', () => {
    const d = parseBad('---\ntitle: x\n---\nHi\n', 'misc/notes.md');
    expect(d).toMatchObject({ rule: 'memory/no-date', line: 1, column: 1 });
    expect(d.hint).toContain('date:');
  });

  it('impossible date 2026-02-30 points at the `date:` value (memory/invalid-date)', () => {
    const d = parseBad('---\ntitle: x\ndate: 2026-02-30\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/invalid-date', line: 3, column: 7 });
    expect(d.reason).toContain('2026-02-30');
  });

  it('impossible `created:` points at its value (memory/invalid-date)', () => {
    const d = parseBad('---\ntitle: x\ncreated: 2026-02-30\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/invalid-date', line: 3, column: 10 });
  });

  it('impossible time 25:00 (memory/invalid-date)', () => {
    const d = parseBad('---\ndate: 2026-01-01T25:00:00Z\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/invalid-date', line: 2, column: 7 });
  });

  it('a date that is a number, not ISO text (memory/invalid-date)', () => {
    const d = parseBad('---\ntitle: t\ndate: 20260101\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/invalid-date', line: 3, column: 7 });
  });

  it('an impossible date in the file name (memory/invalid-date)', () => {
    const d = parseBad('Body\n', '2026-02-30-notes.md');
    expect(d.rule).toBe('memory/invalid-date');
    expect(d.reason).toContain('2026-02-30');
  });

  it('a NUL byte, at its line and column (memory/binary)', () => {
    const d = parseBad(bytes('---\ndate: 2026-01-01\n---\nab', [0, 0x41]));
    expect(d).toMatchObject({ rule: 'memory/binary', line: 4, column: 3 });
  });

  it('an invalid UTF-8 byte on line 3 (memory/encoding)', () => {
    const d = parseBad(bytes('---\ndate: 2026-01-01\nti', [0xff, 0xfe], '\n---\nBody\n'));
    expect(d).toMatchObject({ rule: 'memory/encoding', line: 3, column: 3 });
    expect(d.hint).toMatch(/UTF-8/);
  });

  it('a truncated multi-byte sequence is reported at its first byte (memory/encoding)', () => {
    // `abc` then 0xC3 (a lead byte) followed by `(`, which cannot continue it: the bad byte is column 4.
    const d = parseBad(bytes('line one\nline two\nabc', [0xc3], '(\n'), '2026-01-01.md');
    expect(d).toMatchObject({ rule: 'memory/encoding', line: 3, column: 4 });
  });

  it('the column of an encoding error counts characters, not bytes (memory/encoding)', () => {
    // `Grüße ` is 6 characters (8 bytes): an editor shows the bad byte in column 7.
    const d = parseBad(bytes('---\ndate: 2026-01-01\n---\nGrüße ', [0xff], '\n'));
    expect(d).toMatchObject({ rule: 'memory/encoding', line: 4, column: 7 });
  });

  it('an empty file (memory/empty)', () => {
    expect(parseBad('')).toMatchObject({ rule: 'memory/empty', line: 1, column: 1 });
  });

  it('a whitespace-only file (memory/empty)', () => {
    expect(parseBad('  \n\t\n\n   ', '2026-01-01.md')).toMatchObject({ rule: 'memory/empty', line: 1, column: 1 });
  });

  it('`importance: urgent` points at the value and lists the allowed values (memory/schema)', () => {
    const d = parseBad('---\ndate: 2026-01-01\nimportance: urgent\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/schema', line: 3, column: 13 });
    expect(d.reason).toContain('importance');
    for (const allowed of ['low', 'normal', 'high', 'pinned']) expect(d.reason).toContain(allowed);
  });

  it('tags that are a mapping (memory/schema)', () => {
    const d = parseBad('---\ndate: 2026-01-01\ntags: {a: 1}\n---\nHi\n');
    expect(d).toMatchObject({ rule: 'memory/schema', line: 3, column: 7 });
    expect(d.reason).toContain('tags');
  });
});
