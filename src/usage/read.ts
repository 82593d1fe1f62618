import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { addReplica, parseUsageFile, usageTotals, type UsageCount, type UsageFile } from './codec.js';
import { addEvents, legacyStateFile, type LocalState, localStateStamp, readLocalState, usageKey, usagePath } from './fold.js';
import { lastUsageSeq, readUsageLog, usageStore } from './log.js';

/**
 * Reading usage counts: the stream's committed `usage.json` (every clone),
 * with this clone's line brought up to date from its log (what the next
 * build will fold). For `memvault status`, the search boost and the facts
 * and forgetting side.
 */

// The last answer per stream, with what it came from (the committed file, the fold state, the log's last event): a
// long-lived process (the MCP server) reads them again only when one changed, and when only the log grew (its own
// answers recorded, most often) it adds the events recorded since, not the whole log and usage.json again.
interface Known {
  stamp: string;
  base: string;
  file: UsageFile;
  /** This clone's counts with the log's events up to the sequence number `logEnd` added. */
  state: LocalState;
  logEnd: number;
}
const memo = new Map<string, Known>();

/** Size and mtime of each file ('none' for a missing one): changes whenever one of them is written. */
export function stampOf(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const stat = statSync(file);
        return `${stat.size}:${stat.mtimeMs}`;
      } catch {
        return 'none';
      }
    })
    .join('|');
}

/** The committed usage file of `stream` and this clone's fold state. */
const foldedStamp = (root: string, vaultDir: string, stream: string): string =>
  `${stampOf([path.join(vaultDir, usagePath(stream)), legacyStateFile(root)])}|${localStateStamp(root)}`;

/** Changes whenever what `readUsageFile` answers for `stream` may change: the committed file, the fold state, the log. */
export const usageStamp = (root: string, vaultDir: string, stream: string): string =>
  `${foldedStamp(root, vaultDir, stream)}|${lastUsageSeq(root)}`;

/** The usage file of a stream with this clone's unfolded log added; empty when there is none. Callers must not change it. */
export function readUsageFile(root: string, vaultDir: string, stream: string): UsageFile {
  const key = `${root}\u0000${vaultDir}\u0000${stream}`;
  // One read transaction: the fold state and the log as one snapshot (a fold commits both or neither).
  return usageStore(root).db.transaction(() => {
    const base = foldedStamp(root, vaultDir, stream);
    const last = lastUsageSeq(root);
    const stamp = `${base}|${last}`;
    const known = memo.get(key);
    if (known?.stamp === stamp) return known.file;
    const next =
      known && known.base === base && last >= known.logEnd
        ? grown(root, stream, known, stamp)
        : { stamp, base, ...readUsageFileNow(root, vaultDir, stream) };
    memo.set(key, next);
    return next.file;
  })();
}

/**
 * The last answer with the log's new lines added: a copy that shares every id's counts but those the new lines
 * touch. Equal to reading everything again: a clone's counts only grow, and `addReplica` keeps the higher.
 */
function grown(root: string, stream: string, known: Known, stamp: string): Known {
  const { events, through } = readUsageLog(root, known.logEnd);
  const state = known.state;
  addEvents(state.counts, events);
  const file: UsageFile = new Map(known.file);
  const counts = state.counts[stream] ?? {};
  for (const event of events) {
    if (event.stream !== stream) continue;
    const id = usageKey(event.path);
    const now = id === undefined ? undefined : counts[id];
    if (id === undefined || now === undefined) continue;
    file.set(id, new Map(file.get(id)));
    addReplica(file, id, state.replica, { count: now[0], last: now[1] });
  }
  return { stamp, base: known.base, file, state, logEnd: through };
}

/** The usage file read from disk, with nothing remembered (what `readUsageFile` answers, worked out again). */
export function readUsageFileUncached(root: string, vaultDir: string, stream: string): UsageFile {
  return usageStore(root).db.transaction(() => readUsageFileNow(root, vaultDir, stream).file)();
}

function readUsageFileNow(root: string, vaultDir: string, stream: string): { file: UsageFile; state: LocalState; logEnd: number } {
  let text = '';
  try {
    text = readFileSync(path.join(vaultDir, usagePath(stream)), 'utf8');
  } catch {
    // Never folded yet.
  }
  const usage = parseUsageFile(text);
  const state = readLocalState(root);
  const { events, through } = readUsageLog(root, state.through);
  addEvents(state.counts, events);
  for (const [key, [count, last]] of Object.entries(state.counts[stream] ?? {})) addReplica(usage, key, state.replica, { count, last });
  return { file: usage, state, logEnd: through };
}

/**
 * Usage counts of a stream: memory id (or a summary's path inside the
 * stream, `daily/2026-02-13.md`) → how often it was served and when last,
 * summed over every clone. `vaultDir` is the vault folder of the config
 * (every caller has the config already; reading it here would load the YAML
 * parser and the schema into a search that needs neither).
 *
 * @example
 *   readUsage('/repo', 'main', '/repo/vault').get('2026/02/2026-02-13-auth') // { count: 7, lastUsed: '2026-11-20T10:00:00.000Z' }
 */
export function readUsage(root: string, stream: string, vaultDir: string): Map<string, UsageCount> {
  return usageTotals(readUsageFile(root, vaultDir, stream));
}
