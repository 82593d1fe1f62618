import { existsSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import type { Memory, StreamState } from '../vault/model.js';
import { hashValue } from '../util/hash.js';
import { headCommit, repoAndHead, repoTop } from './git.js';
import { fixFor, staleNote } from './state.js';
import { openCitationStore } from './store.js';
import { verifyCitations, type VerifyStats } from './verify.js';

/**
 * Verification as a step of `memvault build` (and of `memvault verify`): the
 * memories' citations checked against the repository holding the vault, the
 * store updated, and what the package, INDEX.md and the report show of it.
 * A vault outside git, or whose memories cite nothing, costs nothing here.
 */

/** Newly stale memories a build report names one by one. */
const MAX_NEWLY_STALE_LISTED = 100;

export interface CitationReport extends VerifyStats {
  /** Memories with a stale citation (gone, moved, heavily changed). */
  stale: number;
  /** Memories that became stale with this check (the first `MAX_NEWLY_STALE_LISTED`): each with what it cites and the fix. */
  newlyStale: { path: string; note: string; fix: string }[];
  newlyStaleCount: number;
  ms: number;
}

export interface CitationStep {
  report: CitationReport | undefined;
  /** Per stale memory (vault path): the line the package and the context show under it. */
  notes: Map<string, string>;
}

export interface CitationStepOptions {
  /** The project root (its `.memvault/` holds the store). */
  root: string;
  vaultDir: string;
  streams: Iterable<StreamState>;
  now: Date;
  /** Plan only: check, but write no store. */
  dryRun?: boolean;
  /** Check everything again (`memvault verify --full`). */
  full?: boolean;
  /**
   * A folder of the repository to check against (config `verify.repo`, absolute: `verifyRepoOf`); default the one
   * holding the vault. Not a git repository with a commit: a `config/verify-repo` error.
   */
  repo?: string | undefined;
}

/** The folder `verify.repo` names, resolved against the project root; undefined when not configured. */
export function verifyRepoOf(root: string, config: { verify?: { repo?: string | undefined } | undefined }): string | undefined {
  const repo = config.verify?.repo;
  return repo === undefined ? undefined : path.resolve(root, repo);
}

export async function runCitationStep(options: CitationStepOptions): Promise<CitationStep> {
  const started = performance.now();
  // Issues are not checked (no network): a memory citing only issues has nothing to verify.
  const memories = [...options.streams].flatMap((s) => s.memories.filter((m) => m.citations?.some((c) => c.kind !== 'issue')));
  const store = openCitationStore(path.join(options.root, '.memvault'));
  const notes = new Map<string, string>();
  const previous = store.readVerification();
  // Nothing cited and nothing recorded: not even a git process.
  if (memories.length === 0 && !previous) return { report: undefined, notes };
  // The same citing memories (by content) at the same HEAD: the last results hold as they are. One git process, and
  // only the stale memories' records read back (the no-change rebuild's case).
  const inputs = hashValue(memories.map((m) => [m.path, m.sha256]));
  // A configured repository is asked for its top folder and HEAD first (one git process, as the fast path's own).
  const configured = options.repo !== undefined ? await configuredRepo(options.repo) : undefined;
  if (
    !options.full &&
    previous?.inputs === inputs &&
    (configured ? configured.repo === previous.repo : isInside(previous.repo, options.vaultDir))
  ) {
    const head = configured?.head ?? (await headCommit(previous.repo));
    if (head && head === previous.head && previous.notes) {
      for (const [p, note] of Object.entries(previous.notes)) notes.set(p, note);
      const counts = countTargets(memories);
      const quotes = Object.keys(previous.quotes ?? {}).length;
      const stats = { head, ...counts, recheckedPaths: 0, rechecked: 0, recheckedCitations: 0, quotes, recheckedQuotes: 0, from: head };
      const report = {
        ...stats,
        stale: previous.stale.length,
        newlyStale: [],
        newlyStaleCount: 0,
        ms: Math.round(performance.now() - started),
      };
      return { notes, report };
    }
  }
  const found = configured ?? (await repoAndHead(options.vaultDir));
  const repo = found?.repo;
  if (!repo || !found.head) return { report: undefined, notes };
  const result = await verifyCitations({
    repo,
    head: found.head,
    memories,
    previous,
    now: options.now,
    ...(options.full ? { full: true } : {}),
  });
  if (!result) return { report: undefined, notes };
  result.verification.inputs = inputs;
  for (const p of result.stale) {
    const note = staleNote(result.memories[p]!);
    if (note) notes.set(p, note);
  }
  result.verification.notes = Object.fromEntries(notes);
  if (!options.dryRun) {
    // The memories' records hold only what the memories say: unchanged memories, unchanged records.
    const sameMemories = previous?.inputs === inputs && previous.repo === repo && store.readMemories() !== undefined;
    store.writeVerification(result.verification, sameMemories ? undefined : result.memories);
    store.writeCitedBy({ repo, vault: path.relative(options.root, options.vaultDir).split(path.sep).join('/'), files: result.citedBy });
  }
  return {
    notes,
    report: {
      ...result.stats,
      stale: result.stale.length,
      // The first ones named with their fix (a commit can make thousands stale at once); `newlyStaleCount` has them all.
      newlyStale: result.newlyStale
        .slice(0, MAX_NEWLY_STALE_LISTED)
        .map((p) => ({ path: p, note: notes.get(p) ?? '', fix: fixFor(p, result.memories[p]!) })),
      newlyStaleCount: result.newlyStale.length,
      ms: Math.round(performance.now() - started),
    },
  };
}

/** Distinct cited paths, commits and branches, and all citations: the counts a report gives. */
function countTargets(memories: readonly Memory[]): { targets: number; paths: number; citations: number } {
  const targets = new Set<string>();
  let paths = 0;
  let citations = 0;
  for (const memory of memories) {
    for (const c of memory.citations ?? []) {
      if (c.kind === 'issue') continue;
      citations++;
      if (targets.has(`${c.kind}:${c.target}`)) continue;
      targets.add(`${c.kind}:${c.target}`);
      if (c.kind === 'path') paths++;
    }
  }
  return { targets: targets.size, paths, citations };
}

/** The top folder and HEAD of the configured repository, or a `config/verify-repo` error saying what to do. */
async function configuredRepo(folder: string): Promise<{ repo: string; head: string }> {
  const found = await repoAndHead(folder);
  if (found) return found;
  const why = !existsSync(folder)
    ? 'does not exist'
    : (await repoTop(folder))
      ? 'is in a git repository without commits'
      : 'is not in a git repository';
  throw new UserError('config/verify-repo', `verify.repo in memory.config.yaml: ${folder} ${why}`);
}

function isInside(folder: string, inner: string): boolean {
  const relative = path.relative(folder, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
