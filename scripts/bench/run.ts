import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every bench scenario shares: where things are, timing a child process, medians and formatting. */

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CLI = path.join(REPO, 'dist', 'bin', 'memvault.js');
export const BENCH_ROOT = path.join(os.tmpdir(), 'memvault-bench');
/**
 * GNU time prints the child's user and system CPU seconds and peak RSS (KB) as the last stderr line; it measures the
 * whole process (every thread), GC heap and native memory included.
 */
export const TIME_BIN = '/usr/bin/time';

/** The day after the last memory, early morning: the moment an agent would build its upload package. */
export const NOW = '2026-11-21T06:00:00Z';

export interface Sample {
  seconds: number;
  /** Null when /usr/bin/time is unavailable. */
  peakRssMb: number | null;
  /** User + system CPU seconds of the process, all threads; null when /usr/bin/time is unavailable. */
  cpuSeconds?: number | null;
}

export interface Stats {
  runs: number;
  medianSeconds: number;
  minSeconds: number;
  maxSeconds: number;
  medianPeakRssMb: number | null;
  samples: Sample[];
}
export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Runs `node <args>` in `cwd` and measures wall time and (via GNU time) peak RSS. Throws with the stderr tail on failure. */
export function timeNode(args: string[], cwd: string): Sample {
  return runNode(args, cwd).sample;
}

export function runNode(args: string[], cwd: string): { sample: Sample; stdout: string } {
  const withTime = existsSync(TIME_BIN);
  const [file, argv] = withTime ? [TIME_BIN, ['-f', '%U %S %M', process.execPath, ...args]] : [process.execPath, args];
  const start = performance.now();
  const child = spawnSync(file, argv, { cwd, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const seconds = (performance.now() - start) / 1000;
  if (child.error) throw child.error;
  if (child.status !== 0) {
    const tail = child.stderr.trimEnd().split('\n').slice(-15).join('\n');
    throw new Error(`\`node ${args.join(' ')}\` failed (exit ${child.status}) in ${cwd}:\n${tail}`);
  }
  if (!withTime) return { sample: { seconds, peakRssMb: null, cpuSeconds: null }, stdout: child.stdout };
  const { cpuSeconds, kb } = lastLine(child.stderr);
  return { sample: { seconds, peakRssMb: kb / 1024, cpuSeconds }, stdout: child.stdout };
}

/** `%U %S %M` from GNU time's last stderr line. */
function lastLine(stderr: string): { cpuSeconds: number; kb: number } {
  const last = stderr.trimEnd().split('\n').at(-1) ?? '';
  const [user, system, kb] = last.trim().split(/\s+/).map(Number);
  if (![user, system, kb].every((n) => n !== undefined && Number.isFinite(n)))
    throw new Error(`could not read CPU time and peak RSS from ${TIME_BIN} output: \`${last}\``);
  return { cpuSeconds: user! + system!, kb: kb! };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

export function stats(samples: Sample[]): Stats {
  const seconds = samples.map((s) => s.seconds);
  const rss = samples.map((s) => s.peakRssMb).filter((mb): mb is number => mb !== null);
  return {
    runs: samples.length,
    medianSeconds: median(seconds),
    minSeconds: Math.min(...seconds),
    maxSeconds: Math.max(...seconds),
    medianPeakRssMb: rss.length > 0 ? median(rss) : null,
    samples,
  };
}

/** Repeats `run` and logs each sample, so a long bench shows progress. */
export function repeat(label: string, runs: number, run: () => Sample): Stats {
  const samples: Sample[] = [];
  for (let i = 1; i <= runs; i++) {
    const sample = run();
    log(`  ${label} ${i}/${runs}: ${formatSeconds(sample.seconds)}, ${formatMb(sample.peakRssMb)}`);
    samples.push(sample);
  }
  return stats(samples);
}

/** The three scenarios on one vault size. The no-change runs follow the last cold build, the edit runs follow those. */
export function formatSeconds(seconds: number): string {
  return seconds < 10 ? `${seconds.toFixed(2)} s` : `${seconds.toFixed(1)} s`;
}

export function formatMb(mb: number | null): string {
  return mb === null ? 'n/a' : `${Math.round(mb)} MB`;
}
