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
import { runWaterfall, type WaterfallReport } from './build.js';
import { takeMovedAside } from '../write.js';

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
  const release = options.dryRun ? async () => {} : await acquireBuildLock(path.join(options.root, '.memvault'), 'memvault compact');
  try {
    const vaultDir = path.resolve(options.root, config.vault);
    const loaded = await loadVaultWithWorkers(vaultLoadOptions(options.root, config));
    // Under the lock, like a build: temporary files of killed writers go (housekeeping.ts); the report has no place for notes.
    if (!options.dryRun) removeLeftoverTemps(vaultDir, path.join(options.root, '.memvault'), loaded.state.streams.keys());
    const summarizer = options.summarizer ?? createSummarizer(config, process.env, { root: options.root, dryRun: options.dryRun ?? false });
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
        dryRun: options.dryRun ?? false,
      };
      const streamReport = await runWaterfall(stream, run);
      // A file memvault did not write at a generated path (CONTEXT.md by hand) was moved aside, never overwritten: say where.
      const moved = takeMovedAside().map(
        (move) => `${move.from} was not written by memvault: moved to ${move.to} before writing the generated file`,
      );
      streams.push({ ...streamReport, notes: [...streamReport.notes, ...moved] });
    }
    if (!options.dryRun) loaded.cache.save();
    return { now: options.now.toISOString(), vault: config.vault, dryRun: options.dryRun ?? false, streams };
  } finally {
    await release();
  }
}
