import { closeSync, copyFileSync, existsSync, lstatSync, openSync, readFileSync, readSync, renameSync } from 'node:fs';
import path from 'node:path';
import { crashPoint } from '../util/crash-point.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ensureVaultFolder, mkdirInVault } from '../util/inside.js';
import type { Tier } from '../vault/model.js';
import { stamp, vaultPaths } from '../vault/paths.js';
import { frontmatterFence } from '../text/frontmatter-fence.js';

/**
 * Stage 5, write: applies file writes to the vault. Each write is atomic
 * (temp file + rename); a file whose content is already equal is not touched
 * (a no-change build writes nothing); a summary being replaced is first
 * copied to `history/<tier>/<period>-YYYYMMDD-HHMMSS.md`. A file at a
 * generated path that memvault did not write (a person's notes in `daily/`)
 * is never overwritten: it is moved aside first (see `handWrittenPath`).
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

/** A file memvault did not write, moved away from a generated path before that path was written. */
export interface MovedAside {
  /** The generated path it sat at (vault-relative). */
  from: string;
  /** Where it is now (vault-relative), committed with the build. */
  to: string;
  /** Why it is not memvault's: `no \`memvault:\` frontmatter`, `a symbolic link`… */
  why: string;
  /** A regular file, committed with the build; a link, FIFO or folder is moved but never committed (nor read). */
  commit: boolean;
}

/** Moves of this process not yet reported: `takeMovedAside` hands them to the build that reports and commits them. */
const movedAside: MovedAside[] = [];

/** The moves made since the last call (the build reports each as a warning and commits the new path). */
export function takeMovedAside(): MovedAside[] {
  return movedAside.splice(0);
}

export function applyWrites(vaultDir: string, ops: readonly WriteOp[], now: Date): WriteResult {
  const result: WriteResult = { written: [], historyCopies: [] };
  // All or none: a stream folder linked out of the project (or anywhere) stops the batch before its first write.
  for (const dir of new Set(ops.map((op) => path.dirname(path.join(vaultDir, op.path))))) ensureVaultFolder(vaultDir, dir);
  for (const op of ops) {
    const target = path.join(vaultDir, op.path);
    const stat = lstatSync(target, { throwIfNoEntry: false });
    // A symlink, FIFO or folder at a generated path is never read (it could lead out of the vault or block): it is moved aside.
    const regular = stat?.isFile() ?? false;
    // A JSON file of another size is not equal: only its head is read, all `writtenByMemvault` looks at in one
    // (a busy day's package manifest is ~30 MB, and one more memory changes it).
    const whole = regular && (!op.path.endsWith('.json') || op.history !== undefined || stat!.size === Buffer.byteLength(op.text));
    let previous = whole ? readFileSync(target, 'utf8') : undefined;
    if (previous === op.text) continue;
    mkdirInVault(vaultDir, path.dirname(target));
    if (stat && (!regular || !writtenByMemvault(op.path, previous ?? readHead(target)))) {
      const aside = freeHandWrittenPath(vaultDir, op.path, now);
      mkdirInVault(vaultDir, path.dirname(path.join(vaultDir, aside)));
      renameSync(target, path.join(vaultDir, aside));
      const why = regular
        ? 'no `memvault:` frontmatter'
        : stat.isSymbolicLink()
          ? 'a symbolic link'
          : stat.isDirectory()
            ? 'a folder'
            : 'not a regular file';
      movedAside.push({ from: op.path, to: aside, why, commit: regular });
      if (regular) result.historyCopies.push(aside);
      previous = undefined;
    }
    if (previous !== undefined && op.history) {
      const historyPath = freeHistoryPath(
        vaultDir,
        vaultPaths.history(op.history.stream, op.history.tier, op.history.period, now),
        previous,
      );
      if (historyPath) {
        mkdirInVault(vaultDir, path.dirname(path.join(vaultDir, historyPath)));
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

/** The first 64 KB of a file (what `writtenByMemvault` looks at), as UTF-8. */
function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

const HEAD_BYTES = 64 * 1024;

/**
 * Where to keep a replaced version: the stamped name, or `-2`, `-3`… when two
 * builds share a `now` (watch mode, repeated `--now`). Undefined when an equal
 * copy is already there.
 */
export function freeHistoryPath(vaultDir: string, stamped: string, content: string): string | undefined {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stamped : stamped.replace(/\.md$/, `-${n}.md`);
    const file = path.join(vaultDir, candidate);
    if (!existsSync(file)) return candidate;
    if (readFileSync(file, 'utf8') === content) return undefined;
  }
}

/**
 * True when `text` is a file memvault writes at a generated path: markdown
 * with `memvault:` in its frontmatter (summaries, packages, CONTEXT.md), the
 * index's own heading, or JSON whose first key is `"memvault"` (manifests,
 * index.json). Anything else there is somebody's file.
 */
export function writtenByMemvault(vaultPath: string, text: string): boolean {
  const head = text.slice(0, 64 * 1024).replace(/^\uFEFF/, '');
  if (vaultPath.endsWith('.json')) return /^\{\s*"memvault"\s*:\s*"[a-z-]+"/.test(head);
  if (vaultPath === vaultPaths.indexMarkdown && head.startsWith('# Memory vault index\n')) return true;
  const front = frontmatterFence(head);
  if (front !== undefined) return /^memvault:[ \t]*[a-z-]+[ \t]*$/m.test(front.matter);
  // Frontmatter longer than the head: a daily written before its sources were bounded (summary-file.ts) opens with
  // `memvault: summary` on its first line, as every generated summary does; the fence still has to close somewhere.
  return /^---\r?\nmemvault:[ \t]*summary[ \t]*\r?\n/.test(head) && /\n---(?:\r?\n|$)/.test(text.slice(head.length - 8));
}

/**
 * Where a file memvault did not write goes before its path is written:
 * inside a stream, `<stream>/history/hand-written/<path in stream>-YYYYMMDD-HHMMSS<ext>`
 * (`history/` is never read as input, and is committed); at the top of the
 * vault (`INDEX.md`), `<name>.hand-written-YYYYMMDD-HHMMSS<ext>` beside it.
 * `-2`, `-3`… when taken. Uses the wall clock when the build's `now` is the epoch (the index).
 */
export function freeHandWrittenPath(vaultDir: string, vaultPath: string, now: Date): string {
  const when = stamp(now.getTime() === 0 ? new Date() : now);
  const ext = path.posix.extname(vaultPath);
  const slash = vaultPath.indexOf('/');
  const base =
    slash > 0
      ? `${vaultPath.slice(0, slash)}/history/hand-written/${vaultPath.slice(slash + 1, vaultPath.length - ext.length)}-${when}`
      : `${vaultPath.slice(0, vaultPath.length - ext.length)}.hand-written-${when}`;
  for (let n = 1; ; n++) {
    const candidate = `${base}${n === 1 ? '' : `-${n}`}${ext}`;
    if (!existsSync(path.join(vaultDir, candidate))) return candidate;
  }
}
