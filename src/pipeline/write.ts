import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
      const historyPath = vaultPaths.history(op.history.stream, op.history.tier, op.history.period, now);
      const historyTarget = path.join(vaultDir, historyPath);
      if (!existsSync(historyTarget)) {
        mkdirSync(path.dirname(historyTarget), { recursive: true });
        copyFileSync(target, historyTarget);
        result.historyCopies.push(historyPath);
      }
    }
    writeFileAtomic(target, op.text);
    result.written.push(op.path);
  }
  return result;
}
