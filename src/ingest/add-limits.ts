import { CONTROL_CHARACTER } from '../text/safe-text.js';
import { UserError } from '../util/errors.js';
import { MAX_FILE_BYTES } from '../vault/scan.js';

/**
 * What `memvault add` and the MCP tool `add_memory` accept (both go through
 * `addMemory`, which calls these): a memory the build will read. The build
 * reports a file over 1 MiB (`memory/too-large`) or holding a NUL byte
 * (`memory/binary`) and leaves it out, so add refuses them before anything
 * is written, with a reason a person (or an agent) can act on.
 */

/** Longest title, in characters: one line, well under the build's 64 KiB of frontmatter. */
export const MAX_TITLE_CHARS = 1000;
/** Longest tag or kind, in characters. */
export const MAX_LABEL_CHARS = 100;
/** Most tags on one memory. */
export const MAX_TAGS = 100;

export interface AddInput {
  text: string;
  title?: string | undefined;
  tags?: readonly string[] | undefined;
  kind?: string | undefined;
}

/**
 * Refuses (`UserError`) a memory text over the build's file limit, a control
 * character in any field, and a title, tag or kind that is not one short line.
 * Checked on the input as given, before redaction (so 5 MB are refused at once).
 *
 * @example
 *   checkAddInput({ text: 'a\u0000b' }); // throws: the memory text holds a NUL byte (U+0000) at line 1, column 2
 */
export function checkAddInput(input: AddInput): void {
  const bytes = Buffer.byteLength(input.text, 'utf8');
  if (bytes > MAX_FILE_BYTES) throw tooLarge(`the memory text is ${count(bytes)} bytes`);
  checkControls('the memory text', input.text);
  if (input.title !== undefined) checkLine('the title', input.title, MAX_TITLE_CHARS);
  const tags = input.tags ?? [];
  if (tags.length > MAX_TAGS) throw new UserError('add/field', `${count(tags.length)} tags; a memory takes at most ${MAX_TAGS}`);
  for (const tag of tags) checkLine(`the tag \`${shown(tag)}\``, tag, MAX_LABEL_CHARS);
  if (input.kind !== undefined) checkLine(`the kind \`${shown(input.kind)}\``, input.kind, MAX_LABEL_CHARS);
}

/** Refuses a rendered memory file the build would not read for its size (the text fit, its frontmatter did not). */
export function checkMemoryFileSize(file: string): void {
  const bytes = Buffer.byteLength(file, 'utf8');
  if (bytes > MAX_FILE_BYTES) throw tooLarge(`the memory file would be ${count(bytes)} bytes`);
}

function tooLarge(what: string): UserError {
  return new UserError('add/too-large', `${what}; a memory file holds at most 1 MiB (${count(MAX_FILE_BYTES)} bytes), the build's limit`);
}

function checkControls(what: string, text: string): void {
  // Terminal escapes start with one of them (ESC, CSI).
  const match = CONTROL_CHARACTER.exec(text);
  if (!match) return;
  const code = match[0].charCodeAt(0);
  const before = text.slice(0, match.index).split('\n');
  const line = before.length;
  const column = [...before[before.length - 1]!].length + 1;
  const name = code === 0 ? 'a NUL byte' : code === 0x1b ? 'an escape character' : 'a control character';
  throw new UserError(
    'add/control',
    `${what} holds ${name} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at line ${line}, column ${column}`,
  );
}

function checkLine(what: string, value: string, max: number): void {
  if (/[\r\n]/.test(value)) throw new UserError('add/field', `${what} must be one line`);
  checkControls(what, value);
  const chars = [...value].length;
  if (chars > max) throw new UserError('add/field', `${what} is ${count(chars)} characters; at most ${count(max)}`);
}

/** A value quoted in a message: its start, on one line. */
function shown(value: string): string {
  const line = value.replace(/\s+/g, ' ');
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

const count = (n: number): string => n.toLocaleString('en-US');
