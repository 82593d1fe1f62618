import * as z from 'zod';
import { openStateStore } from './database.js';
import { kvTable, zodDecode } from './kv.js';
import { PROGRAM } from './derived-memo.js';

/**
 * Summaries of sampled periods kept between builds (issue 29): a day of
 * 100,000 memories is summarized from a sample of them, and a memory added at
 * the end of the day usually leaves the sample as it was. The summary of the
 * same sample is then the one made before, not made again (~1 s of CPU at
 * 100,000 memories). One row per summary path (`rollups` rows of `kv`): the
 * hash of everything the summary was made from (`key`, worked out by the
 * caller) and what it made (`made`, JSON the caller reads back and checks).
 * The running program is part of every key: another memvault makes its own.
 */

const STORE = 'rollups';

const rowSchema = z.object({ key: z.string(), made: z.string() });

export class KeptRollups {
  private table: ReturnType<typeof rollupsTable> | undefined;

  constructor(private readonly stateDir: string) {}

  /** What was made for `path` from the inputs hashed as `key`; undefined when something else (or nothing) was. */
  get(path: string, key: string): string | undefined {
    try {
      const row = this.rows().get(path);
      return row && row.key === `${PROGRAM} ${key}` ? row.made : undefined;
    } catch {
      return undefined; // no store to read: made again
    }
  }

  /** Keeps what was made for `path` from `key`, in place of what was kept for it before. */
  set(path: string, key: string, made: string): void {
    try {
      this.rows().set(path, { key: `${PROGRAM} ${key}`, made });
    } catch {
      // Only time is lost: the next build makes it again.
    }
  }

  private rows(): ReturnType<typeof rollupsTable> {
    this.table ??= rollupsTable(this.stateDir);
    return this.table;
  }
}

function rollupsTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), STORE, zodDecode(rowSchema));
}
