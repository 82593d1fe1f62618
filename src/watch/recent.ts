import { lstatSync } from 'node:fs';

/**
 * The files the file watcher reported last, each with what `stat` said then,
 * so they can be checked again on a timer. chokidar can miss a save that
 * deletes a file and creates it again (some editors' "safe write"): when both
 * are done before it reads the folder, the folder looks unchanged and the old
 * file's watch is gone with its inode. Seen under load in the e2e test; the
 * watcher polls these few files (`changed()`) to catch such a save.
 */
export class RecentFiles {
  private readonly seen = new Map<string, string>();

  /** `limit`: how many files are kept (the most recently reported). */
  constructor(private readonly limit = 64) {}

  /** Records `file` (a key) as just reported, with the state of `absolute` now. */
  note(file: string, absolute: string): void {
    this.seen.delete(file);
    this.seen.set(file, signature(absolute));
    if (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value!);
  }

  /** The files whose state differs from when they were last noted or checked; `absoluteOf` maps a key to its path. */
  changed(absoluteOf: (file: string) => string): string[] {
    const out: string[] = [];
    for (const [file, before] of this.seen) {
      const now = signature(absoluteOf(file));
      if (now === before) continue;
      this.seen.set(file, now);
      out.push(file);
    }
    return out;
  }

  get size(): number {
    return this.seen.size;
  }
}

/** Inode, size and mtime (ns) of a file, or `missing`: a save that replaces the file changes at least one of them. */
function signature(absolute: string): string {
  try {
    const stat = lstatSync(absolute, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return 'missing';
  }
}
