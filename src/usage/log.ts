import path from 'node:path';
import { STATE_DIR } from '../config/file.js';
import { openStateStore, type StateStore } from '../store/database.js';

/**
 * The usage log: one row per item served by `context`, `search` or `zoom`
 * (CLI or MCP) and the session-start hook, in the `usage_events` table of the
 * state store (`.memvault/state.sqlite`, one per clone, outside git). Rows
 * carry an increasing sequence number; each build's `foldUsage` adds the rows
 * to the clone's totals and deletes them in the same transaction (fold.ts),
 * so the table holds only what was served since the last build and nothing
 * is counted twice. `usage.json` holds the totals.
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

/** The state store of the project at `root`, which holds the log. */
export const usageStore = (root: string): StateStore => openStateStore(path.join(root, STATE_DIR));

/**
 * Records the served items (each path once per call) in one transaction.
 * Never throws: a log that cannot be written must not fail the read that
 * served the items; the reason goes to stderr.
 *
 * @example
 *   recordUsage(root, [{ stream: 'main', path: 'main/memories/2026-02-13-auth.md' }], 'cli:search');
 */
export function recordUsage(root: string, served: readonly { stream: string; path: string }[], via: string, now: Date = new Date()): void {
  if (served.length === 0) return;
  const ts = now.toISOString();
  const seen = new Set<string>();
  try {
    const store = usageStore(root);
    const insert = store.db.prepare('INSERT INTO usage_events (ts, stream, path, via) VALUES (?, ?, ?, ?)');
    store.transaction(() => {
      for (const item of served) {
        if (seen.has(item.path)) continue;
        seen.add(item.path);
        insert.run(ts, item.stream, item.path, via);
      }
    });
  } catch (error) {
    process.stderr.write(`memvault: usage not recorded: ${(error as Error).message}\n`);
  }
}

/**
 * The events recorded after sequence number `after`, oldest first, and the
 * sequence number of the last one (`after` when there is none).
 */
export function readUsageLog(root: string, after = 0): { events: UsageEvent[]; through: number } {
  const rows = usageStore(root)
    .db.prepare('SELECT seq, ts, stream, path, via FROM usage_events WHERE seq > ? ORDER BY seq')
    .all(after) as (UsageEvent & { seq: number })[];
  const events = rows.map(({ ts, stream, path: vaultPath, via }) => ({ ts, stream, path: vaultPath, via }));
  return { events, through: rows.length > 0 ? rows[rows.length - 1]!.seq : after };
}

/** The sequence number of the last event recorded and not folded yet (0 when there is none): grows with every record. */
export function lastUsageSeq(root: string): number {
  const row = usageStore(root).db.prepare('SELECT max(seq) AS seq FROM usage_events').get() as { seq: number | null };
  return row.seq ?? 0;
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
