import { type Dirent, readdirSync } from 'node:fs';
import path from 'node:path';
import { removeStaleTempFiles } from '../util/atomic.js';
import { RECORD_DIR } from '../vault/committed-record.js';
import type { Diagnostic } from '../vault/model.js';
import { takeMovedAside } from './write.js';
import { diagnostic } from '../messages/diagnostic.js';

/**
 * Work a build does under its lock besides summarizing: removing what a
 * killed build left behind, and reporting files moved away from generated
 * paths (write.ts). Diagnostics name vault-relative paths.
 */

/**
 * Removes the temporary files of killed writers (see `removeStaleTempFiles`):
 * a build's or `consolidate --apply`'s (`.<name>.<pid>.<n>.tmp`, see
 * `writeFileAtomic`), `add`'s (`.memvault-new.<pid>.<n>.tmp`), and the state
 * folder's caches'. Every folder they can be in is looked at: the vault's top,
 * each stream's whole tree (memories at any depth, summaries, `history/`,
 * `archive/`…), the committed record (`.memvault-record/`) and the whole
 * state folder. Run under the build lock; one info line per file removed, so
 * a `git add -A` before the build is explained.
 */
export function removeLeftoverTemps(vaultDir: string, stateDir: string, streams: Iterable<string>): Diagnostic[] {
  const vaultDirs = [vaultDir, ...foldersUnder(path.join(vaultDir, RECORD_DIR))];
  for (const stream of streams) vaultDirs.push(...foldersUnder(path.join(vaultDir, stream)));
  const removed = [...removeStaleTempFiles(vaultDirs), ...removeStaleTempFiles(foldersUnder(stateDir), { stateFolder: true })];
  return removed.map((file) =>
    diagnostic(
      'build/leftover-temp',
      { path: path.relative(vaultDir, file).split(path.sep).join('/'), line: 1, column: 1 },
      'removed a temporary file left by a memvault command that was stopped before it finished',
    ),
  );
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

/**
 * `dir` and every folder under it (links not followed, `.git` left out); none when `dir` is not a folder. A stack, not
 * recursion: depth is whatever the vault holds. Listing every folder costs ~15 ms at 20,000 memories (docs/performance.md).
 */
function foldersUnder(dir: string): string[] {
  const out: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    out.push(current);
    for (const entry of entries) if (entry.isDirectory() && entry.name !== '.git') pending.push(path.join(current, entry.name));
  }
  return out;
}
