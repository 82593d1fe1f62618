import path from 'node:path';
import { loadValidConfig } from '../../config/load.js';
import { createSummarizer } from '../../llm/create.js';
import type { Summarizer } from '../../llm/types.js';
import { UserError } from '../../util/errors.js';
import { acquireBuildLock } from '../../util/lock.js';
import { removeLeftoverTemps } from '../housekeeping.js';
import type { StreamState } from '../../vault/model.js';
import { loadVaultWithWorkers, vaultLoadOptions } from '../workers/build-pool.js';
import { memoriesUpTo } from '../now.js';
import { applyWaterfall, plannedWaterfallReport, planWaterfallStream, type WaterfallReport } from './build.js';
import { takeMovedAside } from '../write.js';
import { diskWriter, type RecordedChange, RecordingWriter, type Writer } from '../writer.js';
import { useStateSnapshot } from '../../store/database.js';

export interface CompactOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  now: Date;
  /** Only this stream (it must have `waterfall: true`); default every waterfall stream. */
  stream?: string;
  force?: boolean;
  /** Replay every compaction from the first memory (see `WaterfallRunContext.rebuild`). */
  rebuild?: boolean;
  dryRun?: boolean;
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
}

export interface CompactReport {
  now: string;
  vault: string;
  dryRun: boolean;
  streams: WaterfallReport[];
  /** Dry run: every file a compaction would write or move, with its bytes (as `build --dry-run`'s `wouldWrite`). */
  wouldWrite?: RecordedChange[];
}

/**
 * `memvault compact`: the waterfall of every waterfall stream (or one), under
 * the build lock, without the calendar rollups. With `force`, compacts even
 * below the next trigger count: a compaction asked for now, not waited for.
 */
export async function compactVault(options: CompactOptions): Promise<CompactReport> {
  const config = await loadValidConfig(options.root);
  const waterfallStreams = Object.entries(config.streams)
    .filter(([, s]) => s.waterfall)
    .map(([name]) => name);
  if (options.stream !== undefined && !waterfallStreams.includes(options.stream)) {
    const known = config.streams[options.stream] !== undefined;
    if (known) throw new UserError('compact/stream', `stream \`${options.stream}\` is not a waterfall stream`);
    const others = waterfallStreams.length > 0 ? `, or use one of: ${waterfallStreams.join(', ')}` : '';
    throw new UserError('compact/unknown-stream', `stream \`${options.stream}\` is not configured`, { others });
  }
  if (waterfallStreams.length === 0) throw new UserError('compact/no-stream', 'no stream has `waterfall: true`');
  const dryRun = options.dryRun ?? false;
  const stateDir = path.join(options.root, '.memvault');
  // A dry run is the same run against a recording writer, a placeholder summarizer and an in-memory copy of the state
  // store (as `build --dry-run`, pipeline/build.ts): nothing on disk changes, no model is called.
  const restore = dryRun ? useStateSnapshot(stateDir) : undefined;
  const release = restore ? async () => restore() : await acquireBuildLock(stateDir, 'memvault compact');
  try {
    const vaultDir = path.resolve(options.root, config.vault);
    const loaded = await loadVaultWithWorkers(vaultLoadOptions(options.root, config));
    // Under the lock, like a build: temporary files of killed writers go (housekeeping.ts); the report has no place for notes.
    if (!dryRun) removeLeftoverTemps(vaultDir, stateDir, loaded.state.streams.keys());
    const configured = options.summarizer ?? createSummarizer(config, process.env, { root: options.root, dryRun });
    const estimate = dryRun ? await import('../estimate.js') : undefined;
    const summarizer = estimate ? estimate.estimatingSummarizer(configured) : configured;
    const writer: Writer = estimate ? estimate.dryRunWriter(vaultDir) : diskWriter(vaultDir);
    const streams: WaterfallReport[] = [];
    for (const name of options.stream !== undefined ? [options.stream] : waterfallStreams) {
      const loadedStream = loaded.state.streams.get(name) ?? { name, memories: [], summaries: new Map() };
      const stream: StreamState = { ...loadedStream, memories: memoriesUpTo(loadedStream.memories, options.now, config.timezone) };
      const run = {
        config,
        vaultDir,
        loaded,
        summarizer,
        now: options.now,
        force: options.force ?? false,
        rebuild: options.rebuild ?? false,
        writer,
      };
      const plan = planWaterfallStream(stream, config, { force: run.force, rebuild: run.rebuild });
      const applied = await applyWaterfall(stream, plan, run);
      // A dry run reports its plan (what would be compacted); the run against the recording writer says what it writes.
      const streamReport = dryRun ? plannedWaterfallReport(plan) : applied;
      // A file memvault did not write at a generated path (CONTEXT.md by hand) was moved aside, never overwritten: say where.
      const moved = takeMovedAside().map(
        (move) => `${move.from} was not written by memvault: moved to ${move.to} before writing the generated file`,
      );
      streams.push({ ...streamReport, notes: [...streamReport.notes, ...moved] });
    }
    if (!dryRun) loaded.cache.save();
    const wouldWrite = writer instanceof RecordingWriter ? { wouldWrite: writer.changes() } : {};
    return { now: options.now.toISOString(), vault: config.vault, dryRun, streams, ...wouldWrite };
  } finally {
    await release();
  }
}
