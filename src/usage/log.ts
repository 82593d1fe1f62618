import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

/**
 * The usage log: one JSON line per item served by `context`, `search` or
 * `zoom` (CLI or MCP), appended to `.memvault/usage.log` (outside git, one per
 * clone). Appenders never rewrite it; each build's `foldUsage` renames it to
 * `usage.log.folded`, adds its lines to the clone's totals and removes it at
 * the next fold, so the log holds only what was served since the last build
 * (fold.ts). `usage.json` holds the totals.
 */

/** One served item. `path` is vault-relative (`main/memories/2026/02/x.md`); the fold turns it into a memory id. */
export interface UsageEvent {
  /** ISO instant it was served. */
  ts: string;
  stream: string;
  path: string;
  /** `cli:search`, `mcp:context`, `hook:session-start`, … */
  via: string;
}

export const usageLogFile = (root: string): string => path.join(root, '.memvault', 'usage.log');
/** The log as the last fold renamed it: kept until the next fold for the lines of an appender that opened it before. */
export const foldedLogFile = (root: string): string => path.join(root, '.memvault', 'usage.log.folded');

/**
 * Appends the served items (each path once per call) to the log. Never throws:
 * a log that cannot be written must not fail the read that served the items;
 * the reason goes to stderr.
 *
 * @example
 *   recordUsage(root, [{ stream: 'main', path: 'main/memories/2026-02-13-auth.md' }], 'cli:search');
 */
export function recordUsage(root: string, served: readonly { stream: string; path: string }[], via: string, now: Date = new Date()): void {
  if (served.length === 0) return;
  const ts = now.toISOString();
  const seen = new Set<string>();
  let text = '';
  for (const item of served) {
    if (seen.has(item.path)) continue;
    seen.add(item.path);
    text += `${JSON.stringify({ ts, stream: item.stream, path: item.path, via } satisfies UsageEvent)}\n`;
  }
  try {
    mkdirSync(path.dirname(usageLogFile(root)), { recursive: true });
    // One write with O_APPEND: lines of concurrent writers (the MCP server, a CLI search) never interleave.
    appendFileSync(usageLogFile(root), text);
  } catch (error) {
    process.stderr.write(`memvault: usage not recorded: ${(error as Error).message}\n`);
  }
}

/**
 * The complete lines of the log from byte `offset` on, and the offset after
 * the last complete line (a line being appended right now waits for the next
 * read). Lines that are not valid events are skipped.
 */
export function readUsageLog(root: string, offset = 0): { events: UsageEvent[]; offset: number } {
  return readLogFile(usageLogFile(root), offset);
}

/** `readUsageLog` of a given log file (`usage.log` or `usage.log.folded`), with the file's inode (undefined: no file). */
export function readLogFile(file: string, offset = 0): { events: UsageEvent[]; offset: number; ino?: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { events: [], offset: 0 };
  }
  try {
    const { size, ino } = fstatSync(fd);
    // A log shorter than the offset was replaced (deleted and started again): read it from the start.
    const start = size < offset ? 0 : offset;
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const complete = buffer.lastIndexOf(0x0a, read - 1) + 1;
    const events: UsageEvent[] = [];
    for (const line of buffer.subarray(0, complete).toString('utf8').split('\n')) {
      if (!line) continue;
      try {
        const event: unknown = JSON.parse(line);
        if (isLoggedEvent(event)) events.push({ ts: event.ts, stream: event.stream, path: event.path, via: String(event.via ?? '') });
      } catch {
        // A damaged line (a disk that filled up mid-write) costs one count, not the log.
      }
    }
    return { events, offset: start + complete, ino };
  } finally {
    closeSync(fd);
  }
}

/** A log line with the fields a count needs (`via` is shown as text, whatever it is). */
function isLoggedEvent(value: unknown): value is { ts: string; stream: string; path: string; via?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const { ts, stream, path } = value as Record<string, unknown>;
  return typeof ts === 'string' && typeof stream === 'string' && typeof path === 'string';
}

/** `recordUsage` for items of one stream given by path; `.md` paths only (an index entry or a topic is not a file). */
export function recordSources(root: string, stream: string, paths: readonly string[], via: string, now: Date = new Date()): void {
  recordUsage(
    root,
    paths.filter((p) => p.endsWith('.md')).map((p) => ({ stream, path: p })),
    via,
    now,
  );
}
