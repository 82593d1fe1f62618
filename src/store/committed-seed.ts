import { gitBackend } from '../git/backend.js';
import { findRepo, repoRelative } from '../git/repo.js';
import type { ParseCache } from './cache.js';
import { readRecord } from './committed-record.js';
import type { Diagnostic } from '../vault/model.js';

/** A file the load found that the parse cache does not know by its size and mtime. */
export interface MissedFile {
  vaultPath: string;
  size: number;
  mtimeMs: number;
}

/** Below this many files unknown to the parse cache, reading them costs less than asking git and reading the record. */
export const MIN_FILES_FOR_RECORD = 64;

export interface SeedResult {
  /** Files taken from the record without reading them (git: committed unchanged, same blob). */
  trusted: number;
  /** Files the record knows but git could not vouch for: read, and parsed only if their SHA-256 differs from the record's. */
  toCheck: number;
  warnings: Diagnostic[];
}

/**
 * Seeds the parse cache from the committed record (committed-record.ts) for
 * `missed` files, before they are read. Call after the files were listed and
 * stat-ed: git looks at them later, so an edit after the stat is either seen
 * by git or gives a newer mtime than the one seeded here (read next load).
 */
export async function seedFromRecord(
  vaultDir: string,
  streams: readonly string[],
  missed: readonly MissedFile[],
  cache: ParseCache,
  timezone: string,
  /** Where the git backend is chosen (`MEMVAULT_GIT_BACKEND`, git/backend.ts); default `process.env`. */
  env?: NodeJS.ProcessEnv,
): Promise<SeedResult> {
  // Git is asked before the record is read: the git command's processes (~50-150 ms at 20,000 files) run meanwhile.
  const vouched = await unchangedBlobs(vaultDir, missed, env);
  const record = readRecord(vaultDir, streams, timezone);
  // Outside a git work tree (or when git cannot tell) nothing is trusted unread.
  const blobs = (await vouched.answer) ?? new Map<string, string>();
  let trusted = 0;
  let toCheck = 0;
  for (const file of missed) {
    const entry = record.entries.get(file.vaultPath);
    if (!entry) continue;
    const base = entry.headings
      ? { sha256: entry.sha256, result: entry.result, headings: entry.headings }
      : { sha256: entry.sha256, result: entry.result };
    if (blobs.get(file.vaultPath) === entry.blob) {
      cache.set(file.vaultPath, { ...base, size: file.size, mtimeMs: file.mtimeMs });
      trusted++;
    } else {
      // A size and mtime no stat gives: the load reads the file, and keeps this result if the hash is the same.
      cache.set(file.vaultPath, { ...base, size: -1, mtimeMs: -1 });
      toCheck++;
    }
  }
  return { trusted, toCheck, warnings: record.warnings };
}

/**
 * The index's blob id of each missed file git calls unchanged in the work tree and whose checkout holds the blob's own
 * bytes, by vault path (GitBackend.unchangedBlobs): a path under a filter, or whose line endings git converts, is left
 * out, as the record's SHA-256 and parse may not be this clone's bytes, so the file is read. The answer is a promise
 * (wrapped, so awaiting this does not wait for it) whose git processes are already started. Undefined outside a
 * repository or when the backend fails (nothing trusted).
 */
async function unchangedBlobs(
  vaultDir: string,
  missed: readonly MissedFile[],
  env: NodeJS.ProcessEnv | undefined,
): Promise<{ answer: Promise<Map<string, string> | undefined> }> {
  const none = { answer: Promise.resolve(undefined) };
  const repo = findRepo(vaultDir);
  const prefix = repo && repoRelative(repo, vaultDir);
  if (!repo || prefix === undefined) return none;
  const inRepo = (vaultPath: string) => (prefix ? `${prefix}/${vaultPath}` : vaultPath);
  let backend: Awaited<ReturnType<typeof gitBackend>>;
  try {
    backend = await gitBackend(env);
  } catch {
    return none;
  }
  const asked = backend.unchangedBlobs(
    repo,
    prefix,
    missed.map((file) => inRepo(file.vaultPath)),
  );
  const byVaultPath = (found: Map<string, string>) => {
    const out = new Map<string, string>();
    for (const file of missed) {
      const blob = found.get(inRepo(file.vaultPath));
      if (blob !== undefined) out.set(file.vaultPath, blob);
    }
    return out;
  };
  return {
    answer: asked.then(
      (found) => found && byVaultPath(found),
      () => undefined,
    ),
  };
}
