import path from 'node:path';
import * as z from 'zod';
import { STATE_DIR } from '../config/file.js';
import { openStateStore } from '../store/database.js';
import { type KvTable, kvTable, zodDecode } from '../store/kv.js';
import type { SourceRecord } from './render.js';

/**
 * Which input files were ingested completely: one row per file and mode in
 * the state store (`.memvault/state.sqlite`, the `ingested` rows of `kv`,
 * keyed `<stream>/<sha256>[.primer]`). A transcript yields its memories one
 * file at a time; a process killed between two (a hook Claude Code stops
 * after 60 s, a Ctrl-C) must not leave the file counted as ingested. So the
 * row is written last, after every memory of the file was written or found
 * present, and "already ingested" needs it: without it, `ingest` parses the
 * file again and writes only what is missing (the memories present are
 * matched by session and part, never duplicated). The memories themselves
 * stay the record of what was ingested; the row is local state (a fresh
 * clone has none: its first ingest of a file checks every part once, writes
 * nothing new, and marks the file).
 */
export class IngestJournal {
  private readonly table: KvTable<{ memories: number }>;

  constructor(
    root: string,
    private readonly stream: string,
  ) {
    this.table = kvTable(openStateStore(path.join(root, STATE_DIR)), 'ingested', zodDecode(z.object({ memories: z.number() })));
  }

  private key(fileSha: string, mode: SourceRecord['mode']): string {
    return `${this.stream}/${fileSha}${mode ? `.${mode}` : ''}`;
  }

  /** Whether every memory of the file with these bytes was written in this mode. */
  isComplete(fileSha: string, mode: SourceRecord['mode']): boolean {
    return this.table.get(this.key(fileSha, mode)) !== undefined;
  }

  /** Marks the file complete: call only after its last memory was written. */
  complete(fileSha: string, mode: SourceRecord['mode'], memories: number): void {
    this.table.set(this.key(fileSha, mode), { memories });
  }
}
