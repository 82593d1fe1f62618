import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';

/**
 * The usage log of earlier versions, carried over into the `usage_events`
 * table (schema 3) in the migration's transaction. Those versions appended one
 * JSON line per served item to `.memvault/usage.log`; each build renamed it to
 * `usage.log.folded`, counted it from the offset its totals (`usage-state`)
 * recorded, and removed it at the next build. The lines not counted yet are
 * imported here, read the way that fold read them, and the totals' offset is
 * dropped; both files go once the transaction is committed (`OBSOLETE_PATHS`).
 */

export const LEGACY_USAGE_LOG = 'usage.log';
export const LEGACY_FOLDED_LOG = 'usage.log.folded';

interface LegacyOffsets {
  /** Bytes counted of the file `ino` names (the folded log), or of `usage.log` when there is no `ino`. */
  offset: number;
  ino?: number;
}

interface LoggedLine {
  ts: string;
  stream: string;
  path: string;
  via: string;
}

export function importLegacyUsageLog(db: Database.Database, stateDir: string): void {
  const offsets = legacyOffsets(db, stateDir);
  const folded = readLines(path.join(stateDir, LEGACY_FOLDED_LOG), (ino) =>
    offsets.ino === undefined || ino === offsets.ino ? offsets.offset : 0,
  );
  // A folded log means the live one was started after the rename: all of it is new.
  const live = readLines(path.join(stateDir, LEGACY_USAGE_LOG), () => (folded.found || offsets.ino !== undefined ? 0 : offsets.offset));
  const insert = db.prepare('INSERT INTO usage_events (ts, stream, path, via) VALUES (?, ?, ?, ?)');
  for (const line of [...folded.lines, ...live.lines]) insert.run(line.ts, line.stream, line.path, line.via);
}

/** The offsets the totals recorded: the state store's `usage-state` row, else the totals file of still earlier versions. */
function legacyOffsets(db: Database.Database, stateDir: string): LegacyOffsets {
  const row = db.prepare("SELECT value FROM kv WHERE store = 'usage-state' AND key = 'state'").get() as { value: string } | undefined;
  let raw: unknown;
  try {
    raw = row ? JSON.parse(row.value) : JSON.parse(readFileSync(path.join(stateDir, 'usage-state.json'), 'utf8'));
  } catch {
    return { offset: 0 };
  }
  if (typeof raw !== 'object' || raw === null) return { offset: 0 };
  const { offset, ino } = raw as Record<string, unknown>;
  return { offset: typeof offset === 'number' ? offset : 0, ...(typeof ino === 'number' ? { ino } : {}) };
}

/** The complete, valid lines of `file` from the byte `from(inode)` names (a file shorter than that: from its start). */
function readLines(file: string, from: (ino: number) => number): { found: boolean; lines: LoggedLine[] } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { found: false, lines: [] };
  }
  try {
    const { size, ino } = fstatSync(fd);
    const offset = from(ino);
    const start = size < offset ? 0 : offset;
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const complete = buffer.lastIndexOf(0x0a, read - 1) + 1;
    const lines: LoggedLine[] = [];
    for (const text of buffer.subarray(0, complete).toString('utf8').split('\n')) {
      if (!text) continue;
      try {
        const value: unknown = JSON.parse(text);
        if (typeof value !== 'object' || value === null) continue;
        const { ts, stream, path: vaultPath, via } = value as Record<string, unknown>;
        if (typeof ts === 'string' && typeof stream === 'string' && typeof vaultPath === 'string')
          lines.push({ ts, stream, path: vaultPath, via: String(via ?? '') });
      } catch {
        // A damaged line (a disk that filled up mid-write) costs one count, not the log.
      }
    }
    return { found: true, lines };
  } finally {
    closeSync(fd);
  }
}
