import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { ArchiveMove } from './calendar/archive.js';
import { ARCHIVED_TIERS } from '../time/tiers.js';
import { openStateStore } from '../store/database.js';
import { kvTable, zodDecode } from '../store/kv.js';

/**
 * The record of what memvault wrote or moved in the vault and has not
 * committed yet: builds with `--no-commit` (or `git.commit: false`) and
 * `memvault watch` without `--commit-every` add to it; the next committing
 * build commits exactly these paths (an archive move as both its ends, so
 * git records a rename, never a lone deletion) and clears it. `status`
 * reports it. It lives in the state store (`.memvault/state.sqlite`, the
 * `pending` row of `kv`), outside git; the store's first open carries over
 * the `.memvault/uncommitted.json` of earlier versions.
 *
 * A file is recorded with the SHA-256 of what memvault wrote: if a person
 * edits it afterwards, the edit is theirs, and the build leaves it alone.
 */

/** One file memvault wrote: vault-relative path and the SHA-256 of what it wrote. */
export interface PendingFile {
  path: string;
  sha256: string;
}

export interface PendingWork {
  /** Summaries, packages, index files: what the builds wrote. */
  written: PendingFile[];
  /** Previous versions copied to `history/`. */
  historyCopies: PendingFile[];
  /** Moves to `archive/`: the old path is gone, the new one holds the file. */
  archived: ArchiveMove[];
}

/** The part of a build report the record needs. */
export interface BuildOutputs {
  written: readonly string[];
  historyCopies: readonly string[];
  archived: readonly ArchiveMove[];
}

const EMPTY: PendingWork = { written: [], historyCopies: [], archived: [] };

/** Every vault-relative path the record names (both ends of each move), sorted. */
export function pendingPaths(work: PendingWork): string[] {
  const paths = new Set<string>([...work.written.map((f) => f.path), ...work.historyCopies.map((f) => f.path)]);
  for (const move of work.archived) {
    paths.add(move.from);
    paths.add(move.to);
  }
  return [...paths].sort();
}

export function isEmpty(work: PendingWork): boolean {
  return work.written.length + work.historyCopies.length + work.archived.length === 0;
}

/**
 * The record with one more uncommitted build added (pure): a path written
 * again keeps only its newest hash; a move is listed once per source path.
 */
export function addBuild(work: PendingWork, outputs: BuildOutputs, hashOf: (vaultPath: string) => string | undefined): PendingWork {
  const merge = (before: readonly PendingFile[], paths: readonly string[]): PendingFile[] => {
    const byPath = new Map(before.map((file) => [file.path, file]));
    for (const file of paths) {
      const sha256 = hashOf(file);
      if (sha256 !== undefined) byPath.set(file, { path: file, sha256 });
    }
    return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  };
  const moves = new Map(work.archived.map((move) => [move.from, move]));
  for (const move of outputs.archived) moves.set(move.from, move);
  return {
    written: merge(work.written, outputs.written),
    historyCopies: merge(work.historyCopies, outputs.historyCopies),
    archived: [...moves.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0)),
  };
}

/** What a committing build takes from the record: the outputs to commit besides its own, and the written files pinned to their hash. */
export interface PendingCommit {
  outputs: BuildOutputs;
  pinned: ReadonlyMap<string, string>;
}

/**
 * What a committing build adds to its commit from the record (pure): every
 * move and history copy as it is, and the written files pinned to the hash
 * memvault wrote (one a person edited since is left out). Files the build
 * itself wrote again are its own, not pinned. Undefined when the record is empty.
 */
export function pendingCommit(work: PendingWork, ownWritten: readonly string[]): PendingCommit | undefined {
  if (isEmpty(work)) return undefined;
  const own = new Set(ownWritten);
  const pinned = new Map<string, string>();
  for (const file of work.written) if (!own.has(file.path)) pinned.set(file.path, file.sha256);
  return {
    outputs: { written: [...pinned.keys()], historyCopies: work.historyCopies.map((file) => file.path), archived: work.archived },
    pinned,
  };
}

/** A build report with the record's outputs added, so the commit's paths and message cover both (pure). */
export function withPending<T extends BuildOutputs>(report: T, pending: PendingCommit | undefined): T {
  if (!pending) return report;
  const moved = new Set(report.archived.map((move) => move.from));
  return {
    ...report,
    written: [...new Set([...report.written, ...pending.outputs.written])],
    historyCopies: [...new Set([...report.historyCopies, ...pending.outputs.historyCopies])],
    archived: [...report.archived, ...pending.outputs.archived.filter((move) => !moved.has(move.from))],
  };
}

/** The commit's selected paths with the record's written files moved from `paths` to `pinned` (pure). */
export function pinPending<T extends { paths: readonly string[]; pinned: ReadonlyMap<string, string> }>(
  selected: T,
  pending: PendingCommit | undefined,
): T {
  if (!pending) return selected;
  return {
    ...selected,
    paths: selected.paths.filter((file) => !pending.pinned.has(file)),
    pinned: new Map([...selected.pinned, ...pending.pinned]),
  };
}

const pendingFileSchema = z.object({ path: z.string(), sha256: z.string() });
/** The record as stored; entries that are not well formed are dropped one by one (the rest is still committed). */
const pendingSchema = z.object({
  written: z.array(z.unknown()).catch([]),
  historyCopies: z.array(z.unknown()).catch([]),
  archived: z.array(z.unknown()).catch([]),
});
const moveSchema = z.object({
  stream: z.string(),
  kind: z.enum(['memory', ...ARCHIVED_TIERS]),
  id: z.string(),
  from: z.string(),
  to: z.string(),
  quarter: z.string(),
}) satisfies z.ZodType<ArchiveMove>;

function pendingTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), 'pending', zodDecode(pendingSchema));
}

/** Reads the record of the project whose state folder is `stateDir` (`.memvault/`); empty when there is none or it is unreadable. */
export function readPending(stateDir: string): PendingWork {
  const raw = pendingTable(stateDir).get('work');
  if (!raw) return EMPTY;
  const keep = <T>(items: unknown[], schema: z.ZodType<T>): T[] =>
    items.flatMap((item) => {
      const parsed = schema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  return {
    written: keep(raw.written, pendingFileSchema),
    historyCopies: keep(raw.historyCopies, pendingFileSchema),
    archived: keep(raw.archived, moveSchema),
  };
}

/** Writes the record, or removes it when it is empty. */
export function writePending(stateDir: string, work: PendingWork): void {
  const table = pendingTable(stateDir);
  if (isEmpty(work)) table.delete('work');
  else table.set('work', work);
}

/**
 * After a build: a build that did not commit (commits off) adds what it
 * wrote and moved to the record; a build that committed (or found nothing
 * to commit) took the record's paths into its commit, so the record goes.
 * A build outside git, a dry run or a failed commit leaves the record as it is.
 */
export function settlePending(stateDir: string, vaultDir: string, outputs: BuildOutputs, commit: { status: string } | null): void {
  if (commit === null) return;
  if (commit.status === 'committed' || commit.status === 'unchanged') {
    writePending(stateDir, EMPTY);
    return;
  }
  if (commit.status !== 'disabled') return;
  if (outputs.written.length + outputs.historyCopies.length + outputs.archived.length === 0) return;
  writePending(
    stateDir,
    addBuild(readPending(stateDir), outputs, (file) => sha256Of(path.join(vaultDir, ...file.split('/')))),
  );
}

function sha256Of(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}
