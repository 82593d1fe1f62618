import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validateConfig } from '../src/config/load.js';
import { BUILD_WINDOW_DAYS, nearDuplicateWarnings } from '../src/maintain/build-check.js';
import { planConsolidation } from '../src/maintain/consolidate.js';
import { leftOutOf } from '../src/maintain/left-out.js';
import { addDays } from '../src/time/periods.js';
import { loadVault } from '../src/load/load.js';
import { generateSyntheticVault } from './fixtures/synthetic-vault.js';

/**
 * What duplicates and forgetting cost a build of the synthetic bench vault:
 * the left-out decision every build takes (usage counts, forgetting), the
 * near-duplicate look of a build that summarizes one day (that day against
 * the `BUILD_WINDOW_DAYS` before it), and `memvault consolidate` over the whole stream.
 * Medians of repeated runs, CPU time of one thread. The vault is only read;
 * the parse cache goes to a folder of its own under the temporary folder.
 *
 * Usage: node dist/scripts/bench-maintain.js [DIR] [MEMORIES] [RUNS]   (default /tmp/memvault-bench/20000, 20000, 7)
 */
const dir = process.argv[2] ?? '/tmp/memvault-bench/20000';
const memories = Number(process.argv[3] ?? 20_000);
const runs = Number(process.argv[4] ?? 7);
if (!existsSync(path.join(dir, 'vault')))
  generateSyntheticVault(dir, { memories, days: 1095, endDay: '2026-11-20', seed: 20_261_120, pinned: 3 });
const vaultDir = path.join(dir, 'vault');
const config = validateConfig('timezone: UTC\n', 'memory.config.yaml').config;
// A parse cache of its own (kept between runs, so only the first one parses): the bench vault's own is left alone.
const stateDir = path.join(os.tmpdir(), 'memvault-bench-maintain-state');
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
// CPU time of this process (user + system), not wall time: the figures hold on a machine other work is loading.
const time = (run: () => unknown): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const loaded = await loadVault({ vaultDir, stateDir, timezone: 'UTC', configuredStreams: ['main'] });
const stream = loaded.state.streams.get('main')!;
const now = new Date('2026-11-21T06:00:00Z');
loaded.cache.save();
// Each figure as soon as it is measured: the whole-stream consolidate takes a while.
const lines = { push: (line: string) => process.stdout.write(`${line}\n`) };
lines.push(`${stream.memories.length} memories in ${dir}`);

// Every build: a fresh memories array each time, so the memo never answers.
const leftOut = [...Array(runs)].map(() =>
  time(() => leftOutOf(dir, vaultDir, config, { ...stream, memories: [...stream.memories] }, now)),
);
const decision = leftOutOf(dir, vaultDir, config, stream, now);
lines.push(
  `left-out decision: median ${median(leftOut).toFixed(1)} ms CPU (${decision.forgotten.length} forgotten, ${decision.duplicates.size} copies)`,
);
const memo = [...Array(runs)].map(() => time(() => leftOutOf(dir, vaultDir, config, stream, now)));
lines.push(`left-out decision, same memories again (watch, MCP): median ${median(memo).toFixed(2)} ms CPU`);

// A build that summarizes yesterday: its memories against the days before.
const day = addDays('2026-11-20', 0);
const window = stream.memories.filter((m) => m.day >= addDays(day, -BUILD_WINDOW_DAYS) && m.day <= day).length;
const check = [...Array(runs)].map(() => time(() => nearDuplicateWarnings(vaultDir, 'main', stream.memories, new Set([day]))));
lines.push(`near-duplicate look of a one-day build (${window} memories compared): median ${median(check).toFixed(1)} ms CPU`);

// memvault consolidate: the whole stream, once (it reads and shingles every file).
let groups = 0;
const whole = [0].map(() =>
  time(() => {
    groups = planConsolidation(vaultDir, 'main', stream.memories).groups.length;
  }),
);
lines.push(`consolidate over the whole stream: ${median(whole).toFixed(0)} ms CPU, one run (${groups} groups)`);
