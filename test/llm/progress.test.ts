import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import type { ProgressEvent } from '../../src/pipeline/build.js';

/** A stream that records what is written; `tty` makes it look like a terminal. */
function sink(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: tty, columns: 120 });
  return { stream, text: () => chunks.join('') };
}

const event = (over: Partial<ProgressEvent>): ProgressEvent => ({
  stream: 'main',
  tier: 'daily',
  done: 0,
  total: 10,
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  failed: 0,
  ...over,
});

describe('plain progress (logs, pipes)', () => {
  it('says nothing while no model was called (offline builds stay quiet)', () => {
    const out = sink(false);
    const progress = createProgress({ stream: out.stream, color: false });
    for (let done = 0; done <= 10; done++) progress.update(event({ done }));
    expect(out.text()).toBe('');
  });

  it('prints throttled lines with calls, tokens and ETA, and the line that ends each tier', () => {
    const out = sink(false);
    let now = 0;
    const progress = createProgress({ stream: out.stream, color: true, intervalMs: 1000, clock: () => now });
    progress.update(event({ done: 0 }));
    for (let done = 1; done <= 10; done++) {
      now += 400;
      progress.update(event({ done, calls: done, inputTokens: done * 1000, outputTokens: done * 100, failed: done >= 9 ? 1 : 0 }));
    }
    const lines = out.text().trimEnd().split('\n');
    expect(lines[0]).toBe('memvault: main daily 1/10 (1 call, 1,100 tokens) ETA 4s');
    expect(lines.at(-1)).toBe('memvault: main daily 10/10 (10 calls, 11,000 tokens, 1 failed) 4.0 s');
    expect(lines.length).toBeLessThan(6);
    // No colour or cursor codes in logs, whatever `color` says.
    expect(out.text()).not.toContain('\x1b');
  });
});

describe('parse progress', () => {
  it('draws a bar of files parsed on a terminal, then the tiers replace it', () => {
    const out = sink(true);
    const progress = createProgress({ stream: out.stream, color: false });
    progress.parse(0, 4);
    progress.parse(2, 4);
    progress.update(event({ done: 0, total: 4 }));
    progress.done();
    expect(out.text()).toMatch(/parse \[█{12}░{12}\] 2\/4 files \| ETA/);
    expect(out.text()).toContain('main daily');
  });

  it('says nothing in logs (parsing calls no model)', () => {
    const out = sink(false);
    const progress = createProgress({ stream: out.stream, color: false });
    for (let done = 0; done <= 10; done++) progress.parse(done, 10);
    expect(out.text()).toBe('');
  });
});

describe('terminal progress', () => {
  it('draws a bar per tier with done/total, calls, tokens and ETA; colour only when allowed', () => {
    for (const color of [true, false]) {
      const out = sink(true);
      const progress = createProgress({ stream: out.stream, color });
      progress.update(event({ done: 0, total: 4 }));
      progress.update(event({ done: 2, total: 4, calls: 2, inputTokens: 5000, outputTokens: 400 }));
      progress.update(event({ tier: 'weekly', done: 0, total: 1 }));
      progress.done();
      const text = out.text();
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).toMatch(/main daily {4}\[░+\] 0\/4 \| 0 calls \| 0 tokens \| ETA/);
      expect(plain).toMatch(/main daily {4}\[█{12}░{12}\] 2\/4 \| 2 calls \| 5,400 tokens \| ETA \d+s/);
      expect(plain).toContain('main weekly');
      expect(text.includes('\x1b[36m')).toBe(color);
    }
  });
});

describe('plain progress of a long offline build', () => {
  it('prints files parsed and days summarized with an ETA once a stage runs past quietMs, then every quietMs', () => {
    const out = sink(false);
    let now = 0;
    const progress = createProgress({ stream: out.stream, color: false, clock: () => now });
    for (let done = 0; done <= 40_000; done += 1000) {
      progress.parse(done, 40_000);
      now += 1000;
    }
    for (let done = 0; done <= 1000; done += 25) {
      progress.update(event({ done, total: 1000 }));
      now += 500;
    }
    const lines = out.text().trimEnd().split('\n');
    expect(lines[0]).toBe('memvault: parsed 10,000/40,000 files ETA 30s');
    expect(lines).toContain('memvault: parsed 40,000/40,000 files 40.0 s');
    expect(lines).toContain('memvault: main daily 500/1000 (0 calls, 0 tokens) ETA 10s');
    expect(lines.at(-1)).toBe('memvault: main daily 1000/1000 (0 calls, 0 tokens) 20.0 s');
    expect(lines.length).toBeLessThan(10);
  });
});
