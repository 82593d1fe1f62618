import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateConfig } from '../config/load.js';
import { CONFIG_FILE } from '../config/file.js';
import { addReplica, parseUsageFile, usageTotals, type UsageCount, type UsageFile } from './codec.js';
import { addEvents, readLocalState, usagePath } from './fold.js';
import { readUsageLog } from './log.js';

/**
 * Reading usage counts: the stream's committed `usage.json` (every clone),
 * with this clone's line brought up to date from its log (what the next
 * build will fold). For `memvault status`, the search boost and the facts
 * and forgetting side.
 */

/** The usage file of a stream with this clone's unfolded log added; empty when there is none. */
export function readUsageFile(root: string, vaultDir: string, stream: string): UsageFile {
  let text = '';
  try {
    text = readFileSync(path.join(vaultDir, usagePath(stream)), 'utf8');
  } catch {
    // Never folded yet.
  }
  const usage = parseUsageFile(text);
  const state = readLocalState(root);
  const { events } = readUsageLog(root, state.offset);
  addEvents(state.counts, events);
  for (const [key, [count, last]] of Object.entries(state.counts[stream] ?? {})) addReplica(usage, key, state.replica, { count, last });
  return usage;
}

/**
 * Usage counts of a stream: memory id (or a summary's path inside the
 * stream, `daily/2026-02-13.md`) → how often it was served and when last,
 * summed over every clone. Reads the vault folder from `memory.config.yaml`
 * (default `vault`) unless `vaultDir` is given.
 *
 * @example
 *   readUsage('/repo', 'main').get('2026/02/2026-02-13-auth') // { count: 7, lastUsed: '2026-11-20T10:00:00.000Z' }
 */
export function readUsage(root: string, stream: string, vaultDir?: string): Map<string, UsageCount> {
  return usageTotals(readUsageFile(root, vaultDir ?? vaultDirOf(root), stream));
}

function vaultDirOf(root: string): string {
  let vault = 'vault';
  try {
    vault = validateConfig(readFileSync(path.join(root, CONFIG_FILE), 'utf8'), CONFIG_FILE).config.vault;
  } catch {
    // No config file: the default folder.
  }
  return path.resolve(root, vault);
}
