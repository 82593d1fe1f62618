import type cliProgressType from 'cli-progress';
import { requireLazy } from '../util/lazy.js';
import type { ProgressEvent } from '../pipeline/build.js';
import { num } from './output.js';

/**
 * Build progress: a bar while changed files are parsed (a cold build of a
 * large vault parses for a while) and a bar per tier (done/total, tokens,
 * ETA) on a terminal, plain lines elsewhere (CI logs, pipes). Plain lines appear as soon as a tier
 * has called a model, throttled to one every `intervalMs` (default 2 s) plus the line that ends each tier;
 * offline stages (parsing, the extractive summarizer) print only once they have run for `quietMs` (10 s),
 * then every 10 s: short offline builds stay quiet, a long cold build says how far it is (files parsed,
 * days summarized, ETA). Colour only on a terminal without NO_COLOR.
 */

/** Receives the build's progress events. */
export interface ProgressDisplay {
  update(event: ProgressEvent): void;
  /** Files parsed so far: a bar on a terminal (a cold build parses for a while); in logs, lines once it runs long. */
  parse(done: number, total: number): void;
  /** Removes the bar; call it before printing anything else. */
  done(): void;
}

/** Where to draw and how: `color` is `useColor(stream)` (a terminal without NO_COLOR). */
export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  color: boolean;
  /** Plain mode: least time between two lines (default 2000 ms). */
  intervalMs?: number;
  /**
   * Plain mode: a stage that calls no model (parsing, the embedded summarizer) prints nothing until it has run this
   * long (default 10 s), then a line at most this often: short offline builds stay quiet, a long cold import is seen.
   */
  quietMs?: number;
  clock?: () => number;
}

/** A terminal bar when `stream` is a TTY, else plain lines. */
export function createProgress(options: ProgressOptions): ProgressDisplay {
  return options.stream.isTTY ? barProgress(options) : plainProgress(options);
}

function barProgress(options: ProgressOptions): ProgressDisplay {
  // Loaded only for a terminal (~10 ms): scripts, CI and `--json` runs print plain lines.
  const cliProgress = requireLazy('cli-progress') as typeof cliProgressType;
  const label = options.color ? '\x1b[36m{stream} {tier}\x1b[0m' : '{stream} {tier}';
  let bar: cliProgressType.SingleBar | undefined;
  let key = '';
  const stop = (): void => {
    bar?.stop();
    bar = undefined;
  };
  return {
    parse(done, total) {
      if (key !== 'parse' || !bar) {
        stop();
        key = 'parse';
        bar = new cliProgress.SingleBar(
          {
            stream: options.stream,
            format: `  ${options.color ? '\x1b[36mparse\x1b[0m' : 'parse'} [{bar}] {value}/{total} files | ETA {eta_formatted}`,
            barsize: 24,
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 20,
            fps: 8,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, done);
        return;
      }
      bar.update(done);
    },
    update(event) {
      const payload = {
        stream: event.stream,
        tier: event.tier.padEnd(8),
        tokens: num(event.inputTokens + event.outputTokens),
        calls: num(event.calls),
        failed: event.failed > 0 ? ` | ${event.failed} failed` : '',
      };
      const current = `${event.stream}/${event.tier}`;
      if (current !== key || !bar) {
        stop();
        key = current;
        bar = new cliProgress.SingleBar(
          {
            stream: options.stream,
            format: `  ${label} [{bar}] {value}/{total} | {calls} calls | {tokens} tokens{failed} | ETA {eta_formatted}`,
            barsize: 24,
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 20,
            fps: 8,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(event.total, event.done, payload);
        return;
      }
      bar.update(event.done, payload);
    },
    done: stop,
  };
}

function plainProgress(options: ProgressOptions): ProgressDisplay {
  const clock = options.clock ?? (() => Date.now());
  const interval = options.intervalMs ?? 2000;
  const quiet = options.quietMs ?? 10_000;
  let key = '';
  let started = 0;
  let last = -Infinity;
  let spoke = false;
  /** One line for stage `current` at `done` of `total`, when due: `modelCalled` stages at once, the others once they run long. */
  const report = (current: string, done: number, total: number, modelCalled: boolean, say: (eta: string) => string): void => {
    const now = clock();
    if (current !== key) {
      key = current;
      started = now;
      last = -Infinity;
      spoke = false;
    }
    const finished = done === total;
    const elapsed = now - started;
    // Offline stages (parsing, the embedded summarizer) stay quiet unless they take long: a cold import of years does.
    if (!modelCalled && !(elapsed >= quiet || (finished && spoke))) return;
    const every = modelCalled ? interval : Math.max(interval, quiet);
    if (!finished && now - last < every) return;
    last = now;
    spoke = true;
    const eta = finished
      ? `${(elapsed / 1000).toFixed(1)} s`
      : done > 0
        ? `ETA ${formatDuration((elapsed / done) * (total - done))}`
        : 'ETA …';
    options.stream.write(`${say(eta)}\n`);
  };
  return {
    parse(done, total) {
      report('parse', done, total, false, (eta) => `memvault: parsed ${num(done)}/${num(total)} files ${eta}`);
    },
    update(event) {
      const modelCalled = event.calls > 0 || event.failed > 0;
      report(`${event.stream}/${event.tier}`, event.done, event.total, modelCalled, (eta) => {
        const failed = event.failed > 0 ? `, ${event.failed} failed` : '';
        const calls = `${num(event.calls)} call${event.calls === 1 ? '' : 's'}`;
        return (
          `memvault: ${event.stream} ${event.tier} ${event.done}/${event.total} ` +
          `(${calls}, ${num(event.inputTokens + event.outputTokens)} tokens${failed}) ${eta}`
        );
      });
    },
    done() {},
  };
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
