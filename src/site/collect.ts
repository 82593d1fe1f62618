import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type FactReport, streamFacts } from '../facts/collect.js';
import type { Manifest } from '../pipeline/package/index.js';
import { readManifestFile } from '../pipeline/package/manifest-file.js';
import type { StreamIndex, VaultIndex } from '../pipeline/vault-index.js';
import { readVaultIndex } from '../pipeline/vault-index-file.js';
import type { ReadVault } from '../read/vault.js';
import { CALENDAR_TIER_TABLE, isCalendarTier, summaryId, WATERFALL_TIER_TABLE } from '../time/tiers.js';
import { sha256 } from '../util/hash.js';
import type { Memory, Summary } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';

/**
 * Stage 1 of the site: what the pages are made of, read from the vault as the read commands open it (`openVault`).
 * The trust rules are the loader's: a memory holding a secret is held back by the load (in no stream), so it is in no
 * list here and on no page; the package, the index and the summaries are the build's outputs, which never held it.
 * Bodies are not read here: a page's inputs are hashes and metadata, and a body is read only when its page is rendered.
 */

export interface SiteInput {
  vault: ReadVault;
  /** The day "facts in force" are shown for (`--now`, in the configured time zone). */
  today: string;
  streams: SiteStream[];
  /** index.json as the last build wrote it, if any. */
  index: VaultIndex | undefined;
}

export interface CommitRef {
  oid: string;
  /** Committer time, ISO 8601 (UTC). */
  date: string;
  subject: string;
}

/** A previous version of a regenerated summary, kept in `history/`. */
export interface HistoryVersion {
  /** Vault-relative path. */
  path: string;
  /** `YYYYMMDD-HHMMSS` (UTC) of the build that replaced it, with `-n` when several. */
  stamp: string;
  /** Size and modification time: what the page's input hash takes instead of reading the file. */
  size: number;
  mtimeMs: number;
}

export interface SiteStream {
  name: string;
  calendar: boolean;
  waterfall: boolean;
  /** Memories of `memories/` and `archive/`, oldest first (day, minute, path). */
  memories: Memory[];
  summaries: Summary[];
  /** Previous versions per summary path (calendar: `<tier>/<period>`; waterfall: `waterfall-recent`, `waterfall-longterm`). */
  history: Map<string, HistoryVersion[]>;
  /** Commits that touched each vault-relative path, newest first; empty when the project is not in a git repository. */
  commits: Map<string, CommitRef[]>;
  facts: FactReport;
  index: StreamIndex | undefined;
  manifest: Manifest | undefined;
  /** SHA-256 of UPLOAD_PACKAGE.md, when there is one. */
  packageHash: string | undefined;
  /** Token budget per summary tier. */
  budgets: Record<string, number>;
}

/** At most this many commits are listed on a memory page (the newest). */
export const MAX_COMMITS_PER_FILE = 20;

export function collectSiteInput(vault: ReadVault, today: string): SiteInput {
  const index = readVaultIndex(path.join(vault.vaultDir, vaultPaths.indexJson));
  const commits = commitsByPath(vault.root, vault.config.vault);
  const streams = [...vault.loaded.state.streams.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((state): SiteStream => {
      const settings = vault.config.streams[state.name] ?? { calendar: true, waterfall: false };
      const memories = [...state.memories].sort((a, b) =>
        a.day < b.day ? -1 : a.day > b.day ? 1 : a.minute - b.minute || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
      );
      const summaries = [...state.summaries.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
      const budgets: Record<string, number> = Object.fromEntries([
        ...CALENDAR_TIER_TABLE.map((row) => [row.name, vault.config.calendar[row.budgetKey].target_tokens]),
        ...WATERFALL_TIER_TABLE.map((row) => [row.name, vault.config.waterfall[row.budgetKey].target_tokens]),
      ]);
      return {
        name: state.name,
        calendar: settings.calendar !== false,
        waterfall: settings.waterfall === true,
        memories,
        summaries,
        history: historyVersions(vault.vaultDir, state.name),
        commits: streamCommits(commits, state.name),
        facts: streamFacts(memories),
        index: index?.streams?.find((s) => s.name === state.name),
        manifest: readManifestFile(path.join(vault.vaultDir, vaultPaths.manifest(state.name))),
        packageHash: fileHash(path.join(vault.vaultDir, vaultPaths.package(state.name))),
        budgets,
      };
    });
  return { vault, today, streams, index };
}

function fileHash(file: string): string | undefined {
  try {
    return sha256(readFileSync(file));
  } catch {
    return undefined;
  }
}

const HISTORY_NAME = /^(.+)-(\d{8}-\d{6}(?:-\d+)?)\.md$/;

/** `history/<tier>/<period>-<stamp>.md` and `waterfall/history/recent-<stamp>.md`, grouped by the summary they were. */
function historyVersions(vaultDir: string, stream: string): Map<string, HistoryVersion[]> {
  const found = new Map<string, HistoryVersion[]>();
  const add = (key: string, folder: string, name: string, stamp: string) => {
    const file = path.join(vaultDir, folder, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(file);
    } catch {
      return;
    }
    if (!stat.isFile()) return;
    const list = found.get(key) ?? [];
    list.push({ path: `${folder}/${name}`, stamp, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
    found.set(key, list);
  };
  const historyDir = `${stream}/history`;
  for (const tier of listDir(path.join(vaultDir, historyDir))) {
    for (const name of listDir(path.join(vaultDir, historyDir, tier))) {
      const match = HISTORY_NAME.exec(name);
      if (!match) continue;
      const key = isCalendarTier(tier) ? summaryId(tier, match[1]!) : tier.startsWith('waterfall-') ? tier : `${tier}/${match[1]}`;
      add(key, `${historyDir}/${tier}`, name, match[2]!);
    }
  }
  const waterfallDir = vaultPaths.waterfallHistoryDir(stream);
  for (const name of listDir(path.join(vaultDir, waterfallDir))) {
    const match = HISTORY_NAME.exec(name);
    if (match) add('waterfall-recent', waterfallDir, name, match[2]!);
  }
  for (const list of found.values()) list.sort((a, b) => (a.stamp < b.stamp ? 1 : -1));
  return found;
}

function listDir(dir: string): string[] {
  if (!existsSync(dir)) return [];
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Every commit that touched a file of the vault, by vault-relative path, newest first: one `git log` for the whole
 * vault (a log per file would be 20,000 processes). Outside a git repository, or without git, there are none.
 */
function commitsByPath(root: string, vaultFolder: string): Map<string, CommitRef[]> {
  const byPath = new Map<string, CommitRef[]>();
  let out: string;
  try {
    out = execFileSync(
      'git',
      ['-c', 'core.quotepath=off', 'log', '--no-renames', '--format=%x1e%H%x1f%cI%x1f%s', '--name-only', '--relative', '--', vaultFolder],
      { cwd: root, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
    );
  } catch {
    return byPath;
  }
  const prefix = `${path.posix.normalize(vaultFolder.split(path.sep).join('/')).replace(/\/$/, '')}/`;
  for (const record of out.split('\x1e')) {
    if (!record.trim()) continue;
    const [head, ...files] = record.split('\n');
    const [oid, date, subject] = (head ?? '').split('\x1f');
    if (!oid || !date) continue;
    const commit = { oid, date, subject: subject ?? '' };
    for (const file of files) {
      if (!file.startsWith(prefix)) continue;
      const vaultPath = file.slice(prefix.length);
      const list = byPath.get(vaultPath);
      if (!list) byPath.set(vaultPath, [commit]);
      else if (list.length < MAX_COMMITS_PER_FILE) list.push(commit);
    }
  }
  return byPath;
}

function streamCommits(all: Map<string, CommitRef[]>, stream: string): Map<string, CommitRef[]> {
  const own = new Map<string, CommitRef[]>();
  for (const [file, commits] of all) if (file.startsWith(`${stream}/`)) own.set(file, commits);
  return own;
}
