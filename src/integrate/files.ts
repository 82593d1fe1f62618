import { mkdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { writeFileAtomic } from '../util/atomic.js';
import { UserError } from '../util/errors.js';
import { isMemvaultHook } from './claude-code.js';

/**
 * What `memvault integrate` does to one file of the project, planned before
 * anything is written: the text as it is (`before`, undefined when there is no
 * file) and as it should be (`after`), with what memvault added and what it
 * found and kept. Merging never drops or rewrites what a person wrote: JSON is
 * parsed and written back with memvault's entries added; TOML and markdown get
 * memvault's part appended, so comments and layout stay as they were.
 */

export type Json = Record<string, unknown>;

export interface FileChange {
  /** Path relative to the project. */
  path: string;
  before: string | undefined;
  after: string;
  added: string[];
  kept: string[];
  changed: boolean;
}

/** How memvault is started (`memvault`, `npx memvault`): the command and its arguments. */
export function commandWords(command: string): [string, ...string[]] {
  const words = command.trim().split(/\s+/).filter(Boolean);
  return words.length > 0 ? (words as [string, ...string[]]) : ['memvault'];
}

/** A project file's text; undefined when there is none. */
export function readProjectFile(root: string, relative: string): string | undefined {
  try {
    return readFileSync(path.join(root, relative), 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes the files that change (each atomically), creating their folders. */
export function writeChanges(root: string, changes: readonly FileChange[]): void {
  for (const change of changes) {
    if (!change.changed) continue;
    const target = path.join(root, change.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileAtomic(target, change.after);
  }
}

/** A JSON file's object (`{}` when missing or empty). Anything else is a `UserError`: such a file is never overwritten. */
export function parseJsonObject(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError('integrate/json', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('integrate/json', `${file} does not hold a JSON object`);
  return value as Json;
}

/** An object-valued key of a settings object (`{}` when absent); any other value is a `UserError`. */
export function objectAt(value: unknown, file: string, key: string): Json {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('integrate/settings', `${file}: \`${key}\` is not an object`);
  return value as Json;
}

/** A JSON file's change: the object written back (two-space indent, final newline) when memvault added something. */
export function jsonChange(file: string, before: string | undefined, after: Json, added: string[], kept: string[]): FileChange {
  const changed = added.length > 0;
  return { path: file, before, after: changed ? `${JSON.stringify(after, null, 2)}\n` : (before ?? ''), added, kept, changed };
}

/**
 * Adds memvault's MCP server under `servers[key]` (`mcpServers`) unless a
 * server named `memvault` is there already (one a person set up differently
 * is kept as it is).
 */
export function addMcpServer(settings: Json, file: string, key: string, server: Json, added: string[], kept: string[]): Json {
  const servers = objectAt(settings[key], file, key);
  for (const name of Object.keys(servers)) if (name !== 'memvault') kept.push(`${key}.${name}`);
  if (servers.memvault !== undefined) {
    kept.push(`${key}.memvault`);
    return settings;
  }
  added.push(`${key}.memvault`);
  return { ...settings, [key]: { ...servers, memvault: server } };
}

/** One hook memvault registers, in the matcher-group form Claude Code, Codex and Gemini CLI share. */
export interface GroupHookSpec {
  /** The agent's event name (`SessionStart`, `PreCompress`, `Stop`…). */
  event: string;
  /** memvault's hook (`memvault hook <hook>`). */
  hook: string;
  matcher?: string;
  /** The hook's fields besides `type` and `command` (`timeout`, `name`, `statusMessage`). */
  fields: Json;
}

/**
 * Adds memvault's hooks to a `hooks` object of matcher groups
 * (`{ Event: [{ matcher?, hooks: [{ type: "command", command, … }] }] }`),
 * each unless a memvault hook for that event is there already.
 */
export function addGroupHooks(
  hooks: Json,
  file: string,
  specs: readonly GroupHookSpec[],
  command: (hook: string) => string,
  added: string[],
  kept: string[],
): Json {
  const next: Json = { ...hooks };
  for (const spec of specs) {
    const groups = hooks[spec.event];
    if (groups !== undefined && !Array.isArray(groups))
      throw new UserError('integrate/settings', `${file}: hooks.${spec.event} is not a list`);
    const list = (groups ?? []) as { hooks?: { command?: unknown }[] }[];
    if (list.some((group) => (group?.hooks ?? []).some((h) => isMemvaultHook(h?.command, spec.hook)))) {
      kept.push(`hooks.${spec.event} (memvault hook ${spec.hook})`);
      continue;
    }
    const group = {
      ...(spec.matcher ? { matcher: spec.matcher } : {}),
      hooks: [{ type: 'command', command: command(spec.hook), ...spec.fields }],
    };
    next[spec.event] = [...list, group];
    added.push(`hooks.${spec.event}`);
  }
  for (const event of Object.keys(hooks))
    if (
      Array.isArray(hooks[event]) &&
      (hooks[event] as { hooks?: { command?: unknown }[] }[]).some((g) => !(g?.hooks ?? []).every((h) => isMemvaultHook(h?.command)))
    )
      kept.push(`hooks.${event} (other hooks)`);
  return next;
}

/** The markers around memvault's part of a markdown file a person also writes (AGENTS.md, GEMINI.md). */
const BEGIN_MARK = '<!-- memvault:begin';
export const BLOCK_BEGIN = `${BEGIN_MARK} (written by \`memvault integrate\`; edit freely, it is not rewritten) -->`;
export const BLOCK_END = '<!-- memvault:end -->';

/** memvault's part of a markdown file, appended once: a file that has the begin marker keeps its text as it is. */
export function markdownBlockChange(file: string, before: string | undefined, block: string): FileChange {
  if (before?.includes(BEGIN_MARK)) {
    return { path: file, before, after: before, added: [], kept: ['memvault instructions'], changed: false };
  }
  const text = `${BLOCK_BEGIN}\n${block.trim()}\n${BLOCK_END}\n`;
  const base = before === undefined || before.trim() === '' ? '' : `${before.replace(/\s*$/, '')}\n\n`;
  return {
    path: file,
    before,
    after: `${base}${text}`,
    added: ['memvault instructions'],
    kept: before?.trim() ? ['the rest of the file'] : [],
    changed: true,
  };
}

/** A whole file memvault owns (a Cursor rule): written when missing, kept as it is when there. */
export function ownedFileChange(file: string, before: string | undefined, text: string): FileChange {
  if (before !== undefined) return { path: file, before, after: before, added: [], kept: [file], changed: false };
  return { path: file, before, after: text, added: [file], kept: [], changed: true };
}

/**
 * Adds `[<table>.memvault]` to a TOML file by appending it (comments, order
 * and layout of the rest stay as they are), unless the table holds a
 * `memvault` entry already. The result is parsed again and must be the file's
 * old value plus exactly that entry; anything else (say `<table>` written as
 * an inline table, which TOML does not let a later table extend) is a
 * `UserError` that shows what to add by hand, and nothing is written.
 */
export function tomlTableChange(
  file: string,
  before: string | undefined,
  table: string,
  entry: Record<string, string | string[]>,
): FileChange {
  const old = parseTomlObject(before, file);
  const tables = objectAt(old[table], file, table);
  const kept = Object.keys(tables)
    .filter((name) => name !== 'memvault')
    .map((name) => `${table}.${name}`);
  if (tables.memvault !== undefined)
    return { path: file, before, after: before ?? '', added: [], kept: [...kept, `${table}.memvault`], changed: false };
  const lines = [`[${table}.memvault]`, ...Object.entries(entry).map(([key, value]) => `${key} = ${tomlValue(value)}`)];
  const snippet = `${lines.join('\n')}\n`;
  const base = before === undefined || before.trim() === '' ? '' : `${before.replace(/\s*$/, '')}\n\n`;
  const after = `${base}${snippet}`;
  let parsed: Json | undefined;
  try {
    parsed = parseTomlObject(after, file);
  } catch {
    parsed = undefined;
  }
  const expected = { ...old, [table]: { ...tables, memvault: entry } };
  // Compared as plain data (the parser's tables are objects of their own kind; dates become strings alike).
  if (!parsed || !isDeepStrictEqual(plain(parsed), plain(expected)))
    throw new UserError(
      'integrate/settings',
      `${file}: memvault's server cannot be appended without changing what is there (is \`${table}\` an inline table?)`,
      {},
      {
        hint: `add it by hand, then run this again:\n${snippet}`,
      },
    );
  return { path: file, before, after, added: [`${table}.memvault`], kept, changed: true };
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function parseTomlObject(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  try {
    return parseToml(text) as Json;
  } catch (error) {
    throw new UserError('integrate/json', `${file} is not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** A TOML string or array of strings (JSON's string escapes are TOML's basic-string escapes). */
function tomlValue(value: string | string[]): string {
  return Array.isArray(value) ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]` : JSON.stringify(value);
}
