import type { Config } from '../config/schema.js';
import type { LoadedVault, LoadOptions } from '../load/load.js';
import type { Summarizer } from '../llm/types.js';
import type { LeftOut } from '../maintain/left-out.js';
import type { StageClock } from './build-timings.js';
import type { ProgressEvent } from './build-report.js';
import type { BuildPool } from './workers/build-pool.js';
import type { RollupWorkers } from './workers/rollup-pool.js';
import type { Writer } from './writer.js';

/**
 * What a build is asked to do (`BuildOptions`, from the CLI, watch and tests)
 * and what its stages are handed (`BuildContext`, made once by build.ts after
 * the load). Types only, apart from build.ts and calendar/apply.ts so the
 * stages can name them without importing the module that imports them.
 *
 * The context is read-only input: no stage writes the build's report through
 * it. Each stage returns its part (calendar/apply.ts `CalendarOutcome`,
 * waterfall `WaterfallReport`, outputs.ts `PackageOutcome`, …) and
 * build-report.ts `assembleReport` puts them together.
 */

export type { RollupWorkers } from './workers/rollup-pool.js';

export interface BuildOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  now: Date;
  force?: boolean;
  /** Summarize periods ending on or before this day even if `now` says they are not complete. */
  through?: string;
  /**
   * The same run with a recording writer (writer.ts) and a summarizer that makes placeholders (estimate.ts): reports
   * the plan, its cost estimate and what a build would write; writes nothing, calls no model, commits nothing.
   */
  dryRun?: boolean;
  /** Commit the result (default: `git.commit` of the config); `--no-commit` passes false. */
  commit?: boolean;
  /** `--regenerate`: absolute paths of summaries to generate again even though a person edited them (the edit is kept in `history/`). */
  regenerate?: string[];
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
  /** Where the summarizer finds API keys and `MEMVAULT_PROFILE`/`_BASE_URL`/`_MODEL` (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * The build's worker threads, created by the CLI before it loaded the pipeline so that a large vault's scan thread
   * starts early (build-pool.ts); the build closes them. Default: a pool of its own, without a scan thread.
   */
  pool?: BuildPool;
  /** Loads the vault (default `loadVault`); `memvault watch` passes a `LoadSession` that keeps parsed state between builds. */
  loader?: (options: LoadOptions) => Promise<LoadedVault>;
  /** Save the parse cache at the end (default true); watch mode keeps it in memory and saves it when idle. */
  saveCache?: boolean;
  /**
   * Write the package before the rollups when the only stale dailies are of
   * days it shows in full (watch mode: an edit to yesterday's memory reaches
   * the package without waiting for its daily); the package is written again
   * afterwards if the rollups change it.
   */
  packageFirst?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  /** Progress of parsing the changed files: `done` of `total` (a cold build of a large vault parses for a while). */
  onParse?: (done: number, total: number) => void;
  /** Who holds the build lock, as another build is told (`another build is running (pid …, \`memvault watch\`)`). */
  lockCommand?: string;
}

export interface BuildContext {
  options: BuildOptions;
  config: Config;
  /** Absolute path of the vault folder. */
  vaultDir: string;
  /** Absolute path of `.memvault/` (the lock, the state store, the search index). */
  stateDir: string;
  loaded: LoadedVault;
  summarizer: Summarizer;
  /** Where the stages write and read back what they wrote: the disk, or a dry run's `RecordingWriter` (writer.ts). */
  writer: Writer;
  /**
   * The calendar's rollups on the build's worker threads, when this machine and build can have them: build.ts makes
   * them from its pool (workers/rollup-pool.ts) so calendar/ does not import workers/, which imports the calendar's rollup.
   */
  rollups: RollupWorkers | undefined;
  /** Per stream, the memories the package's detail leaves out (duplicates, forgotten); none when absent. */
  leftOut?: ReadonlyMap<string, LeftOut>;
  /** Stale memories (vault path) and the line the package shows under each (src/citations/). */
  citationNotes?: ReadonlyMap<string, string>;
  /** Times the build's stages (`build --json` → `stats.stages`, build-timings.ts). */
  clock?: StageClock;
}
