import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SummarySource, SummaryUsage } from '../llm/types.js';
import { WorkerPool } from '../util/worker-pool.js';
import type { ParsedContent } from '../vault/cache.js';
import type { ParsedFile } from '../vault/parse-file.js';
import { loadVault, type LoadedVault, type LoadOptions } from '../vault/load.js';
import type { FileToParse, ParsePool, ParseProgress } from '../vault/parse-pool.js';
import type { RollupJob } from './plan.js';
import type { RollupResult, RollupSettings } from './rollup.js';

/**
 * The build's worker threads (build-worker.ts): one pool for the whole build,
 * started by the first stage with enough work. A cold build sends it the
 * files to parse, then each tier's rollups (embedded summarizer only), and the
 * workers load remark, the tokenizer tables and the summarizer once.
 */

const MAX_WORKERS = 8;
/** Files per parse task: small enough that both threads finish together, large enough that messages cost little. */
const PARSE_CHUNK = 64;

export type RollupSettingsForWorkers = Omit<RollupSettings, 'summarizer'>;

/** A task for a build worker. */
export type BuildTask =
  | { kind: 'parse'; timezone: string; files: FileToParse[] }
  | { kind: 'rollup'; settings: RollupSettingsForWorkers; job: RollupJob; sources: SummarySource[] };

/** A rollup's outcome as a worker sends it: the result and the parsed summary body, or the `RollupError` it threw. */
export type RollupAnswer = { ok: true; result: RollupResult; parsed: ParsedContent } | { ok: false; kind: string; message: string; usage: SummaryUsage; attempts: number };

export type BuildAnswer = ParsedFile[] | RollupAnswer;

/**
 * Loads the vault with worker threads for a cold parse cache (commands other
 * than `build`: `status`, `compact`); the threads are stopped once it is loaded.
 */
export async function loadVaultWithWorkers(options: LoadOptions): Promise<LoadedVault> {
  const pool = BuildPool.create();
  try {
    return await loadVault({ ...options, ...(pool ? { pool } : {}) });
  } finally {
    pool?.close();
  }
}

export class BuildPool implements ParsePool {
  private constructor(private readonly pool: WorkerPool<BuildTask, BuildAnswer>) {}

  /**
   * A pool of `availableParallelism()` workers (at most 8), not started yet;
   * none on a single core, or when the compiled worker is missing (tests run
   * the TypeScript sources: everything stays in-process there).
   */
  static create(): BuildPool | undefined {
    const url = new URL('./build-worker.js', import.meta.url);
    const size = Math.min(availableParallelism(), MAX_WORKERS);
    if (size < 2 || !existsSync(fileURLToPath(url))) return undefined;
    return new BuildPool(new WorkerPool(url, size));
  }

  /** Whether the workers are running already: then even a few tasks are worth sending. */
  get started(): boolean {
    return this.pool.started;
  }

  start(): void {
    this.pool.start();
  }

  async parse(files: readonly FileToParse[], timezone: string, onProgress?: ParseProgress): Promise<ParsedFile[]> {
    const chunks: FileToParse[][] = [];
    // Contiguous chunks keep each task's files in one folder region; results come back in order.
    for (let i = 0; i < files.length; i += PARSE_CHUNK) chunks.push(files.slice(i, i + PARSE_CHUNK));
    let done = 0;
    onProgress?.(done, files.length);
    const parsed = await Promise.all(
      chunks.map(async (chunk) => {
        const results = (await this.pool.run({ kind: 'parse', timezone, files: chunk })) as ParsedFile[];
        onProgress?.((done += chunk.length), files.length);
        return results;
      }),
    );
    return parsed.flat();
  }

  /** `sources` is called when a worker is free for the job (see `WorkerPool.run`). */
  rollup(job: RollupJob, sources: () => SummarySource[], settings: RollupSettingsForWorkers): Promise<RollupAnswer> {
    return this.pool.run(() => ({ kind: 'rollup', settings, job, sources: sources() })) as Promise<RollupAnswer>;
  }

  close(): void {
    this.pool.close();
  }
}
