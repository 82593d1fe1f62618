import { type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { openStateStore, type StateStore } from '../store/database.js';
import { type KvTable, kvTable, zodDecode } from '../store/kv.js';
import { removeIfStaleTemp } from '../util/atomic.js';
import { RECORD_DIR } from '../store/committed-record.js';
import type { Diagnostic } from '../vault/model.js';
import { takeMovedAside } from './write.js';
import { diagnostic } from '../messages/diagnostic.js';

/**
 * Work a build does under its lock besides summarizing: removing what a
 * killed build left behind, and reporting files moved away from generated
 * paths (write.ts). Diagnostics name vault-relative paths.
 */

/**
 * Removes the temporary files of killed writers (see `removeIfStaleTemp`):
 * a build's or `consolidate --apply`'s (`.<name>.<pid>.<n>.tmp`, see
 * `writeFileAtomic`), `add`'s (`.memvault-new.<pid>.<n>.tmp`), and the state
 * folder's caches'. Every folder they can be in is looked at: the vault's top,
 * each stream's whole tree (memories at any depth, summaries, `history/`,
 * `archive/`…), the committed record (`.memvault-record/`) and the whole
 * state folder. Run under the build lock; one info line per file removed, so
 * a `git add -A` before the build is explained.
 *
 * Listing every folder costs ~15-70 ms at 20,000 memories. A folder whose
 * mtime and inode are those it had when an earlier sweep listed it has the
 * same entries (a file created, renamed or removed in it moves its mtime), so
 * it is not listed again (`SweptFolders`): ~1-5 ms once they are remembered.
 */
export function removeLeftoverTemps(vaultDir: string, stateDir: string, streams: Iterable<string>): Diagnostic[] {
  const memo = new SweptFolders(stateDir);
  const removed = [
    ...memo.sweep(vaultDir, { recursive: false, stateFolder: false }),
    ...memo.sweep(path.join(vaultDir, RECORD_DIR), { recursive: true, stateFolder: false }),
    ...[...streams].flatMap((stream) => memo.sweep(path.join(vaultDir, stream), { recursive: true, stateFolder: false })),
    ...memo.sweep(stateDir, { recursive: true, stateFolder: true }),
  ];
  memo.save();
  return removed.map((file) =>
    diagnostic(
      'build/leftover-temp',
      { path: path.relative(vaultDir, file).split(path.sep).join('/'), line: 1, column: 1 },
      'removed a temporary file left by a memvault command that was stopped before it finished',
    ),
  );
}

/** The state store's `swept-folders` rows of `kv`: the folders earlier sweeps listed, by absolute path. */
const SWEEP_STORE = 'swept-folders';
/**
 * A folder listed this soon after its last change may change again within the same mtime tick (1-2 s on some file
 * systems) without its mtime moving: it is listed again by the next sweep.
 */
const RACY_MS = 3_000;

/** A folder as a sweep listed it: mtime and inode before the listing, when it was listed, its subfolders' names. */
const sweptFolderSchema = z.object({ m: z.number(), i: z.number(), at: z.number(), sub: z.array(z.string()) });
type SweptFolder = z.infer<typeof sweptFolderSchema>;

class SweptFolders {
  private readonly store: StateStore | undefined;
  private readonly table: KvTable<SweptFolder> | undefined;
  private readonly before: Record<string, SweptFolder> = {};
  private readonly after: Record<string, SweptFolder> = {};

  constructor(stateDir: string) {
    try {
      this.store = openStateStore(stateDir);
      this.table = kvTable(this.store, SWEEP_STORE, zodDecode(sweptFolderSchema));
      for (const [dir, folder] of this.table.entries()) this.before[dir] = folder;
    } catch {
      // No store: every folder is listed, nothing is kept.
    }
  }

  /** Removes the stale temporary files in `root` (and, `recursive`, its subfolders but `.git`); returns their paths. */
  sweep(root: string, options: { recursive: boolean; stateFolder: boolean }): string[] {
    const removed: string[] = [];
    const pending = [root];
    // A stack, not recursion: depth is whatever the vault holds. Links are never followed (lstat, Dirent types).
    while (pending.length > 0) {
      const dir = pending.pop()!;
      let stat: Stats;
      try {
        stat = lstatSync(dir);
      } catch {
        continue;
      }
      if (!stat.isDirectory()) continue;
      const known = this.before[dir];
      if (known && known.m === stat.mtimeMs && known.i === stat.ino && known.at - known.m > RACY_MS) {
        this.after[dir] = known;
        if (options.recursive) for (const name of known.sub) pending.push(path.join(dir, name));
        continue;
      }
      const listedAt = Date.now();
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      const sub: string[] = [];
      let settled = true;
      for (const entry of entries) {
        if (entry.isDirectory()) {
          if (entry.name !== '.git') sub.push(entry.name);
          continue;
        }
        const outcome = removeIfStaleTemp(dir, entry.name, options.stateFolder);
        if (outcome === 'removed') removed.push(path.join(dir, entry.name));
        // A removal moved the folder's mtime; a live writer's file is looked at again: listed by the next sweep too.
        if (outcome !== undefined) settled = false;
      }
      if (settled) this.after[dir] = { m: stat.mtimeMs, i: stat.ino, at: listedAt, sub };
      if (options.recursive) for (const name of sub) pending.push(path.join(dir, name));
    }
    return removed;
  }

  /** Keeps what this sweep found (a folder gone or moved is forgotten), writing only the folders that changed. */
  save(): void {
    const { store, table } = this;
    if (!store || !table) return;
    const same = (a: SweptFolder | undefined, b: SweptFolder | undefined) => JSON.stringify(a) === JSON.stringify(b);
    const gone = Object.keys(this.before).filter((dir) => !(dir in this.after));
    const changed = Object.entries(this.after).filter(([dir, folder]) => !same(this.before[dir], folder));
    if (gone.length === 0 && changed.length === 0) return;
    try {
      store.transaction(() => {
        for (const dir of gone) table.delete(dir);
        for (const [dir, folder] of changed) table.set(dir, folder);
      });
    } catch {
      // Not kept: the next sweep lists every folder, nothing else is lost.
    }
  }
}

/** Warnings for the files moved aside by this build's writes, and their new paths (to commit with the build). */
export function movedAsideReport(): { diagnostics: Diagnostic[]; paths: string[] } {
  const moves = takeMovedAside();
  return {
    paths: moves.filter((move) => move.commit).map((move) => move.to),
    diagnostics: moves.map((move) => {
      const reason = `not written by memvault (${move.why}): moved to ${move.to} before writing the generated file`;
      return diagnostic('build/moved-aside', { path: move.from, line: 1, column: 1 }, reason, { facts: { path: move.from, to: move.to } });
    }),
  };
}
