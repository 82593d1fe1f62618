import { createHash } from 'node:crypto';
import path from 'node:path';
import { STATE_DIR } from '../config/file.js';
import type { Config } from '../config/schema.js';
import { openStateStore } from '../store/database.js';
import { kvTable } from '../store/kv.js';
import { usageKey } from '../usage/fold.js';
import { readUsageLog } from '../usage/log.js';
import { stampOf } from '../usage/read.js';
import { scanStreams, streamFolders, type ScannedFile } from '../vault/scan.js';

/**
 * The session-start hook's last answer, so the next session of an unchanged
 * vault starts without loading it (at 20,000 memories the parse cache alone
 * is ~0.5 s) or the tokenizer's tables. Kept in the state store (`.memvault/state.sqlite`, the
 * `session-start` rows of `kv`: `last` at a session's start, `compact` after a compaction, `startSlot`), checked when
 * read without zod (loading it would cost the hook ~70 ms). The token counts of the texts the last assembly measured
 * are kept beside them (`session-start-tokens`), so an assembly of the same texts does not load the tokenizer.
 *
 * An answer is reused only when all of these are as they were:
 * - the request: budget, stream, whether it follows a compaction, the whole config;
 * - the vault: path, size and mtime of every file of every stream folder (the loader's own walk), and `index.json`;
 * - usage counts (forgetting reads them): the stream's `usage.json` and the fold state as they were after the answer's
 *   own usage was recorded (recording what it served changes no answer: a served memory was pushed, so it was not
 *   forgotten, and stays so), and the usage log as it was then, or grown by uses of memories other than the forgotten
 *   ones the context could show (`forgottenPushable`): a use only ever brings a forgotten memory back, so those leave
 *   the answer as it was. An agent's session records uses with every search, so this is the next session's most
 *   common case, and it needs neither the vault nor the tokenizer;
 * - the time: `now` from the answer's time until the next midnight of the zone (the day names the context and decides
 *   forgetting and facts in force) or until an error memory enters or leaves the last 24 hours, whichever comes first.
 * Anything else is a miss, and the hook assembles the context as before and keeps the new answer.
 */

const FORMAT = 2;

export interface StartRequest {
  budget: number;
  maxChars: number;
  stream: string | undefined;
  compact: boolean;
}

export interface CachedStart<T> {
  format: number;
  key: string;
  vault: string;
  usage: string;
  /** The stream of the context, and the forgotten memories of it whose use would change the answer (`forgottenPushable`). */
  forgotten: { stream: string; ids: string[] };
  /** Epoch milliseconds: the answer holds for `now` in [from, until). */
  from: number;
  until: number;
  answer: T;
}

export function requestKey(config: Config, request: StartRequest): string {
  return createHash('sha256').update(JSON.stringify({ config, request })).digest('hex');
}

/** Every file of every stream folder, walked as the loader walks them (the same streams, the same order). */
export function scanVault(vaultDir: string, config: Config): ScannedFile[] {
  return scanStreams(vaultDir, streamFolders(vaultDir, Object.keys(config.streams)));
}

/** The stamp of a walk (path, size, mtime of every file) and of `index.json`: changes with any edit. */
export function vaultStamp(vaultDir: string, files: readonly ScannedFile[]): string {
  // One string hashed once: 21,000 `update` calls cost more than the hashing itself.
  const lines = files.map((file) => `${file.vaultPath}\u0000${file.size}\u0000${file.mtimeMs}\u0000${file.special ?? ''}\n`);
  lines.push(`index.json\u0000${stampOf([path.join(vaultDir, 'index.json')])}`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}

/**
 * Whether the usage recorded since the kept answer leaves it as it was: the committed counts and the fold state are
 * the same, and the log only grew, by uses of no memory in `forgotten` (the keys as the usage reader counts them,
 * `usageKey`). `usage` is the current `usageStamp`: the fold's part, then `|` and the log's last sequence number.
 */
export function usageLeavesAnswer(root: string, cached: CachedStart<unknown>, usage: string): boolean {
  const was = splitUsageStamp(cached.usage);
  const now = splitUsageStamp(usage);
  if (!was || !now || was.folded !== now.folded || now.last < was.last) return false;
  if (now.last === was.last) return true;
  const back = new Set(cached.forgotten.ids);
  if (back.size === 0) return true;
  try {
    return readUsageLog(root, was.last).events.every(
      (event) => event.stream !== cached.forgotten.stream || !back.has(usageKey(event.path) ?? ''),
    );
  } catch {
    return false;
  }
}

function splitUsageStamp(stamp: string): { folded: string; last: number } | undefined {
  const bar = stamp.lastIndexOf('|');
  const last = Number(stamp.slice(bar + 1));
  return bar < 0 || !Number.isInteger(last) ? undefined : { folded: stamp.slice(0, bar), last };
}

function startTable<T>(root: string) {
  return kvTable<CachedStart<T>>(openStateStore(path.join(root, STATE_DIR)), 'session-start', (raw) => {
    const cached = raw as CachedStart<T> | null;
    const valid =
      typeof cached === 'object' &&
      cached !== null &&
      cached.format === FORMAT &&
      typeof cached.key === 'string' &&
      typeof cached.vault === 'string' &&
      typeof cached.usage === 'string' &&
      typeof cached.from === 'number' &&
      typeof cached.until === 'number' &&
      typeof cached.forgotten === 'object' &&
      cached.forgotten !== null &&
      typeof cached.forgotten.stream === 'string' &&
      Array.isArray(cached.forgotten.ids) &&
      typeof cached.answer === 'object' &&
      cached.answer !== null;
    return valid ? cached : undefined;
  });
}

/**
 * Which row keeps an answer: the answer after a compaction apart from the one at a session's start, so a session that
 * is compacted does not cost the next session's start its kept answer (and the other way round).
 */
export const startSlot = (request: Pick<StartRequest, 'compact'>): string => (request.compact ? 'compact' : 'last');

/** The last answer kept in `slot` (`startSlot`); undefined when there is none, or the store cannot be read. */
export function readStartCache<T>(root: string, slot: string): CachedStart<T> | undefined {
  try {
    return startTable<T>(root).get(slot);
  } catch {
    return undefined;
  }
}

/** Keeps the answer (one row, replaced in one statement: a reader sees the old answer or the new, never half). */
export function writeStartCache<T>(root: string, slot: string, entry: Omit<CachedStart<T>, 'format'>): void {
  try {
    startTable<T>(root).set(slot, { format: FORMAT, ...entry });
  } catch {
    // A cache that cannot be written costs the next session the full assembly, nothing else.
  }
}

/** The `kv` store of the files a query-less context draws on (start-parts.ts, which loads luxon: not imported here). */
export const PARTS_STORE = 'session-start-parts';

/** Forgets the answers, their token counts and parts (`memvault redact`: they may quote or name a redacted memory). */
export function clearStartCache(root: string): void {
  startTable(root).clear();
  tokensTable(root).clear();
  kvTable(openStateStore(path.join(root, STATE_DIR)), PARTS_STORE, () => undefined).clear();
}

/** The token counts of the texts the last assembled answer measured: by SHA-256 of the text, for one tokenizer. */
interface KeptCounts {
  tokenizer: string;
  counts: Record<string, number>;
  /** Body lines of the files the answer labels, by SHA-256 of the file's bytes (read/context/warm.ts, `bodyLineFor`). */
  lines?: Record<string, number | null>;
}

function tokensTable(root: string) {
  return kvTable<KeptCounts>(openStateStore(path.join(root, STATE_DIR)), 'session-start-tokens', (raw) => {
    const kept = raw as KeptCounts | null;
    return typeof kept === 'object' &&
      kept !== null &&
      typeof kept.tokenizer === 'string' &&
      typeof kept.counts === 'object' &&
      kept.counts !== null
      ? kept
      : undefined;
  });
}

const textKey = (text: string): string => createHash('sha256').update(text).digest('base64');

/**
 * The kept token count of a text, by its hash: an answer assembled again measures mostly the texts the last one did
 * (the same pinned memories, summaries and topics), and with all of them known the tokenizer's tables are not loaded
 * (~0.15 s). A count is the tokenizer's for exactly that text, so the answer is the same as with the tokenizer.
 */
export function readTokenCounts(
  root: string,
  tokenizer: string,
): { count: (text: string) => number | undefined; line: (sha: string) => number | null | undefined } {
  let counts: Record<string, number> = {};
  let lines: Record<string, number | null> = {};
  try {
    const kept = tokensTable(root).get('last');
    if (kept?.tokenizer === tokenizer) counts = kept.counts;
    if (typeof kept?.lines === 'object' && kept.lines !== null) lines = kept.lines;
  } catch {
    // No counts: the tokenizer counts everything.
  }
  return {
    count: (text) => {
      const n = counts[textKey(text)];
      return typeof n === 'number' ? n : undefined;
    },
    // A body line (or null: no body found) of a file with these bytes; undefined when not kept.
    line: (sha) => {
      const n = Object.hasOwn(lines, sha) ? lines[sha] : undefined;
      return typeof n === 'number' || n === null ? n : undefined;
    },
  };
}

/** Keeps the counts of the texts an answer measured and its files' body lines (those only: the row stays one answer's size). */
export function writeTokenCounts(
  root: string,
  tokenizer: string,
  counted: ReadonlyMap<string, number>,
  lines: ReadonlyMap<string, number | null>,
): void {
  const counts: Record<string, number> = {};
  for (const [text, n] of counted) counts[textKey(text)] = n;
  try {
    tokensTable(root).set('last', { tokenizer, counts, lines: Object.fromEntries(lines) });
  } catch {
    // Counts that cannot be kept cost the next assembly the tokenizer, nothing else.
  }
}
