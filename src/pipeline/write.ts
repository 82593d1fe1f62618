import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { crashPoint } from '../git/crash-point.js';
import { writeFileAtomic } from '../util/atomic.js';
import type { Tier } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';

/**
 * Stage 5, write: applies file writes to the vault. Each write is atomic
 * (temp file + rename); a file whose content is already equal is not touched
 * (a no-change build writes nothing); a summary being replaced is first
 * copied to `history/<tier>/<period>-YYYYMMDD-HHMMSS.md`.
 */

export interface WriteOp {
  /** Vault-relative POSIX path. */
  path: string;
  text: string;
  /** Set for generated summaries: where the previous version is kept before it is replaced. */
  history?: { stream: string; tier: Tier; period: string };
}

export interface WriteResult {
  written: string[];
  historyCopies: string[];
}

export function applyWrites(vaultDir: string, ops: readonly WriteOp[], now: Date): WriteResult {
  const result: WriteResult = { written: [], historyCopies: [] };
  for (const op of ops) {
    const target = path.join(vaultDir, op.path);
    const previous = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (previous === op.text) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    if (previous !== undefined && op.history) {
      const historyPath = freeHistoryPath(vaultDir, vaultPaths.history(op.history.stream, op.history.tier, op.history.period, now), previous);
      if (historyPath) {
        mkdirSync(path.dirname(path.join(vaultDir, historyPath)), { recursive: true });
        copyFileSync(target, path.join(vaultDir, historyPath));
        result.historyCopies.push(historyPath);
      }
    }
    writeFileAtomic(target, op.text);
    crashPoint('write'); // test-only fault injection (MEMVAULT_TEST_CRASH_AFTER)
    result.written.push(op.path);
  }
  return result;
}

/**
 * Where to keep a replaced version: the stamped name, or `-2`, `-3`… when two
 * builds share a `now` (watch mode, repeated `--now`). Undefined when an equal
 * copy is already there.
 */
function freeHistoryPath(vaultDir: string, stamped: string, content: string): string | undefined {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stamped : stamped.replace(/\.md$/, `-${n}.md`);
    const file = path.join(vaultDir, candidate);
    if (!existsSync(file)) return candidate;
    if (readFileSync(file, 'utf8') === content) return undefined;
  }
}
