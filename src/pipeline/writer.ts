import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { mkdirInVault } from '../util/inside.js';
import { vaultPaths } from '../vault/paths.js';
import { applyWrites, freeHandWrittenPath, freeHistoryPath, type WriteOp, type WriteResult, writtenByMemvault } from './write.js';

/**
 * Where the build's stages write: every write, move and read-back of a file
 * the build itself makes goes through the `Writer` in the `BuildContext`.
 * A build's writer is the disk (`diskWriter`: atomic writes, renames); a
 * dry run's is a `RecordingWriter`, which keeps the files in memory, answers
 * reads of them, and lists what a build would have written or moved, so
 * `build --dry-run` is the same run as a build and leaves the vault as it was.
 * Paths are vault-relative (POSIX).
 */

/** What the stages ask of a file they wrote (the parse cache records its size and mtime). */
export interface FileFacts {
  size: number;
  mtimeMs: number;
}

/** One change a dry run's writer recorded: what a build would write or move. */
export interface RecordedChange {
  op: 'write' | 'move';
  /** Vault-relative path written, or moved to. */
  path: string;
  /** A move: where the file was. */
  from?: string;
  bytes: number;
  /**
   * Its size is an estimate: it holds a dry run's placeholder summary (estimate.ts `PLACEHOLDER_MARK`), or it is made
   * from summaries after one was made (a package, its manifest, the index, CONTEXT.md: token counts, sizes).
   */
  estimate?: true;
}

export interface Writer {
  /** True for a dry run's writer: nothing reaches the disk. */
  readonly recording: boolean;
  /** Writes files (the write stage's rules: unchanged files are not touched, replaced summaries copied to history). */
  write(ops: readonly WriteOp[], now: Date): WriteResult;
  /** Moves a file; false (and nothing done) when the target exists or the source is gone. */
  move(from: string, to: string): boolean;
  /** Size and mtime of a file as the build left it so far; undefined when there is none. */
  stat(vaultPath: string): FileFacts | undefined;
  /** A file's text as the build left it so far; undefined when there is none. */
  read(vaultPath: string): string | undefined;
}

/** A build's writer: the vault on disk. */
export function diskWriter(vaultDir: string): Writer {
  const absolute = (vaultPath: string) => path.join(vaultDir, vaultPath);
  return {
    recording: false,
    write: (ops, now) => applyWrites(vaultDir, ops, now),
    move(from, to) {
      if (existsSync(absolute(to)) || !existsSync(absolute(from))) return false;
      mkdirInVault(vaultDir, path.dirname(absolute(to)));
      renameSync(absolute(from), absolute(to));
      return true;
    },
    stat: (vaultPath) => statSync(absolute(vaultPath), { throwIfNoEntry: false }),
    read: (vaultPath) => readText(absolute(vaultPath)),
  };
}

/**
 * A dry run's writer: the disk as the build would leave it, kept in memory over the files as they are. Its
 * `changes()` are what a build would write and move, each path once (its last content), in the order first changed.
 */
export class RecordingWriter implements Writer {
  readonly recording = true;
  /** Files written here: their text. */
  private readonly written = new Map<string, string>();
  /** Files moved here from a path on disk (the text is still there). */
  private readonly movedFromDisk = new Map<string, string>();
  /** Paths on disk that a write or move took away. */
  private readonly gone = new Set<string>();
  private readonly changed = new Map<string, RecordedChange>();
  /** The mtime reported for files written here: the time the dry run started. */
  private readonly mtimeMs = Date.now();
  /** A placeholder was written: what is made from the summaries after it (no `history`: not a summary) is an estimate. */
  private placeholders = false;

  constructor(
    private readonly vaultDir: string,
    /** Marks content made of placeholders (its size is an estimate). */
    private readonly isEstimate: (text: string) => boolean = () => false,
  ) {}

  write(ops: readonly WriteOp[], now: Date): WriteResult {
    const result: WriteResult = { written: [], historyCopies: [] };
    for (const op of ops) {
      const previous = this.read(op.path);
      if (previous === op.text) continue;
      const onDisk = previous !== undefined && !this.written.has(op.path) && !this.movedFromDisk.has(op.path);
      if (onDisk && !writtenByMemvault(op.path, previous)) {
        // A person's file at a generated path is moved aside first (write.ts).
        const aside = freeHandWrittenPath(this.vaultDir, op.path, now);
        this.move(op.path, aside);
        result.historyCopies.push(aside);
      } else if (previous !== undefined && op.history) {
        const stamped = vaultPaths.history(op.history.stream, op.history.tier, op.history.period, now);
        const copy = freeHistoryPath(this.vaultDir, stamped, previous);
        if (copy) {
          this.record(copy, previous, this.isEstimate(previous));
          result.historyCopies.push(copy);
        }
      }
      const placeholder = this.isEstimate(op.text);
      this.placeholders ||= placeholder;
      this.record(op.path, op.text, placeholder || (op.history === undefined && this.placeholders));
      result.written.push(op.path);
    }
    return result;
  }

  move(from: string, to: string): boolean {
    if (this.stat(to) !== undefined || this.stat(from) === undefined) return false;
    const text = this.written.get(from);
    if (text !== undefined) {
      this.written.delete(from);
      this.changed.delete(from);
      this.gone.add(from);
      this.record(to, text, this.isEstimate(text));
      return true;
    }
    const diskPath = this.movedFromDisk.get(from) ?? from;
    this.movedFromDisk.delete(from);
    this.gone.add(from);
    this.movedFromDisk.set(to, diskPath);
    this.gone.delete(to);
    const bytes = statSync(path.join(this.vaultDir, diskPath)).size;
    this.changed.delete(from);
    this.changed.set(to, { op: 'move', path: to, from: diskPath, bytes });
    return true;
  }

  stat(vaultPath: string): FileFacts | undefined {
    const text = this.written.get(vaultPath);
    if (text !== undefined) return { size: Buffer.byteLength(text), mtimeMs: this.mtimeMs };
    const diskPath = this.diskPathOf(vaultPath);
    return diskPath === undefined ? undefined : statSync(path.join(this.vaultDir, diskPath), { throwIfNoEntry: false });
  }

  read(vaultPath: string): string | undefined {
    const text = this.written.get(vaultPath);
    if (text !== undefined) return text;
    const diskPath = this.diskPathOf(vaultPath);
    return diskPath === undefined ? undefined : readText(path.join(this.vaultDir, diskPath));
  }

  /** What a build would write and move, in the order first changed. */
  changes(): RecordedChange[] {
    return [...this.changed.values()];
  }

  private record(vaultPath: string, text: string, estimate: boolean): void {
    this.written.set(vaultPath, text);
    this.movedFromDisk.delete(vaultPath);
    this.gone.delete(vaultPath);
    const change: RecordedChange = { op: 'write', path: vaultPath, bytes: Buffer.byteLength(text) };
    if (estimate) change.estimate = true;
    this.changed.delete(vaultPath);
    this.changed.set(vaultPath, change);
  }

  /** Where the file now at `vaultPath` is on disk, when it was not written here. */
  private diskPathOf(vaultPath: string): string | undefined {
    const moved = this.movedFromDisk.get(vaultPath);
    if (moved !== undefined) return moved;
    return this.gone.has(vaultPath) ? undefined : vaultPath;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
