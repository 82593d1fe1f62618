import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/pipeline/build.js';
import type { Manifest } from '../../../src/pipeline/package/index.js';
import { addDays, eachDay } from '../../../src/time/periods.js';
import { writeMemoryFile } from '../../../src/vault/memory-file.js';

/**
 * The package's promises, for vaults from one memory to years of them:
 * within both budgets, every day with memories covered exactly once, every
 * pinned memory included in full. By default ten seeded vaults of up to 200
 * days (past the monthly window, so every band of the package shows: raw
 * days, dailies, weeklies, monthlies, the long-term summary); MEMVAULT_SLOW=1
 * draws 25 new ones of up to three years.
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const SENTENCES = [
  'Fixed the CSV export: timestamps were rendered in server time instead of the org zone.',
  'Decision: sessions live in Postgres with a 30-day sliding expiry (ADR-007).',
  'Caroline reviewed #412 and asked for a regression test around DST transitions.',
  'The p95 of `GET /api/invoices` dropped from 2.3 s to 160 ms after adding the index.',
  'Still blocked on the Stripe webhook retries; waiting for support on ticket 4512.',
  'Paired with Marcus on the BullMQ migration; the cron worker goes away next week.',
  'Spent the afternoon on a flaky test that turned out to depend on test order.',
  'Released v1.8.2 with the currency rounding fix `roundHalfAway()` on 2026-03-04.',
  'Priya wants the audit log to keep 400 days of events, about 12 GB per year.',
  'Nothing much else today, mostly reviews and a long planning meeting.',
];

interface VaultShape {
  firstDay: string;
  /** Memories per day, one entry per day. */
  perDay: number[];
  /** Sentences per memory (1..8). */
  length: number;
  /** Indexes (into the flat memory list) of pinned memories. */
  pinned: number[];
  /** Hours after the start of the day after the last day. */
  nowHours: number;
}

function writeVault(shape: VaultShape): { dir: string; pinnedBodies: string[]; days: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-prop-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\n');
  const folder = path.join(dir, 'vault', 'main', 'memories');
  mkdirSync(folder, { recursive: true });
  const pinned = new Set(shape.pinned);
  const pinnedBodies: string[] = [];
  const days: string[] = [];
  let index = 0;
  shape.perDay.forEach((count, d) => {
    const day = addDays(shape.firstDay, d);
    if (count > 0) days.push(day);
    for (let n = 0; n < count; n++, index++) {
      const isPinned = pinned.has(index);
      const body = isPinned
        ? `Rule ${index}: production deploys need two approvals.`
        : Array.from({ length: shape.length }, (_, k) => SENTENCES[(index * 7 + k * 3) % SENTENCES.length]).join(' ');
      if (isPinned) pinnedBodies.push(body);
      writeFileSync(
        path.join(folder, `${day}-m${n}.md`),
        writeMemoryFile({
          date: `${day}T${String(8 + n).padStart(2, '0')}:00:00Z`,
          title: `Note ${index}`,
          importance: isPinned ? 'pinned' : 'normal',
          body,
        }),
      );
    }
  });
  return { dir, pinnedBodies, days };
}

function checkPackage(dir: string, days: readonly string[], pinnedBodies: readonly string[]): Manifest {
  const text = readFileSync(path.join(dir, 'vault/main/UPLOAD_PACKAGE.md'), 'utf8');
  const manifest = JSON.parse(readFileSync(path.join(dir, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
  // Budgets, measured independently of the manifest.
  expect(countTokens(text)).toBeLessThanOrEqual(manifest.budget.max_tokens);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(manifest.budget.max_bytes);
  expect(countTokens(text)).toBe(manifest.tokens);
  // Every day with memories is covered by exactly one item (raw memories of one day count as one).
  const owner = new Map<string, string>();
  for (const item of manifest.items) {
    if (item.type === 'pinned' || item.status === 'left-out') continue;
    const key = item.type === 'memory' ? `raw:${item.start}` : item.path;
    for (const day of eachDay(item.start, item.end)) {
      const previous = owner.get(day);
      expect(previous === undefined || previous === key, `day ${day} covered by ${previous} and ${key}`).toBe(true);
      owner.set(day, key);
    }
  }
  const leftOut = manifest.items.filter((item) => item.status === 'left-out');
  if (leftOut.length === 0) for (const day of days) expect(owner.has(day), `day ${day} not covered`).toBe(true);
  // Pinned memories are always there, in full.
  for (const body of pinnedBodies) expect(text).toContain(body);
  return manifest;
}

const shapeArbitrary = (maxDays: number) =>
  fc.record({
    firstDay: fc.integer({ min: 0, max: 900 }).map((offset) => addDays('2024-01-01', offset)),
    // Lengths drawn uniformly (fast-check's default sizes favour short arrays).
    perDay: fc.integer({ min: 1, max: maxDays }).chain((days) =>
      fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) }), {
        minLength: days,
        maxLength: days,
      }),
    ),
    length: fc.integer({ min: 1, max: 8 }),
    pinned: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3 }),
    nowHours: fc.integer({ min: 0, max: 60 }),
  });

describe('UPLOAD_PACKAGE.md properties', () => {
  it(
    'stays within budget, covers every day once and keeps pinned memories, for vaults of 1 memory to many months',
    async () => {
      await fc.assert(
        fc.asyncProperty(shapeArbitrary(SLOW ? 1100 : 200), async (shape) => {
          fc.pre(shape.perDay.some((n) => n > 0));
          const { dir, pinnedBodies, days } = writeVault(shape);
          const lastDay = addDays(shape.firstDay, shape.perDay.length - 1);
          const now = new Date(new Date(`${addDays(lastDay, 1)}T00:00:00Z`).getTime() + shape.nowHours * 3_600_000);
          await build({ root: dir, now });
          const manifest = checkPackage(dir, days, pinnedBodies);
          // With default budgets and notes of this size nothing has to be left out.
          expect(manifest.items.filter((item) => item.status === 'left-out')).toEqual([]);
        }),
        { numRuns: SLOW ? 25 : 10, seed: SLOW ? undefined : 20261122 },
      );
    },
    SLOW ? 1_800_000 : 120_000,
  );

  it('a single memory yields a package with that memory in full', async () => {
    const { dir, days } = writeVault({ firstDay: '2026-02-13', perDay: [1], length: 2, pinned: [], nowHours: 3 });
    await build({ root: dir, now: new Date('2026-02-14T03:00:00Z') });
    const manifest = checkPackage(dir, days, []);
    expect(manifest.items.map((item) => [item.type, item.status])).toEqual([['memory', 'included']]);
  });

  it('under a tight budget trades detail for coverage in the documented order and lists what it did', async () => {
    const shape: VaultShape = {
      firstDay: '2026-01-05',
      perDay: Array.from({ length: 70 }, (_, d) => 1 + (d % 3)),
      length: 8,
      pinned: [5],
      nowHours: 10,
    };
    const { dir, pinnedBodies, days } = writeVault(shape);
    writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\nupload: { max_tokens: 1200, max_bytes: 6000 }\n');
    await build({ root: dir, now: new Date('2026-03-16T10:00:00Z') });
    const manifest = checkPackage(dir, days, pinnedBodies);
    const changed = manifest.items.filter((item) => item.status !== 'included');
    expect(changed.length).toBeGreaterThan(0);
    for (const item of changed) expect(item.reason).toBeTruthy();
    // Degradation is oldest-first: no left-out item is newer than an included history item.
    const leftOut = changed.filter((item) => item.status === 'left-out');
    const kept = manifest.items.filter((item) => item.type !== 'pinned' && item.status !== 'left-out');
    if (leftOut.length > 0 && kept.length > 0)
      expect(
        leftOut
          .map((i) => i.end)
          .sort()
          .at(-1)! <= kept.map((i) => i.start).sort()[0]!,
      ).toBe(true);
  });

  it('fails with a message naming what to unpin when pinned memories alone exceed the budget', async () => {
    const { dir } = writeVault({ firstDay: '2026-02-02', perDay: [2, 2], length: 1, pinned: [0, 1, 2, 3], nowHours: 5 });
    writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\nupload: { max_tokens: 60, max_bytes: 4000 }\n');
    await expect(build({ root: dir, now: new Date('2026-02-04T05:00:00Z') })).rejects.toThrow(
      /critical section .* over the package budget/,
    );
  });
});

describe('steady history', () => {
  it.skipIf(!SLOW)(
    'a few sessions a day for years fits the default budget every day without degrading anything',
    async () => {
      const { writeSteadyHistory } = await import('../../../scripts/fixtures/steady-history.js');
      const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-steady-'));
      dirs.push(dir);
      writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\n');
      writeSteadyHistory(dir, { firstDay: '2024-01-01', days: 3 * 365, pinnedDays: [3, 40, 100, 200] });
      for (let d = 2 * 365; d < 3 * 365; d += 5) {
        await build({ root: dir, now: new Date(`${addDays('2024-01-01', d)}T20:00:00Z`) });
        const manifest = JSON.parse(readFileSync(path.join(dir, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
        expect(manifest.items.filter((item) => item.status !== 'included')).toEqual([]);
        expect(manifest.tokens).toBeLessThanOrEqual(8750);
        expect(manifest.bytes).toBeLessThanOrEqual(35840);
      }
    },
    3_600_000,
  );
});
