import { readdirSync } from 'node:fs';
import path from 'node:path';
import { removeStaleTempFiles } from '../util/atomic.js';
import type { Diagnostic } from '../vault/model.js';
import { takeMovedAside } from './write.js';
import { diagnostic } from '../messages/diagnostic.js';

/**
 * Work a build does under its lock besides summarizing: removing what a
 * killed build left behind, and reporting files moved away from generated
 * paths (write.ts). Diagnostics name vault-relative paths.
 */

/**
 * Removes the temporary files of killed builds (`.<name>.<pid>.<n>.tmp`, see
 * `writeFileAtomic`) from every folder a build writes: the vault's top, each
 * stream and its folders (`daily/`, `history/daily/`, `waterfall/history/`…),
 * and the state folder. One info line per file removed, so a `git add -A`
 * before the build is explained.
 */
export function removeLeftoverTemps(vaultDir: string, stateDir: string, streams: Iterable<string>): Diagnostic[] {
  const dirs = [vaultDir, stateDir, path.join(stateDir, 'cache')];
  for (const stream of streams) {
    const streamDir = path.join(vaultDir, stream);
    dirs.push(streamDir);
    for (const sub of subfolders(streamDir)) {
      dirs.push(path.join(streamDir, sub));
      if (sub === 'history' || sub === 'waterfall')
        for (const deeper of subfolders(path.join(streamDir, sub))) dirs.push(path.join(streamDir, sub, deeper));
    }
  }
  return removeStaleTempFiles(dirs).map((file) =>
    diagnostic(
      'build/leftover-temp',
      { path: path.relative(vaultDir, file).split(path.sep).join('/'), line: 1, column: 1 },
      'removed a temporary file left by a build that was stopped before it finished',
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

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
