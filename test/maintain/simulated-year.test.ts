import { describe, expect, it } from 'vitest';
import { mulberry32 as rng } from '../../scripts/fixtures/synthetic-vault/rng.js';
import { decideForgetting, type ForgettingConfig, forgottenIds, retentionOf } from '../../src/maintain/forgetting.js';
import { addDays } from '../../src/time/periods.js';
import type { Importance } from '../../src/vault/model.js';

/**
 * A simulated year of one stream (in process, seeded): four memories a day,
 * and retrievals drawn over time the way an agent asks (mostly the last two
 * weeks, topics that recur, decisions and facts, now and then an old note).
 * Before each retrieval the forgetting decision of that moment is taken; a
 * retrieval of a forgotten memory is a false forgetting. The retrieval is
 * then recorded as usage, as search, zoom, context and MCP record it.
 */

interface SimMemory {
  id: string;
  path: string;
  day: string;
  kind: string;
  importance: Importance;
  /** Recurring topic: asked about every `every` days (± a few) while the project lives. */
  every?: number;
}

const config: ForgettingConfig = { timezone: 'UTC', forget_after_days: 90, streams: { main: {} } };
const START = '2026-01-01';

function simulate(seed: number) {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const memories: SimMemory[] = [];
  const usage = new Map<string, { lastUsed: string }>();
  const factsInForce = new Set<string>();
  const nextAsk = new Map<string, string>();
  let needs = 0;
  let falseForgetting = 0;
  let forgottenSeen = 0;
  let broughtBack = 0;
  for (let d = 0; d < 365; d++) {
    const day = addDays(START, d);
    for (let i = 0; i < 4; i++) {
      const roll = random();
      const kind = roll < 0.05 ? 'decision' : roll < 0.1 ? 'fact' : roll < 0.15 ? 'error' : 'session';
      const importance: Importance = random() < 0.02 ? 'pinned' : random() < 0.08 ? 'high' : random() < 0.3 ? 'low' : 'normal';
      const id = `${day}-${i}`;
      const m: SimMemory = { id, path: `main/memories/${id}.md`, day, kind, importance };
      // One memory in eight starts a topic that comes back every 2 to 10 weeks.
      if (random() < 0.125) {
        m.every = 14 + Math.floor(random() * 57);
        nextAsk.set(id, addDays(day, m.every));
      }
      if (kind === 'fact') factsInForce.add(id);
      memories.push(m);
    }
    // A fact is superseded now and then: it is no longer in force.
    if (random() < 0.1 && factsInForce.size > 0) factsInForce.delete(pick([...factsInForce]));

    // Today's needs: recent memories, recurring topics due today, decisions and facts, and now and then an old note.
    const wanted: SimMemory[] = [];
    const recent = memories.filter((m) => m.day >= addDays(day, -14));
    for (let q = 0; q < 3; q++) wanted.push(pick(recent));
    for (const m of memories) {
      if (m.every === undefined || nextAsk.get(m.id)! > day) continue;
      wanted.push(m);
      nextAsk.set(m.id, addDays(day, m.every + Math.floor(random() * 7) - 3));
    }
    const protectedOnes = memories.filter((m) => m.kind === 'decision' || factsInForce.has(m.id));
    if (protectedOnes.length > 0) wanted.push(pick(protectedOnes));
    // An old note nobody asked about since: about one day in twenty.
    if (random() < 0.05) wanted.push(pick(memories));

    const now = new Date(`${day}T12:00:00Z`);
    const forgotten = new Set(decideForgetting(memories, usage, now, config, 'main', factsInForce).map((f) => f.id));
    forgottenSeen += forgotten.size;
    for (const m of wanted) {
      needs++;
      if (forgotten.has(m.id)) falseForgetting++;
      usage.set(m.id, { lastUsed: now.toISOString() });
    }
    // Any retrieval brings a forgotten memory back at once.
    const back = memories.filter((m) => forgotten.has(m.id));
    const after = new Set(decideForgetting(back, usage, now, config, 'main', factsInForce).map((f) => f.id));
    for (const m of wanted) {
      if (!forgotten.has(m.id)) continue;
      expect(after.has(m.id)).toBe(false);
      expect(retentionOf(m, day, day, false, { afterDays: 90, enabled: true })).toBe('used');
      broughtBack++;
    }
  }
  const finalDay = addDays(START, 364);
  const finalForgotten = decideForgetting(memories, usage, new Date(`${finalDay}T23:00:00Z`), config, 'main', factsInForce);
  // The decision agrees with the rule memory by memory (`retentionOf`), on the last day of the year.
  const lastUsed = new Map([...usage].map(([id, use]) => [id, use.lastUsed.slice(0, 10)]));
  const byRule = forgottenIds(memories, finalDay, lastUsed, factsInForce, { afterDays: 90, enabled: true });
  expect(new Set(finalForgotten.map((f) => f.id))).toEqual(byRule);
  const byId = new Map(memories.map((m) => [m.id, m]));
  const forgottenKinds = finalForgotten.map((f) => byId.get(f.id)!);
  return { memories: memories.length, needs, falseForgetting, forgottenSeen, broughtBack, finalForgotten, forgottenKinds, factsInForce };
}

describe('forgetting over a simulated year', () => {
  it.each([1, 42, 2026])('seed %i: false forgetting under one percent, and what is retrieved comes back', (seed) => {
    const run = simulate(seed);
    expect(run.memories).toBe(1460);
    // The policy does forget: a good share of the year's memories leave the package by December.
    expect(run.finalForgotten.length).toBeGreaterThan(run.memories * 0.3);
    expect(run.forgottenSeen).toBeGreaterThan(0);
    // Needs of a forgotten memory: the occasional old note only.
    expect(run.needs).toBeGreaterThan(1500);
    expect(run.falseForgetting / run.needs).toBeLessThan(0.01);
    expect(run.broughtBack).toBe(run.falseForgetting);
    // Never forgotten, whatever the usage: pinned, high, decisions, facts in force, anything of the last 90 days.
    for (const m of run.forgottenKinds) {
      expect(m.day <= addDays(finalDay(), -91)).toBe(true);
      expect(['low', 'normal']).toContain(m.importance);
      expect(m.kind).not.toBe('decision');
      expect(run.factsInForce.has(m.id)).toBe(false);
    }
  });

  it('a stream with forget: false forgets nothing', () => {
    const memories = [{ id: 'a', path: 'main/memories/a.md', day: '2025-01-01', kind: 'note', importance: 'low' as const }];
    const now = new Date('2026-01-01T00:00:00Z');
    expect(decideForgetting(memories, new Map(), now, config, 'main', new Set())).toHaveLength(1);
    expect(decideForgetting(memories, new Map(), now, { ...config, streams: { main: { forget: false } } }, 'main', new Set())).toEqual([]);
    expect(decideForgetting(memories, new Map(), now, { ...config, forget_after_days: 400 }, 'main', new Set())).toEqual([]);
    expect(decideForgetting([{ ...memories[0]!, duplicateOf: 'b' }], new Map(), now, config, 'main', new Set())).toEqual([]);
  });
});

function finalDay(): string {
  return addDays(START, 364);
}
