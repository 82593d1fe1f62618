import { isMap, isSeq, parseDocument } from 'yaml';
import { UserError } from '../util/errors.js';
import { frontmatterFence, MAX_YAML_ALIASES, opensFrontmatter } from './frontmatter.js';

/**
 * Small edits of a memory's YAML frontmatter made on a person's behalf
 * (`memvault resolve`, `memvault consolidate --apply`): only the edited key's
 * text changes; every other line, comment and the body stay byte for byte.
 */

/**
 * Adds `id` to the list `key` of the file's YAML frontmatter (a single value
 * becomes a list; an id already there is not added twice) and appends `note`
 * to `resolution_notes`. Only those keys' text changes: every other line,
 * comment and the body stay byte for byte. A file without frontmatter gets one.
 */
export function addToFrontmatter(raw: string, key: string, id: string, note: string | undefined): string {
  return editMatter(raw, key, (matter) => {
    const withId = withListItem(matter, key, id);
    return note ? withListItem(withId, 'resolution_notes', note) : withId;
  });
}

/**
 * Sets `key` to the scalar `value` (rewritten in place, or a line appended). Same guarantees as `addToFrontmatter`.
 */
export function setFrontmatterValue(raw: string, key: string, value: string): string {
  return editMatter(raw, key, (matter) => {
    const doc = parsedMatter(matter);
    const node = doc.get(key, true) as { range?: [number, number, number] } | undefined;
    const text = scalar(value);
    if (!node?.range) return appendLine(matter, `${key}: ${text}`);
    const [start, valueEnd] = node.range;
    const lineBreak = matter[valueEnd - 1] === '\n' ? '\n' : '';
    return `${matter.slice(0, start)}${text}${lineBreak}${matter.slice(valueEnd)}`;
  });
}

function editMatter(raw: string, key: string, edit: (matter: string) => string): string {
  const fence = frontmatterFence(raw);
  if (fence) return `${raw.slice(0, fence.matterStart)}${edit(fence.matter)}${raw.slice(fence.closeStart)}`;
  if (opensFrontmatter(raw))
    throw new UserError('fact/frontmatter', `the frontmatter is not closed by a \`---\` line (editing \`${key}\`)`, {});
  return `---\n${edit('')}---\n${raw}`;
}

function parsedMatter(matter: string) {
  const doc = parseDocument(matter);
  if (doc.errors.length > 0 || !(isMap(doc.contents) || doc.contents === null)) {
    const why = doc.errors[0]?.message.split('\n')[0] ?? 'not a mapping';
    throw new UserError('fact/frontmatter', `the frontmatter cannot be edited (${why})`, {});
  }
  return doc;
}

function appendLine(matter: string, line: string): string {
  const base = matter === '' || matter.endsWith('\n') ? matter : `${matter}\n`;
  return `${base}${line}\n`;
}

/** `matter` with `value` added to the list at `key`: the key's value is rewritten in place, or a line is appended. */
function withListItem(matter: string, key: string, value: string): string {
  const doc = parsedMatter(matter);
  const node = doc.get(key, true) as { range?: [number, number, number] } | undefined;
  // With the loader's alias limit: the file may have changed since it was loaded and checked.
  let data: Record<string, unknown> | null;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as Record<string, unknown> | null;
  } catch {
    throw new UserError('fact/frontmatter', `the frontmatter expands more than ${MAX_YAML_ALIASES} YAML aliases`, {});
  }
  const current: unknown = data?.[key];
  const items = Array.isArray(current) ? current.map(String) : current === undefined || current === null ? [] : [String(current)];
  if (items.includes(value)) return matter;
  const list = flowList([...items, value]);
  if (!node?.range) return appendLine(matter, `${key}: ${list}`);
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
  return `[${values.map(scalar).join(', ')}]`;
}

function scalar(value: string): string {
  return /^[\w./#-]+$/.test(value) && !/^[-#]/.test(value) ? value : JSON.stringify(value);
}
