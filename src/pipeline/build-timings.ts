import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Where a build's time goes, by stage (`build --json` → `stats.stages`, in
 * milliseconds): what the main thread does, and what the build threads do
 * summed over the threads (a stage on two threads can add up to twice its
 * wall time). Times are wall time on their thread: on a busy machine they
 * include the time the thread waited for a core. docs/performance.md says what
 * each stage is.
 */

/** Runs `fn` and adds its time to `stage`. */
export type StageTimer = <T>(stage: string, fn: () => T) => T;

export class StageClock {
  readonly ms: Record<string, number> = {};

  /** `StageTimer` of this clock (a bound function: pass it around). */
  readonly time: StageTimer = (stage, fn) => {
    const started = performance.now();
    try {
      return fn();
    } finally {
      this.add(stage, performance.now() - started);
    }
  };

  add(stage: string, ms: number): void {
    this.ms[stage] = (this.ms[stage] ?? 0) + ms;
  }

  /** Adds another clock's stages (a build thread's, sent back with its answer). */
  merge(ms: Readonly<Record<string, number>>): void {
    for (const [stage, value] of Object.entries(ms)) this.add(stage, value);
  }

  /** Whole milliseconds, stages in name order (stable `--json` output). */
  rounded(): Record<string, number> {
    return Object.fromEntries(
      Object.keys(this.ms)
        .sort()
        .map((stage) => [stage, Math.round(this.ms[stage]!)]),
    );
  }
}

/**
 * Time spent in garbage collection on this thread while it runs (`stage`):
 * V8's GC pauses as `perf_hooks` reports them. `stop` returns the total.
 */
export function watchGc(): { take: () => number; stop: () => number } {
  let total = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) total += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take: () => {
      const taken = total;
      total = 0;
      return taken;
    },
    stop: () => {
      observer.disconnect();
      return total;
    },
  };
}
