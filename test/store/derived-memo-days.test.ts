import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareMemories } from '../../src/load/load.js';
import { memoriesForSummaries } from '../../src/maintain/duplicate-marks.js';
import { type PlanContext, planDailies } from '../../src/pipeline/calendar/plan.js';
import { isUpTo } from '../../src/pipeline/now.js';
import { type CacheEntry, ParseCache } from '../../src/store/cache.js';
import { DerivedMemo } from '../../src/store/derived-memo.js';
import type { Memory } from '../../src/vault/model.js';

/**
 * The days' input hashes kept across edits (`DerivedMemo.dayValue`): after any
 * sequence of edits, moves to another day, adds, removes, `duplicate_of` marks,
 * changes after the plan and builds as of another `now`, every daily's hash the
 * memo gives must be the one worked out afresh. A memo that keeps the hash of a
 * day whose memories changed fails here.
 */

const budget = { target_tokens: 400, max_bytes: 4000 };
const context = (memo: DerivedMemo | undefined): PlanContext => ({
  stream: 'main',
  horizon: '2026-01-31',
  force: true,
  generator: { provider: 'extractive', model: 'memvault-extractive-1', promptId: (tier) => `${tier}@1` },
  budgets: { daily: budget, weekly: budget, monthly: budget, longterm: budget },
  ...(memo ? { memo } : {}),
});

/** A small deterministic generator (mulberry32): each seed replays the same run. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Few days, many memories each: a move in and a move out of a day often leave its count, first and last memory as they were. */
const DAYS = ['2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05'];

function memoryEntry(n: number, day: string, minute: number, version: number, duplicateOf?: string): CacheEntry {
  const sha = `${n.toString(16)}-${version}`.padStart(64, '0');
  const memory: Memory = {
    id: `m-${n}`,
    stream: 'main',
    path: `main/memories/m-${n}.md`,
    location: 'memories',
    date: `${day}T00:00:00Z`,
    day,
    minute,
    title: `memory ${n}`,
    kind: 'session',
    tags: [],
    importance: 'normal',
    sha256: sha,
    ...(duplicateOf !== undefined ? { duplicateOf } : {}),
  };
  return { size: 100 + n, mtimeMs: 1_700_000_000_000 + version, sha256: sha, result: { type: 'memory', memory } };
}

/** Each day's input hash as the planner works it out from the cache's memories up to `now`, with or without the memo. */
function dayHashes(cache: ParseCache, memo: DerivedMemo | undefined, now: { day: string; minute: number }): Map<string, string> {
  const memories: Memory[] = [];
  for (const entry of cache.values()) if (entry.result.type === 'memory') memories.push(entry.result.memory);
  memories.sort(compareMemories);
  const upTo = memories.filter((m) => isUpTo(m, now.day, now.minute));
  const plan = planDailies(memoriesForSummaries(upTo), new Map(), context(memo));
  return new Map(plan.jobs.map((job) => [job.period, job.inputHash]));
}

/** `memo`, counting the days' hashes it works out rather than keeps. */
function countingMemo(memo: DerivedMemo): { memo: DerivedMemo; computed: number } {
  const out = { memo, computed: 0 };
  out.memo = new Proxy(memo, {
    get(target, prop, receiver) {
      if (prop !== 'dayValue') return Reflect.get(target, prop, receiver);
      return (day: string, key: string, compute: () => string) =>
        target.dayValue(day, key, () => {
          out.computed++;
          return compute();
        });
    },
  });
  return out;
}

function run(seed: number, rounds: number): { kept: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'memvault-day-memo-'));
  const pick = random(seed);
  let version = 0;
  let next = 0;
  const live = new Map<number, { day: string; minute: number; duplicateOf?: string }>();
  const setMemory = (cache: ParseCache, n: number, fields: { day: string; minute: number; duplicateOf?: string }) => {
    live.set(n, fields);
    cache.set(`main/memories/m-${n}.md`, memoryEntry(n, fields.day, fields.minute, ++version, fields.duplicateOf));
  };
  /** One random change: an edit, a move to another day or minute, an add, a remove, a `duplicate_of` mark set or cleared. */
  const change = (cache: ParseCache) => {
    const ids = [...live.keys()];
    const op = ids.length < 4 ? 2 : [0, 0, 1, 1, 1, 2, 3, 4, 5][pick(9)]!;
    const n = ids[pick(ids.length)]!;
    const now = live.get(n)!;
    if (op === 0) setMemory(cache, n, now);
    else if (op === 1) setMemory(cache, n, { ...now, day: DAYS[pick(DAYS.length)]!, minute: pick(1440) });
    else if (op === 2) setMemory(cache, next++, { day: DAYS[pick(DAYS.length)]!, minute: pick(1440) });
    else if (op === 3) {
      live.delete(n);
      cache.retain(new Set([...live.keys()].map((m) => `main/memories/m-${m}.md`)));
    } else if (op === 4) setMemory(cache, n, { ...now, duplicateOf: `m-${ids[pick(ids.length)]!}` });
    else setMemory(cache, n, { day: now.day, minute: now.minute });
  };
  let kept = 0;
  try {
    const stateDir = path.join(dir, '.memvault');
    const first = ParseCache.open(stateDir, 'UTC');
    for (let i = 0; i < 30; i++) setMemory(first, next++, { day: DAYS[pick(DAYS.length)]!, minute: pick(1440) });
    first.save();
    for (let round = 0; round < rounds; round++) {
      const cache = ParseCache.open(stateDir, 'UTC');
      const edits = pick(5); // none at times: the cache as the last build left it
      for (let i = 0; i < edits; i++) change(cache);
      const memo = DerivedMemo.open(stateDir, cache, { config: 1 });
      // Mostly after every memory; at times inside a day (its memories up to `now` only).
      const now = pick(3) === 0 ? { day: DAYS[pick(DAYS.length)]!, minute: pick(1440) } : { day: '2026-01-31', minute: 0 };
      const counting = countingMemo(memo);
      const withMemo = dayHashes(cache, counting.memo, now);
      kept += withMemo.size - counting.computed;
      const fresh = dayHashes(cache, undefined, now);
      expect(withMemo, `seed ${seed}, round ${round}`).toEqual(fresh);
      // Changes after the plan (a build's own writes), then the save; at times without the memo told first.
      const after = pick(4) === 0 ? 1 + pick(2) : 0;
      for (let i = 0; i < after; i++) change(cache);
      // Asked again after them (a later stage): the hashes of the entries now.
      expect(dayHashes(cache, memo, now), `seed ${seed}, round ${round}, after the plan`).toEqual(dayHashes(cache, undefined, now));
      if (pick(5) !== 0) memo.beforeCacheSave();
      cache.save();
      memo.save();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { kept };
}

describe('DerivedMemo days', () => {
  it('gives every day the hash worked out afresh after random edits, moves, adds, removes and marks', () => {
    let kept = 0;
    for (let seed = 1; seed <= 12; seed++) kept += run(seed, 30).kept;
    expect(kept).toBeGreaterThan(80); // the memo was used, not only worked out
  });

  it('keeps the hashes of the days an edit did not touch', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'memvault-day-memo-'));
    try {
      const stateDir = path.join(dir, '.memvault');
      const cache = ParseCache.open(stateDir, 'UTC');
      for (let n = 0; n < DAYS.length; n++) cache.set(`main/memories/m-${n}.md`, memoryEntry(n, DAYS[n]!, 60, 0));
      cache.set('main/memories/m-9.md', memoryEntry(9, DAYS[2]!, 30, 0));
      cache.save();
      const now = { day: '2026-01-31', minute: 0 };
      const build = (edit: (c: ParseCache) => void) => {
        const opened = ParseCache.open(stateDir, 'UTC');
        edit(opened);
        const memo = DerivedMemo.open(stateDir, opened, { config: 1 });
        const counting = countingMemo(memo);
        expect(dayHashes(opened, counting.memo, now)).toEqual(dayHashes(opened, undefined, now));
        memo.beforeCacheSave();
        opened.save();
        memo.save();
        return counting.computed;
      };
      expect(build(() => undefined)).toBe(DAYS.length); // nothing kept yet
      expect(build((c) => c.set('main/memories/m-1.md', memoryEntry(1, DAYS[1]!, 60, 1)))).toBe(1);
      // A move: the day it left and the day it joined.
      expect(build((c) => c.set('main/memories/m-2.md', memoryEntry(2, DAYS[3]!, 90, 2)))).toBe(2);
      expect(build(() => undefined)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
