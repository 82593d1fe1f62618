import { existsSync, fstatSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
// Only the index's reader: this file, cited-by.ts and the SQLite driver are the whole of what `memvault hook pre-tool`
// loads (bin.ts starts it directly).
import { type CitedEntry, openHookDatabase, readCitedBy } from '../citations/cited-by.js';

/**
 * `memvault hook pre-tool`: Claude Code's `PreToolUse` hook on Read, Edit and
 * Write. Before the agent touches a file, the memories that cite it (or a
 * folder holding it) — decisions, known errors, conventions — with how each
 * citation stands (verified, changed, moved, gone), once per file per
 * session, in at most 1,500 characters. Reads what the build writes (the
 * `cited_by` rows of the file and its folders in `.memvault/state.sqlite`):
 * no vault load, no git, no zod, not even the CLI's command parser (bin.ts
 * starts `runPreToolHook` directly). Never in the tool's way: on any problem
 * it prints nothing and exits 0.
 *
 * Input (stdin, documented at https://code.claude.com/docs/en/hooks):
 * `{ session_id, transcript_path, cwd, hook_event_name: "PreToolUse", tool_name, tool_input: { file_path, … } }`.
 * Output: `{ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext } }` (no permission decision:
 * the tool runs as it would have).
 */

/** Tools whose input names a file the agent is about to read or change. */
export const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
export const MAX_PRE_TOOL_CHARS = 1500;

export interface PreToolPayload {
  session?: string;
  cwd?: string;
  tool: string;
  file: string;
}

/** The payload's tool and file, or undefined when it is not a file tool's (or not a payload at all). */
export function preToolPayload(text: string): PreToolPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const tool = v.tool_name;
  const input = v.tool_input as Record<string, unknown> | undefined;
  if (typeof tool !== 'string' || !FILE_TOOLS.has(tool) || !input || typeof input !== 'object') return undefined;
  const file =
    typeof input.file_path === 'string' ? input.file_path : typeof input.notebook_path === 'string' ? input.notebook_path : undefined;
  if (!file || file.length > 4096) return undefined;
  return {
    tool,
    file,
    ...(typeof v.session_id === 'string' ? { session: v.session_id } : {}),
    ...(typeof v.cwd === 'string' ? { cwd: v.cwd } : {}),
  };
}

/** The keys a file is found under: itself, then each folder above it (`src/net/`, `src/`), nearest first. */
export function lookupKeys(relative: string): string[] {
  const parts = relative.split('/');
  const keys = [relative];
  for (let i = parts.length - 1; i >= 1; i--) keys.push(`${parts.slice(0, i).join('/')}/`);
  return keys;
}

/**
 * The text the agent gets for `relative`, from the memories citing it and its folders, at most `maxChars`
 * characters; undefined when none does. `vault`: the vault folder, so each memory is named by its project path.
 */
export function preToolText(
  relative: string,
  found: ReadonlyMap<string, CitedEntry[]>,
  vault: string,
  maxChars = MAX_PRE_TOOL_CHARS,
): string | undefined {
  const seen = new Set<string>();
  const rows: { key: string; entry: CitedEntry }[] = [];
  for (const key of lookupKeys(relative)) {
    const entries = [...(found.get(key) ?? [])].sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
    for (const entry of entries) {
      if (seen.has(entry.m)) continue;
      seen.add(entry.m);
      rows.push({ key, entry });
    }
  }
  if (rows.length === 0) return undefined;
  const doubtful = rows.some(({ entry }) => entry.state === 'gone' || entry.state === 'moved' || entry.state === 'changed');
  const head =
    `memvault: ${rows.length} memor${rows.length === 1 ? 'y cites' : 'ies cite'} \`${relative}\` or its folder.` +
    (doubtful ? ' What changed since a memory was written may make it wrong: check before relying on it.' : '');
  const lines = [head];
  let length = head.length;
  let shown = 0;
  for (const { key, entry } of rows) {
    const state = entry.state === 'verified' ? 'verified' : `${entry.state}${entry.detail ? `: ${entry.detail}` : ''}`;
    const where = key === relative ? '' : ` (cites \`${key}\`)`;
    const symbol = entry.quote ? ` ${entry.quote}` : '';
    const line = `- ${entry.day} ${entry.kind}: ${oneLine(entry.title).slice(0, 120)}${symbol}${where} [${state}] ${vault}/${entry.m}`;
    const rest = rows.length - shown - 1;
    const tail = rest > 0 ? `\n… ${rest} more: memvault verify --all` : '';
    if (length + 1 + line.length + tail.length > maxChars) {
      const more = `… ${rows.length - shown} more: memvault verify --all`;
      if (length + 1 + more.length <= maxChars) lines.push(more);
      break;
    }
    lines.push(line);
    length += 1 + line.length;
    shown++;
  }
  return lines.join('\n');
}

/** The repository-relative POSIX path of `file` (absolute, or relative to `cwd`), or undefined outside the repository. */
export function repoRelative(repo: string, file: string, cwd: string): string | undefined {
  const absolute = path.resolve(cwd, file);
  const relative = path.relative(repo, absolute);
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

/** How long the hook remembers what it said in a session: a session older than this hears it again. */
export const SEEN_FOR_SECONDS = 24 * 60 * 60;

/** Longest wait for a build's write lock before the hook answers without recording (a repeat beats a blocked tool). */
const BUSY_MS = 200;

/**
 * The hook's answer for a payload, as the JSON Claude Code reads, or undefined
 * when there is nothing to say (no citing memory, already said this session).
 * Records what it said in the state store's `pre_tool_seen` table, where marks
 * older than `SEEN_FOR_SECONDS` are dropped as new ones are written: the table
 * holds about a day of sessions, never more.
 */
export function preTool(root: string, payload: PreToolPayload, now = Date.now()): string | undefined {
  const db = openHookDatabase(path.join(root, '.memvault'), BUSY_MS);
  if (!db) return undefined;
  try {
    return answerFrom(db, root, payload, now);
  } finally {
    db.close();
  }
}

function answerFrom(db: Database.Database, root: string, payload: PreToolPayload, now: number): string | undefined {
  let relative: string | undefined;
  const index = readCitedBy(db, (repo) => {
    relative = repoRelative(repo, payload.file, payload.cwd ?? root);
    return relative ? lookupKeys(relative) : [];
  });
  if (!index || !relative) return undefined;
  const text = preToolText(relative, index.found, index.vault);
  if (!text) return undefined;
  // Once per file per session: the agent has it in its context already.
  if (!markSaid(db, payload.session ?? 'no-session', relative, Math.floor(now / 1000))) return undefined;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: text } });
}

/**
 * Records that `relative` was said in `session`; false when it already was. Marks of sessions older than a day go in
 * the same transaction. A store busy past `BUSY_MS` (a build writing) or read-only: true, nothing recorded.
 */
function markSaid(db: Database.Database, session: string, relative: string, nowSeconds: number): boolean {
  const key = session.slice(0, 200);
  // Read first: a file already said is the common repeat, and a read costs no write (no sync to disk, no checkpoint).
  if (
    db.prepare('SELECT 1 FROM pre_tool_seen WHERE session = ? AND path = ? AND at >= ?').get(key, relative, nowSeconds - SEEN_FOR_SECONDS)
  )
    return false;
  try {
    // WAL: no sync on commit (the store's own setting, store/database.ts); a power cut costs a repeated answer at most.
    db.pragma('synchronous = NORMAL');
    db.transaction(() => {
      db.prepare('DELETE FROM pre_tool_seen WHERE at < ?').run(nowSeconds - SEEN_FOR_SECONDS);
      db.prepare('INSERT OR REPLACE INTO pre_tool_seen (session, path, at) VALUES (?, ?, ?)').run(key, relative, nowSeconds);
    }).immediate();
  } catch {
    // Busy past BUSY_MS (a build writing) or read-only: said without a record (a repeat beats a blocked tool).
  }
  return true;
}

/** Largest stdin read: a payload is a few kilobytes (a Write's content can be more); past this it is not one. */
const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/**
 * The whole hook: stdin, the project found from the payload's `cwd` (or `-C`),
 * the answer on stdout. Never throws, never writes to stderr. `exit` (the
 * bin's fast path, src/hooks/pre-tool-main.ts): ends the process when done.
 */
export async function runPreToolHook(rootFlag?: string, options: { exit?: boolean } = {}): Promise<void> {
  try {
    const input = await readStdin();
    const payload = input === undefined ? undefined : preToolPayload(input);
    if (!payload) return;
    const root = projectRoot(rootFlag ?? payload.cwd ?? process.cwd());
    if (!root) return;
    if (!options.exit) {
      const answer = preTool(root, payload);
      if (answer) writeStdout(`${answer}\n`);
      return;
    }
    const db = openHookDatabase(path.join(root, '.memvault'), BUSY_MS);
    if (!db) return;
    const answer = answerFrom(db, root, payload, Date.now());
    if (answer) {
      try {
        writeSync(1, `${answer}\n`);
      } catch {
        // A full non-blocking pipe: through the stream, ending once it is written.
        process.stdout.write(`${answer}\n`, () => process.exit(0));
        return;
      }
    }
    // The process ends here, the connection left open: its commit is in the WAL, which the next connection reads as
    // after any process end. Closing would make this, the last connection, checkpoint the WAL into the database and
    // delete it (two syncs to disk), and the next hook's first write recreate it (one more): ~20 ms of a hook on the
    // busy machine, for a record of what was said. A checkpoint happens at the next CLI command's close instead.
    process.exit(0);
  } catch {
    // Nothing: the agent's tool runs as if there were no hook.
  }
}

/**
 * All of stdin, or undefined past `MAX_INPUT_BYTES`. Read from the file descriptor, not through `process.stdin`:
 * building the stream and its async iterator cost a few milliseconds of the hook's start (CPU profile). A terminal
 * (nobody piping a payload) gives nothing; a non-blocking pipe that has no data yet (EAGAIN) is read as a stream.
 */
async function readStdin(): Promise<string | undefined> {
  if (fstatSync(0).isCharacterDevice()) return '';
  let bytes: Buffer;
  try {
    bytes = readFileSync(0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    bytes = Buffer.concat(chunks);
  }
  return bytes.length > MAX_INPUT_BYTES ? undefined : bytes.toString('utf8');
}

/** Writes to stdout's descriptor directly (as stdin: no stream built), through `process.stdout` when a pipe is full. */
function writeStdout(text: string): void {
  try {
    writeSync(1, text);
  } catch {
    process.stdout.write(text);
  }
}

/** The nearest folder upwards holding `memory.config.yaml` (config/file.ts's rule, without its error messages' imports). */
function projectRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, 'memory.config.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Text on one line, control characters out (a title cannot start a new line of the hook's answer). */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}
