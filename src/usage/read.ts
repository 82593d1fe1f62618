import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { validateConfig } from '../config/load.js';
import { CONFIG_FILE } from '../config/file.js';
import { addReplica, parseUsageFile, usageTotals, type UsageCount, type UsageFile } from './codec.js';
import { addEvents, readLocalState, usagePath } from './fold.js';
import { readUsageLog, usageLogFile } from './log.js';

/**
 * Reading usage counts: the stream's committed `usage.json` (every clone),
 * with this clone's line brought up to date from its log (what the next
 * build will fold). For `memvault status`, the search boost and the facts
 * and forgetting side.
 */

// The last answer per stream, with the size and time of the three files it came from:
// a long-lived process (the MCP server) reads them again only when one changed.
const memo = new Map<string, { stamp: string; file: UsageFile }>();

function stampOf(files: readonly string[]): string {
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

/** The usage file of a stream with this clone's unfolded log added; empty when there is none. Callers must not change it. */
export function readUsageFile(root: string, vaultDir: string, stream: string): UsageFile {
  const key = `${root}\u0000${vaultDir}\u0000${stream}`;
  const stamp = stampOf([path.join(vaultDir, usagePath(stream)), usageLogFile(root), path.join(root, '.memvault', 'usage-state.json')]);
  const known = memo.get(key);
  if (known?.stamp === stamp) return known.file;
  const file = readUsageFileNow(root, vaultDir, stream);
  memo.set(key, { stamp, file });
  return file;
}

function readUsageFileNow(root: string, vaultDir: string, stream: string): UsageFile {
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
