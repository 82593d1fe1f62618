import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from '../config/file.js';
import { writeFileAtomic } from '../util/atomic.js';
import type { SourceRecord } from './render.js';

/**
 * Which input files were ingested completely, one marker file per file and
 * mode in `.memvault/ingested/<stream>/<sha256>[.primer]`. A transcript
 * yields its memories one file at a time; a process killed between two (a
 * hook Claude Code stops after 60 s, a Ctrl-C) must not leave the file
 * counted as ingested. So the marker is written last, after every memory of
 * the file was written or found present, and "already ingested" needs it:
 * without it, `ingest` parses the file again and writes only what is missing
 * (the memories present are matched by session and part, never duplicated).
 * The memories themselves stay the record of what was ingested; the marker
 * is local state (a fresh clone has none: its first ingest of a file checks
 * every part once, writes nothing new, and marks the file).
 */
export class IngestJournal {
  private readonly dir: string;

  constructor(root: string, stream: string) {
    this.dir = path.join(root, STATE_DIR, 'ingested', stream);
  }

  private file(fileSha: string, mode: SourceRecord['mode']): string {
    return path.join(this.dir, `${fileSha}${mode ? `.${mode}` : ''}`);
  }

  /** Whether every memory of the file with these bytes was written in this mode. */
  isComplete(fileSha: string, mode: SourceRecord['mode']): boolean {
    return existsSync(this.file(fileSha, mode));
  }

  /** Marks the file complete: call only after its last memory was written. */
  complete(fileSha: string, mode: SourceRecord['mode'], memories: number): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.file(fileSha, mode), `${JSON.stringify({ memories })}\n`);
  }
}
