import * as z from 'zod';
import { type DayAndMinute, dayOfInstant } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { lazy } from '../util/lazy.js';
import { parseFrontmatter, stringifyFrontmatter } from './frontmatter.js';
import { headingSpans, markdownNestingProblem, parseMarkdown } from './markdown.js';
import type { Diagnostic, Importance, Memory, MemoryContent, MemoryLocation } from './model.js';
import { extractSentences } from './sentences.js';

/** Where a memory file sits: the loader derives stream, location and default id from its path. */
export interface MemoryPlace {
  /** Vault-relative POSIX path, e.g. `main/memories/2026/02/2026-02-13-auth.md`. */
  path: string;
  stream: string;
  location: MemoryLocation;
  /** Path inside `memories/` (or inside `archive/<quarter>/`), without `.md`: the default id. */
  relativeId: string;
}

export type MemoryParseResult = { ok: true; content: MemoryContent } | { ok: false; diagnostics: Diagnostic[] };

/** A memory read without its markdown parsed: what loading it needs (`readMemoryFile`). */
export type MemoryReadResult =
  | { ok: true; content: Omit<MemoryContent, 'sentences' | 'headings'> }
  | { ok: false; diagnostics: Diagnostic[] };

// Built on first use (~15 ms): a rebuild that parses no memory never needs it.
const frontmatterSchema = lazy(() => {
  const scalarText = z.union([z.string(), z.number()]).transform(String);
  return z.looseObject({
    id: scalarText.optional(),
    date: z.unknown().optional(),
    created: z.unknown().optional(),
    title: scalarText.optional(),
    kind: z.string().min(1).optional(),
    tags: z
      .union([z.array(scalarText), scalarText])
      .optional()
      .transform((tags) =>
        tags === undefined
          ? []
          : Array.isArray(tags)
            ? tags
            : tags
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
      ),
    importance: z.enum(['low', 'normal', 'high', 'pinned']).optional(),
  });
});

const FILE_NAME_DATE = /(\d{4}-\d{2}-\d{2})/;
const DATE_HINT = 'use an existing calendar date of a year from 1000 to 9999, in ISO 8601 form, e.g. `2026-02-13T14:05:00+01:00`';

/**
 * Reads one memory file, its markdown parsed into sentences and headings.
 * Never throws for bad content: a file that cannot be used yields diagnostics
 * (`path:line:col reason`, with a hint) instead.
 */
export function parseMemoryFile(bytes: Uint8Array, place: MemoryPlace, zone: string): MemoryParseResult {
  const read = readMemoryFile(bytes, place, zone);
  if (!read.ok) return read;
  return { ok: true, content: { ...read.content, ...parseMemoryBody(read.content.body, read.content.memory.importance) } };
}

/**
 * The sentences and top-level headings of a memory's body (remark): the part of
 * reading a memory that only a stage using its text needs. A pinned memory's
 * lead sentence is marked must-keep.
 */
export function parseMemoryBody(body: string, importance: Importance): Pick<MemoryContent, 'sentences' | 'headings'> {
  const tree = parseMarkdown(body);
  return { sentences: extractSentences(tree, { pinned: importance === 'pinned' }), headings: headingSpans(tree) };
}

/**
 * Reads one memory file without parsing its markdown: the checks and the
 * metadata of `parseMemoryFile` (the same diagnostics for the same bytes), at
 * a fraction of its cost. A load reads every new file this way and parses the
 * bodies of those a stage will use (`parseMemoryBody`).
 */
export function readMemoryFile(bytes: Uint8Array, place: MemoryPlace, zone: string): MemoryReadResult {
  const fail = (problem: Problem): MemoryReadResult => ({
    ok: false,
    diagnostics: [
      {
        path: place.path,
        line: problem.line,
        column: problem.column,
        severity: 'error',
        reason: problem.reason,
        hint: problem.hint,
        rule: problem.rule,
      },
    ],
  });
  const text = decodeMemoryText(bytes);
  if (typeof text !== 'string') return fail(text);
  const checked = checkedFrontmatter(text);
  if ('rule' in checked) return fail(checked);
  const { fm, data } = checked;
  const date = memoryDate(fm, data, place, zone);
  if ('rule' in date) return fail(date);
  const problem = idProblem(fm, data) ?? nestingProblem(fm);
  if (problem) return fail(problem);

  const importance: Importance = data.importance ?? 'normal';
  const memory: Memory = {
    id: data.id ?? place.relativeId,
    stream: place.stream,
    path: place.path,
    location: place.location,
    date: date.text,
    day: date.day,
    minute: date.minute,
    title: data.title,
    kind: data.kind ?? 'note',
    tags: data.tags,
    importance,
    sha256: sha256(bytes),
  };
  const duplicateOf = typeof fm.data.duplicate_of === 'string' ? fm.data.duplicate_of.trim() : '';
  if (duplicateOf && duplicateOf !== memory.id) memory.duplicateOf = duplicateOf;
  return { ok: true, content: { memory, body: fm.body.trim(), frontmatter: fm.data } };
}

/** Why a memory file cannot be read, and where: a diagnostic without its path and severity. */
type Problem = { line: number; column: number; reason: string; hint: string; rule: string };

type Frontmatter = ReturnType<typeof parseFrontmatter>;
type MemoryFrontmatter = z.output<ReturnType<typeof frontmatterSchema>>;

/**
 * The file's text, or why it is none: a NUL byte, invalid UTF-8, git conflict
 * markers (looked for before the frontmatter: markers there would read as a
 * YAML error, and in the body as text of the memory), or nothing but blanks.
 */
function decodeMemoryText(bytes: Uint8Array): string | Problem {
  const at = (offset: number) => {
    const [line, column] = lineColAt(bytes, offset);
    return { line, column };
  };
  const nul = bytes.indexOf(0);
  if (nul !== -1)
    return {
      ...at(nul),
      reason: 'binary content (a NUL byte) in a memory file',
      hint: 'memories are UTF-8 markdown; move binary files out of `memories/`',
      rule: 'memory/binary',
    };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return { ...at(offset), reason: 'not valid UTF-8 text', hint: 're-save the file as UTF-8 in your editor', rule: 'memory/encoding' };
  }
  const marker = conflictMarkerLine(text);
  if (marker !== undefined)
    return {
      line: marker,
      column: 1,
      reason: 'git conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`): a merge left two versions in this memory',
      hint:
        'resolve the merge in the file: keep both memories as two files (each side under its own name) or merge them by hand, ' +
        'remove the `<<<<<<<`, `=======` and `>>>>>>>` lines, then build again',
      rule: 'memory/conflict-markers',
    };
  if (text.trim().length === 0)
    return {
      line: 1,
      column: 1,
      reason: 'empty memory file',
      hint: 'write the memory text (and a `date:` in frontmatter), or delete the file',
      rule: 'memory/empty',
    };
  return text;
}

/**
 * The frontmatter, parsed and checked against the schema. Where a file sits
 * decides what it is: a memory saying it is a generated summary would be read
 * differently by a cold parse and a warm cache once archived, so the key that
 * marks generated files is refused in memories.
 */
function checkedFrontmatter(text: string): { fm: Frontmatter; data: MemoryFrontmatter } | Problem {
  const fm = parseFrontmatter(text);
  if (fm.error) {
    const hint = fm.error.hint ?? 'fix the YAML between the `---` lines (indentation, quotes, brackets)';
    return { line: fm.error.line, column: fm.error.column, reason: fm.error.reason, hint, rule: fm.error.rule ?? 'memory/frontmatter' };
  }
  if (Object.hasOwn(fm.data, 'memvault')) {
    const hint = 'remove the `memvault:` line: a file under `memories/` is always a memory';
    const reason = 'the `memvault` key is reserved for files memvault generates';
    return { ...fm.positionOf('memvault'), reason, hint, rule: 'memory/reserved-key' };
  }
  const parsed = frontmatterSchema().safeParse(fm.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const allowed = key === 'importance' ? ' (one of low, normal, high, pinned)' : '';
    const reason = `\`${key}\`: ${issue.message}${allowed}`;
    return { ...fm.positionOf(key), reason, hint: 'fix the value in the frontmatter', rule: 'memory/schema' };
  }
  return { fm, data: parsed.data };
}

/** The memory's date as written (`date:`, else `created:`, else the file name's) and the day and minute it falls on in `zone`. */
function memoryDate(
  fm: Frontmatter,
  data: MemoryFrontmatter,
  place: MemoryPlace,
  zone: string,
): { text: string; day: string; minute: DayAndMinute['minute'] } | Problem {
  const dateKey = data.date !== undefined ? 'date' : data.created !== undefined ? 'created' : undefined;
  let dateText: string;
  if (dateKey) {
    const raw = fm.data[dateKey];
    if (typeof raw !== 'string') {
      return {
        ...fm.positionOf(dateKey),
        reason: `\`${dateKey}\` must be an ISO 8601 date or datetime, got \`${String(raw)}\``,
        hint: 'write e.g. `date: 2026-02-13` or `date: 2026-02-13T14:05:00+01:00`',
        rule: 'memory/invalid-date',
      };
    }
    dateText = raw.trim().replace(/^(\d{4}-\d{2}-\d{2}) (\d)/, '$1T$2');
  } else {
    const fromName = FILE_NAME_DATE.exec(place.path.split('/').pop() ?? '')?.[1];
    if (!fromName) {
      return {
        line: 1,
        column: 1,
        reason: 'memory has no date',
        hint: 'add `date: YYYY-MM-DD` (or a datetime) to the frontmatter, or put an ISO date in the file name',
        rule: 'memory/no-date',
      };
    }
    dateText = fromName;
  }
  const when = dayOfInstant(dateText, zone);
  if (!when) {
    const pos = dateKey ? fm.positionOf(dateKey) : { line: 1, column: 1 };
    const where = dateKey ? `\`${dateKey}\`` : 'the date in the file name';
    return { ...pos, reason: `${where} is not a real date: \`${dateText}\``, hint: DATE_HINT, rule: 'memory/invalid-date' };
  }
  return { text: dateText, day: when.day, minute: when.minute };
}

/** An `id:` that is not a valid memory id. */
function idProblem(fm: Frontmatter, data: MemoryFrontmatter): Problem | undefined {
  const problem = data.id === undefined ? undefined : memoryIdProblem(data.id);
  if (!problem) return undefined;
  const hint = 'use letters, digits, `-`, `_`, `.` and `/` between names, e.g. `id: 2026/02/auth-decision`';
  return { ...fm.positionOf('id'), reason: `\`id\` ${problem}: ${JSON.stringify(data.id)}`, hint, rule: 'memory/invalid-id' };
}

/** Markdown nested deeper than memories need (lists, quotes, emphasis). */
function nestingProblem(fm: Frontmatter): Problem | undefined {
  const nesting = markdownNestingProblem(fm.body);
  if (!nesting) return undefined;
  return {
    line: fm.bodyLine + nesting.line - 1,
    column: 1,
    reason: `markdown nested too deep: ${nesting.what} (limit ${nesting.limit})`,
    hint: 'flatten the lists, quotes or emphasis: memories are read as sentences, deep nesting carries nothing',
    rule: 'memory/too-deep',
  };
}

/**
 * The line of the first git conflict in `text`, or undefined: a `<<<<<<<` line, then a `=======` line, then a
 * `>>>>>>>` line, each at the start of its line as git writes them (seven characters, then a space and a label, or the
 * line's end). All three in order, so a lone `=======` (a setext heading's underline) is never one.
 *
 * @example
 *   conflictMarkerLine('---\n<<<<<<< HEAD\ndate: 2026-02-13\n=======\ndate: 2026-02-14\n>>>>>>> origin/main\n---\nText.\n'); // 2
 */
export function conflictMarkerLine(text: string): number | undefined {
  if (!text.includes('<<<<<<<')) return undefined;
  const lines = text.split('\n');
  const marker = (line: string, char: string) => line.startsWith(char.repeat(7)) && /^(?: .*)?\r?$/.test(line.slice(7));
  for (let start = 0; start < lines.length; start++) {
    if (!marker(lines[start]!, '<')) continue;
    let middle = start + 1;
    while (middle < lines.length && !marker(lines[middle]!, '=')) middle++;
    for (let end = middle + 1; end < lines.length; end++) if (marker(lines[end]!, '>')) return start + 1;
    return undefined;
  }
  return undefined;
}

/**
 * Why an `id:` cannot be used, or undefined. Ids name memories in summaries,
 * the index and archive paths, so they are relative names: no `..` or `.`
 * parts, no leading `/`, no backslashes or drive letters, no control
 * characters, at most 200 characters.
 */
export function memoryIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'is empty';
  if (id.length > 200) return 'is longer than 200 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'holds a control character';
  if (id.includes('\\') || /^[a-zA-Z]:/.test(id)) return 'holds a backslash or a drive letter';
  if (id.startsWith('/')) return 'is an absolute path';
  if (id.split('/').some((part) => part === '..' || part === '.' || part === '')) return 'holds an empty, `.` or `..` path part';
  return undefined;
}

/** Fields a person or tool sets when writing a memory. */
export interface NewMemory {
  date: string;
  title?: string;
  kind?: string;
  tags?: string[];
  importance?: Importance;
  id?: string;
  /** Any further frontmatter keys, written after the known ones. */
  extra?: Record<string, unknown>;
  body: string;
}

/**
 * Serialises a memory to file text; `parseMemoryFile` reads it back to the
 * same fields and body (the pair is tested together).
 */
export function writeMemoryFile(memory: NewMemory): string {
  const data: Record<string, unknown> = { date: memory.date };
  if (memory.id !== undefined) data.id = memory.id;
  if (memory.title !== undefined) data.title = memory.title;
  if (memory.kind !== undefined) data.kind = memory.kind;
  if (memory.tags !== undefined && memory.tags.length > 0) data.tags = memory.tags;
  if (memory.importance !== undefined) data.importance = memory.importance;
  Object.assign(data, memory.extra);
  return stringifyFrontmatter(data, `${memory.body.trim()}\n`);
}

/** 1-based line and column (in characters, as an editor shows them) of a byte offset. */
function lineColAt(bytes: Uint8Array, offset: number): [number, number] {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < bytes.length; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const prefix = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset));
  return [line, [...prefix].length + 1];
}

/** Offset of the first byte that makes the content invalid UTF-8 (the start of a broken sequence). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  // Binary search for the shortest prefix that fails to decode.
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    try {
      // `stream` lets a prefix end inside a valid multi-byte sequence without failing.
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid + 1), { stream: true });
      low = mid + 1;
    } catch {
      high = mid;
    }
  }
  // A sequence cut short fails only at the byte after it: report its lead byte.
  let lead = low;
  while (lead > 0 && lead > low - 3 && (bytes[lead - 1]! & 0xc0) === 0x80) lead--;
  if (lead > 0 && bytes[lead - 1]! >= 0xc0) {
    const start = lead - 1;
    const first = bytes[start]!;
    const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : 2;
    if (start + length > low) return start;
  }
  return low;
}
