import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import type { StreamState } from '../vault/model.js';
import { classifyPath } from '../vault/paths.js';
import { addReplica, formatUsageFile, parseUsageFile, type UsageFile } from './codec.js';
import { readUsageLog, type UsageEvent } from './log.js';

/**
 * The fold: the build turns the clone's usage log into each stream's
 * committed `usage.json`. The clone's own totals live in
 * `.memvault/usage-state.json` with the log offset they cover and the clone's
 * id (`replica`, random, made on the first fold); both are written in one
 * atomic write, so a fold that is interrupted and run again counts nothing
 * twice. The clone's line in `usage.json` is then set from those totals.
 */

export const USAGE_FILE = 'usage.json';
/** Vault-relative path of a stream's usage file. */
export const usagePath = (stream: string): string => `${stream}/${USAGE_FILE}`;

export interface LocalState {
  replica: string;
  offset: number;
  /** stream → key → [count, last used]. */
  counts: Record<string, Record<string, [number, string]>>;
}

const stateFile = (root: string): string => path.join(root, '.memvault', 'usage-state.json');

/** This clone's totals (folded so far); a new clone id when there are none yet. */
export function readLocalState(root: string): LocalState {
  try {
    const state = JSON.parse(readFileSync(stateFile(root), 'utf8')) as Partial<LocalState>;
    if (typeof state.replica === 'string' && typeof state.offset === 'number' && state.counts && typeof state.counts === 'object')
      return state as LocalState;
  } catch {
    // First fold of this clone, or a damaged state file: start a new clone id (the old one's counts stay in usage.json).
  }
  return { replica: randomBytes(4).toString('hex'), offset: 0, counts: {} };
}

/**
 * The key an event is counted under: the memory's id (frontmatter `id`, else
 * its path inside `memories/` or `archive/<quarter>/` without `.md`), or for
 * a summary its path inside the stream (`daily/2026-02-13.md`; the `.md`
 * keeps it apart from memory ids).
 */
export function usageKey(vaultPath: string, ids?: ReadonlyMap<string, string>): string | undefined {
  const known = ids?.get(vaultPath);
  if (known) return known;
  const role = classifyPath(vaultPath);
  if (role.role === 'memory') return role.relativeId;
  const slash = vaultPath.indexOf('/');
  return slash > 0 && vaultPath.endsWith('.md') ? vaultPath.slice(slash + 1) : undefined;
}

/** Adds events to per-stream totals (pure apart from the mutation of `counts`, which the caller owns). */
export function addEvents(counts: LocalState['counts'], events: readonly UsageEvent[], ids?: ReadonlyMap<string, string>): void {
  for (const event of events) {
    const key = usageKey(event.path, ids);
    if (!key) continue;
    const stream = (counts[event.stream] ??= {});
    const old = stream[key];
    stream[key] = [(old?.[0] ?? 0) + 1, old && old[1] > event.ts ? old[1] : event.ts];
  }
}

/**
 * Folds the log into `.memvault/usage-state.json` and each stream's
 * `usage.json` (this clone's line per id). Returns the vault-relative paths
 * of the usage files it wrote (a file is rewritten only when its text
 * changes, which also tidies a file a union merge left with duplicate lines).
 *
 * @example
 *   const written = foldUsage(root, vaultDir, [...loaded.state.streams.values()]); // ['main/usage.json']
 */
export function foldUsage(root: string, vaultDir: string, streams: readonly StreamState[]): string[] {
  const state = readLocalState(root);
  const { events, offset } = readUsageLog(root, state.offset);
  if (events.length > 0 || offset !== state.offset) {
    const ids = new Map<string, string>();
    for (const stream of streams) for (const m of stream.memories) ids.set(m.path, m.id);
    addEvents(state.counts, events, ids);
    state.offset = offset;
    writeFileAtomic(stateFile(root), `${JSON.stringify(state)}\n`);
  }
  const written: string[] = [];
  for (const stream of streams) {
    const file = path.join(vaultDir, usagePath(stream.name));
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // No usage file yet.
    }
    const mine = state.counts[stream.name] ?? {};
    if (!text && Object.keys(mine).length === 0) continue;
    const usage: UsageFile = parseUsageFile(text);
    for (const [key, [count, last]] of Object.entries(mine)) addReplica(usage, key, state.replica, { count, last });
    const next = formatUsageFile(usage);
    if (next !== text) {
      writeFileAtomic(file, next);
      written.push(usagePath(stream.name));
    }
  }
  return written;
}
