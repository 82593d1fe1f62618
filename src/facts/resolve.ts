import { isMap, isSeq, parseDocument } from 'yaml';
import { UserError } from '../util/errors.js';
import type { Contradiction, Fact } from './model.js';

/**
 * `memvault resolve`: a person's decision about a contradiction, recorded in
 * the memories' own frontmatter as a normal edit (the next build commits it).
 * Nothing is deleted and the body of the file is kept byte for byte:
 *
 * - keep a: `supersedes: [<b's memory id>]` on a's memory (b stops holding when a starts);
 * - keep b: the same on b's memory;
 * - keep both: `compatible_with: [<other id>]` on both (they hold together, e.g. different contexts).
 *
 * A note goes to `resolution_notes` of the memory written to. Planning is
 * pure (`planResolution`); the command writes the planned files.
 */

export type Keep = 'a' | 'b' | 'both';

export interface FileEdit {
  /** Vault-relative path. */
  path: string;
  /** What is added, for the report: `supersedes: b-id`. */
  change: string;
}

export interface ResolutionPlan {
  contradiction: Contradiction;
  keep: Keep;
  edits: (FileEdit & { apply(raw: string): string })[];
}

export function planResolution(contradiction: Contradiction, keep: Keep, note: string | undefined, today: string): ResolutionPlan {
  const { a, b } = contradiction;
  if (a.memoryId === b.memoryId) {
    throw new UserError('fact/same-memory', `both facts of ${contradiction.id} are in ${a.path} (lines ${a.line} and ${b.line})`, {
      path: a.path,
    });
  }
  const noteFor = (other: Fact, verb: string) => (note ? `${today}: ${verb} ${other.memoryId}: ${note}` : undefined);
  const edit = (target: Fact, key: 'supersedes' | 'compatible_with', other: Fact, verb: string) => ({
    path: target.path,
    change: `${key}: ${other.memoryId}`,
    apply: (raw: string) => addToFrontmatter(raw, key, other.memoryId, noteFor(other, verb)),
  });
  const edits =
    keep === 'a'
      ? [edit(a, 'supersedes', b, 'kept over')]
      : keep === 'b'
        ? [edit(b, 'supersedes', a, 'kept over')]
        : [edit(a, 'compatible_with', b, 'holds together with'), edit(b, 'compatible_with', a, 'holds together with')];
  return { contradiction, keep, edits };
}

const FENCE_OPEN = /^---[a-z]*[ \t]*\r?\n/i;
const FENCE_CLOSE = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/**
 * Adds `id` to the list `key` of the file's YAML frontmatter (a single value
 * becomes a list; an id already there is not added twice) and appends `note`
 * to `resolution_notes`. Only those keys' text changes: every other line,
 * comment and the body stay byte for byte. A file without frontmatter gets one.
 */
export function addToFrontmatter(raw: string, key: string, id: string, note: string | undefined): string {
  const open = FENCE_OPEN.exec(raw);
  if (!open) return `---\n${key}: ${flowList([id])}\n${note ? `resolution_notes: ${flowList([note])}\n` : ''}---\n${raw}`;
  const after = raw.slice(open[0].length);
  const close = FENCE_CLOSE.exec(after);
  if (!close) throw new UserError('fact/frontmatter', 'the frontmatter is not closed by a `---` line', {});
  let matter = after.slice(0, close.index);
  matter = withListItem(matter, key, id);
  if (note) matter = withListItem(matter, 'resolution_notes', note);
  return `${open[0]}${matter}${after.slice(close.index)}`;
}

/** `matter` with `value` added to the list at `key`: the key's value is rewritten in place, or a line is appended. */
function withListItem(matter: string, key: string, value: string): string {
  const doc = parseDocument(matter);
  if (doc.errors.length > 0 || !(isMap(doc.contents) || doc.contents === null)) {
    const why = doc.errors[0]?.message.split('\n')[0] ?? 'not a mapping';
    throw new UserError('fact/frontmatter', `the frontmatter cannot be edited (${why})`, {});
  }
  const node = doc.get(key, true) as { range?: [number, number, number]; items?: unknown[] } | undefined;
  const current = doc.get(key);
  const items = Array.isArray((current as { toJSON?: () => unknown } | undefined)?.toJSON?.())
    ? ((current as { toJSON: () => unknown[] }).toJSON() as unknown[]).map(String)
    : current === undefined || current === null
      ? []
      : [String(current)];
  if (items.includes(value)) return matter;
  const list = flowList([...items, value]);
  if (!node?.range) {
    const base = matter === '' || matter.endsWith('\n') ? matter : `${matter}\n`;
    return `${base}${key}: ${list}\n`;
  }
  const [start, valueEnd] = node.range;
  // A block list's text starts on the line after the key: the replacement flow list sits after `key: `.
  const keyEnd = matter.lastIndexOf(':', start) + 1;
  const from = isSeq(node) && !matter.slice(keyEnd, start).includes('[') && matter.slice(keyEnd, start).includes('\n') ? keyEnd : start;
  // A block list's range ends after its last line break: keep one.
  const lineBreak = matter[valueEnd - 1] === '\n' ? '\n' : '';
  return `${matter.slice(0, from)}${from === keyEnd ? ' ' : ''}${list}${lineBreak}${matter.slice(valueEnd).replace(/^[ \t]*(?=\n)/, '')}`;
}

/** `[a, "b c: d"]`: plain ids as they are, anything YAML could misread double-quoted. */
function flowList(values: readonly string[]): string {
  return `[${values.map((value) => (/^[\w./#-]+$/.test(value) && !/^[-#]/.test(value) ? value : JSON.stringify(value))).join(', ')}]`;
}
