import { existsSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { computeBands } from '../../src/pipeline/package/bands.js';
import { addDays } from '../../src/time/periods.js';
import {
  CALENDAR_TIER_TABLE,
  type CalendarTierRow,
  calendarSummaryPath,
  summaryId,
  tierOfFolder,
  tierOfStreamFile,
  WATERFALL_TIER_TABLE,
} from '../../src/time/tiers.js';

/**
 * The tier table (src/time/tiers.ts): every calendar tier cuts the days into
 * periods that tile the calendar, each period lies inside one period of the
 * tier above, and every row names a prompt file and a budget key that exist.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIRST = Date.UTC(1001, 0, 1);
const LAST = Date.UTC(9998, 11, 31);
const dayArb = fc
  .integer({ min: FIRST / 86_400_000, max: LAST / 86_400_000 })
  .map((n) => new Date(n * 86_400_000).toISOString().slice(0, 10));
const rows: readonly CalendarTierRow[] = CALENDAR_TIER_TABLE;

describe('the calendar tier table covers every day exactly once per tier', () => {
  for (const row of rows) {
    it(`${row.name}: a day lies in the range of its period, and the periods before and after it adjoin it`, () => {
      fc.assert(
        fc.property(dayArb, (day) => {
          const period = row.periodOf(day);
          const { start, end } = row.rangeOf(period);
          expect(start <= day && day <= end, `${day} → ${period} (${start} to ${end})`).toBe(true);
          // Every day of the range maps back to the period: the ends, and the day itself above.
          expect(row.periodOf(start)).toBe(period);
          expect(row.periodOf(end)).toBe(period);
          // Consecutive periods tile: the day after the end starts the next period, the day before the start ends the previous.
          if (end < '9999-12-31') {
            const next = row.periodOf(addDays(end, 1));
            expect(next).not.toBe(period);
            expect(row.rangeOf(next).start).toBe(addDays(end, 1));
          }
          if (start > '1000-01-01') {
            const previous = row.periodOf(addDays(start, -1));
            expect(previous).not.toBe(period);
            expect(row.rangeOf(previous).end).toBe(addDays(start, -1));
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  for (const row of rows.slice(0, -1)) {
    const coarser = rows[row.order + 1]!;
    it(`${row.name}: each period lies inside one ${coarser.name} period`, () => {
      fc.assert(
        fc.property(dayArb, (day) => {
          const { start, end } = row.rangeOf(row.periodOf(day));
          expect(coarser.periodOf(start)).toBe(coarser.periodOf(end));
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe('the tier table rows', () => {
  it('are in order, each made from the one before it, with distinct names and folders', () => {
    expect(rows.map((row) => row.order)).toEqual(rows.map((_, i) => i));
    expect(rows.map((row) => row.finer)).toEqual([undefined, ...rows.slice(0, -1).map((row) => row.name)]);
    const names = [...rows.map((row) => row.name), ...WATERFALL_TIER_TABLE.map((row) => row.name)];
    expect(new Set(names).size).toBe(names.length);
    const folders = rows.flatMap((row) => (row.folder === undefined ? [] : [row.folder]));
    expect(new Set(folders).size).toBe(folders.length);
    expect(WATERFALL_TIER_TABLE.map((row) => row.order)).toEqual(WATERFALL_TIER_TABLE.map((_, i) => i));
  });

  it('name a prompt file that ships and a budget key the config has', () => {
    const config = configSchema.parse({});
    for (const row of [...rows, ...WATERFALL_TIER_TABLE]) {
      expect(existsSync(path.join(ROOT, 'prompts', `${row.prompt}.yaml`)), `prompts/${row.prompt}.yaml`).toBe(true);
    }
    for (const row of rows) expect(config.calendar, row.budgetKey).toHaveProperty(row.budgetKey);
    for (const row of WATERFALL_TIER_TABLE) expect(config.waterfall, row.budgetKey).toHaveProperty(row.budgetKey);
  });

  it('name package bands in order, finest first, the coarsest tier taking everything older', () => {
    const bands = computeBands(new Date('2026-11-22T06:00:00Z'), 'UTC', configSchema.parse({}).upload);
    const starts = rows.slice(0, -1).map((row) => bands[row.band!]);
    expect(rows[rows.length - 1]!.band).toBeUndefined();
    expect([...starts].sort().reverse()).toEqual(starts);
  });

  it('give every summary one path that reads back as its tier', () => {
    for (const row of rows) {
      const file = calendarSummaryPath('main', row.name as never, '2026-W07');
      const [, first, second] = file.split('/');
      if (row.folder === undefined) {
        expect(second).toBeUndefined();
        expect(tierOfStreamFile(first!)).toBe(row.name);
        expect(summaryId(row.name as never, 'anything')).toBe(row.name);
      } else {
        expect(tierOfFolder(first!)).toBe(row.name);
        expect(summaryId(row.name as never, '2026-W07')).toBe(`${row.name}/2026-W07`);
      }
    }
  });
});
