import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, formatSeconds, log, median, NOW } from './run.js';

/**
 * The watch scenario: `memvault watch` on the largest vault, a save of a
 * memory of today and of the newest memory of yesterday, timed until
 * UPLOAD_PACKAGE.md on disk holds the edit.
 */

/** A save that has not reached the package after this long counts as a failure of the bench. */
const WATCH_TIMEOUT_MS = 30_000;

export interface WatchStats {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Save → UPLOAD_PACKAGE.md holds the edit, per run. */
  samplesMs: number[];
  /** The watcher's own timing of each rebuild (load → index written). */
  rebuildMs: number[];
}

export interface WatchResult {
  memories: number;
  /** Seconds from starting `memvault watch` to its ready line (first build included). */
  startupSeconds: number;
  /** Editing today's memory: nothing to summarize, the package shows it in full. */
  today: WatchStats;
  /** Editing yesterday's newest memory: its daily summary is made again, then the package. */
  yesterday: WatchStats;
}

/** The newest memory of the stream: the last day's files (names start with the date), latest `date:` first. */
function newestMemory(dir: string): string {
  const root = path.join(dir, 'vault', 'main', 'memories');
  const files = readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .sort();
  const lastDay = path.basename(files.at(-1) ?? '').slice(0, 10);
  const dated = files
    .filter((f) => path.basename(f).startsWith(lastDay))
    .map((f) => ({ file: path.join(root, f), date: /^date: *(\S+)/m.exec(readFileSync(path.join(root, f), 'utf8'))?.[1] ?? '' }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const newest = dated.at(-1);
  if (!newest) throw new Error(`no memory files under ${root}`);
  return newest.file;
}

/** A child `memvault watch --json` and the events it printed. */
interface WatchChild {
  events: Record<string, unknown>[];
  rebuilds: () => Record<string, unknown>[];
  waitFor: (test: () => boolean, what: string) => Promise<void>;
  stop: () => Promise<void>;
  kill: () => void;
}

function startWatch(dir: string): WatchChild {
  const child = spawn(process.execPath, [CLI, 'watch', '--now', NOW, '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    events,
    rebuilds: () => events.filter((e) => e.type === 'rebuild'),
    waitFor: async (test, what) => {
      // Startup includes the first build: allow it ten times a save's timeout.
      const deadline = performance.now() + WATCH_TIMEOUT_MS * 10;
      while (!test()) {
        if (child.exitCode !== null) throw new Error(`memvault watch exited (${child.exitCode}) while waiting for ${what}:\n${stderr}`);
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${stderr}`);
        await sleep(5);
      }
    },
    stop: async () => {
      child.kill('SIGINT');
      const code = await exited;
      if (code !== 0) throw new Error(`memvault watch exited ${code} after SIGINT:\n${stderr}`);
    },
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Saves `target` `runs` times with a new line and times how long until
 * UPLOAD_PACKAGE.md on disk holds that line; waits for each rebuild to end
 * (the index is written after the package) before the next save.
 */
async function timeSaves(
  watch: WatchChild,
  dir: string,
  target: string,
  original: string,
  runs: number,
  label: string,
): Promise<WatchStats> {
  const packagePath = path.join(dir, 'vault', 'main', 'UPLOAD_PACKAGE.md');
  const samplesMs: number[] = [];
  const rebuildMs: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const marker = `Watch bench edit ${i}-${Date.now()}: the p99 latency stayed under 250ms.`;
    const before = watch.rebuilds().length;
    const t0 = performance.now();
    writeFileSync(target, `${original.trimEnd()}\n\n${marker}\n`);
    for (;;) {
      let text = '';
      try {
        text = readFileSync(packagePath, 'utf8');
      } catch {
        // Between unlink and rename on some file systems: try again.
      }
      if (text.includes(marker)) break;
      if (performance.now() - t0 > WATCH_TIMEOUT_MS)
        throw new Error(`UPLOAD_PACKAGE.md did not show ${label} edit ${i} within ${WATCH_TIMEOUT_MS} ms`);
      await sleep(2);
    }
    const ms = performance.now() - t0;
    samplesMs.push(ms);
    await watch.waitFor(() => watch.rebuilds().length > before, `rebuild ${i}`);
    const event = watch.rebuilds().at(-1)!;
    rebuildMs.push(Number(event.ms));
    log(
      `  ${label} ${i}/${runs}: save → package ${Math.round(ms)} ms (rebuild ${String(event.ms)} ms: ${(event.outputs as string[]).join(', ')})`,
    );
    await sleep(400);
  }
  return { runs, medianMs: median(samplesMs), minMs: Math.min(...samplesMs), maxMs: Math.max(...samplesMs), samplesMs, rebuildMs };
}

/**
 * `memvault watch` in a child process on the vault, two kinds of saves:
 * a memory of today (as of the bench's `now`: the usual case, the package
 * shows it in full and no summary depends on it), and the newest memory of
 * yesterday (its daily summary is made again before the package). Both are
 * in the package's full-detail band, so every save must show up there. The
 * vault is restored at the end.
 */
export async function benchWatch(dir: string, memories: number, runs: number): Promise<WatchResult> {
  const yesterdayFile = newestMemory(dir);
  const yesterdayText = readFileSync(yesterdayFile, 'utf8');
  const todayFile = path.join(dir, 'vault', 'main', 'memories', NOW.slice(0, 4), NOW.slice(5, 7), `${NOW.slice(0, 10)}-watch-bench.md`);
  const todayText = `---\ndate: ${NOW.slice(0, 10)}T05:30:00Z\ntitle: Watch bench\ntags: [bench]\n---\nChecked the replica lag dashboard before the standup.\n`;
  log(`watch on ${memories} memories: today ${path.relative(dir, todayFile)}, yesterday ${path.relative(dir, yesterdayFile)}`);
  const started = performance.now();
  const watch = startWatch(dir);
  try {
    await watch.waitFor(() => watch.events.some((e) => e.type === 'ready'), 'the watcher to be ready');
    const startupSeconds = (performance.now() - started) / 1000;
    log(`  ready in ${formatSeconds(startupSeconds)}`);
    let before = watch.rebuilds().length;
    writeFileSync(todayFile, todayText);
    await watch.waitFor(() => watch.rebuilds().length > before, 'the rebuild for the new memory of today');
    await sleep(400);
    const today = await timeSaves(watch, dir, todayFile, todayText, runs, 'today');
    const yesterday = await timeSaves(watch, dir, yesterdayFile, yesterdayText, runs, 'yesterday');
    before = watch.rebuilds().length;
    writeFileSync(yesterdayFile, yesterdayText);
    rmSync(todayFile);
    await watch.waitFor(() => watch.rebuilds().length > before, 'the restoring rebuild');
    await watch.stop();
    return { memories, startupSeconds, today, yesterday };
  } finally {
    watch.kill();
    if (readFileSync(yesterdayFile, 'utf8') !== yesterdayText) writeFileSync(yesterdayFile, yesterdayText);
    rmSync(todayFile, { force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
