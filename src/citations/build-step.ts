import path from 'node:path';
import type { StreamState } from '../vault/model.js';
import { repoTop } from './git.js';
import { fixFor, staleNote } from './state.js';
import { openCitationStore } from './store.js';
import { verifyCitations, type VerifyStats } from './verify.js';

/**
 * Verification as a step of `memvault build` (and of `memvault verify`): the
 * memories' citations checked against the repository holding the vault, the
 * store updated, and what the package, INDEX.md and the report show of it.
 * A vault outside git, or whose memories cite nothing, costs nothing here.
 */

export interface CitationReport extends VerifyStats {
  /** Memories with a stale citation (gone, moved, heavily changed). */
  stale: number;
  /** Memories that became stale with this check: each with what it cites and the fix. */
  newlyStale: { path: string; note: string; fix: string }[];
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
  /** The repository to check against (config `verify.repo`); default the one holding the vault. */
  repo?: string;
}

export async function runCitationStep(options: CitationStepOptions): Promise<CitationStep> {
  const started = performance.now();
  const memories = [...options.streams].flatMap((s) => s.memories.filter((m) => m.citations !== undefined));
  const store = openCitationStore(path.join(options.root, '.memvault'));
  const notes = new Map<string, string>();
  const previous = store.readVerification();
  // Nothing cited and nothing recorded: not even a git process.
  if (memories.length === 0 && !previous) return { report: undefined, notes };
  const repo = options.repo ?? (await repoTop(options.vaultDir));
  if (!repo) return { report: undefined, notes };
  const result = await verifyCitations({ repo, memories, previous, now: options.now, ...(options.full ? { full: true } : {}) });
  if (!result) return { report: undefined, notes };
  for (const p of result.stale) {
    const note = staleNote(result.memories[p]!);
    if (note) notes.set(p, note);
  }
  if (!options.dryRun) {
    store.writeVerification(result.verification, result.memories);
    store.writeCitedBy({ repo, vault: path.relative(options.root, options.vaultDir).split(path.sep).join('/'), files: result.citedBy });
  }
  return {
    notes,
    report: {
      ...result.stats,
      stale: result.stale.length,
      newlyStale: result.newlyStale.map((p) => ({ path: p, note: notes.get(p) ?? '', fix: fixFor(p, result.memories[p]!) })),
      ms: Math.round(performance.now() - started),
    },
  };
}
