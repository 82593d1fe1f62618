import { describe, expect, it } from 'vitest';
import { configSchema, type UploadConfig } from '../../../src/config/schema.js';
import { computeBands, rankOfDay, TIER_RANK, type Bands } from '../../../src/pipeline/package/bands.js';
import { addDays, addMonths, eachDay, monthRange, pyramidMonthOf, todayIn, weekdayName } from '../../../src/time/periods.js';

const defaults: UploadConfig = configSchema.parse({}).upload;
const at = (iso: string): Date => new Date(iso);

/** The structural guarantees of the bands, for one `now`. Returns a list of broken ones (empty = fine). */
function brokenInvariants(bands: Bands, now: Date, zone: string, upload: UploadConfig): string[] {
  const broken: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) broken.push(`${now.toISOString()} ${zone}: ${what} (${JSON.stringify(bands)})`);
  };
  check(bands.today === todayIn(now, zone), 'today is the local calendar day');
  check(bands.monthlyFrom <= bands.weeklyFrom, 'monthlyFrom ≤ weeklyFrom');
  check(bands.weeklyFrom <= bands.dailyFrom, 'weeklyFrom ≤ dailyFrom');
  check(bands.dailyFrom <= bands.rawFrom, 'dailyFrom ≤ rawFrom');
  check(bands.rawFrom <= bands.today, 'rawFrom ≤ today');
  check(weekdayName(bands.monthlyFrom) === 'Monday', 'monthlyFrom is a Monday');
  check(monthRange(pyramidMonthOf(bands.monthlyFrom)).start === bands.monthlyFrom, 'monthlyFrom starts a month period');
  check(
    monthRange(bands.longtermThrough).end === addDays(bands.monthlyFrom, -1),
    'the month longtermThrough ends the day before monthlyFrom',
  );
  // Band starts sit on period boundaries so no week (month) is split between two bands needlessly.
  check(bands.dailyFrom === bands.rawFrom || weekdayName(bands.dailyFrom) === 'Monday', 'dailyFrom is a Monday (or the raw band start)');
  check(
    bands.weeklyFrom === bands.dailyFrom || monthRange(pyramidMonthOf(bands.weeklyFrom)).start === bands.weeklyFrom,
    'weeklyFrom starts a month period (or is dailyFrom)',
  );
  // Exactly `monthly_window` whole months lie between the long-term summary and the weekly band.
  const lastMonthly = addMonths(bands.longtermThrough, upload.monthly_window);
  check(monthRange(lastMonthly).end < bands.weeklyFrom, `the ${upload.monthly_window} months after longtermThrough end before weeklyFrom`);
  check(monthRange(addMonths(lastMonthly, 1)).end >= bands.weeklyFrom, 'the month after the monthly band is not whole before weeklyFrom');
  return broken;
}

describe('computeBands', () => {
  it('with the default config, rawFrom is yesterday at 06:00', () => {
    const bands = computeBands(at('2026-03-10T06:00:00Z'), 'UTC', defaults);
    expect(bands.today).toBe('2026-03-10');
    expect(bands.rawFrom).toBe('2026-03-09');
  });

  it('with full_detail_hours 0, rawFrom is today (also exactly at midnight)', () => {
    const upload = { ...defaults, full_detail_hours: 0 };
    expect(computeBands(at('2026-03-10T06:00:00Z'), 'UTC', upload).rawFrom).toBe('2026-03-10');
    expect(computeBands(at('2026-03-10T00:00:00Z'), 'UTC', upload).rawFrom).toBe('2026-03-10');
  });

  it('full_detail_hours reaches back over as many days as it overlaps', () => {
    expect(computeBands(at('2026-03-10T06:00:00Z'), 'UTC', { ...defaults, full_detail_hours: 48 }).rawFrom).toBe('2026-03-08');
    expect(computeBands(at('2026-03-10T06:00:00Z'), 'UTC', { ...defaults, full_detail_hours: 6 }).rawFrom).toBe('2026-03-10');
    expect(computeBands(at('2026-03-10T06:00:00Z'), 'UTC', { ...defaults, full_detail_hours: 7 }).rawFrom).toBe('2026-03-09');
  });

  it('today and rawFrom are computed in the configured zone', () => {
    // 03:00Z on the 9th is 23:00 on the 8th in New York (EDT: clocks sprang forward that morning).
    const bands = computeBands(at('2026-03-09T03:00:00Z'), 'America/New_York', defaults);
    expect(bands.today).toBe('2026-03-08');
    // The 8th had only 23 hours: the last 24 hours start at 2026-03-08T03:00Z = 22:00 on the 7th (EST).
    expect(bands.rawFrom).toBe('2026-03-07');
    // One hour later the window starts on the 8th itself.
    expect(computeBands(at('2026-03-09T03:59:00Z'), 'America/New_York', defaults).rawFrom).toBe('2026-03-07');
    expect(computeBands(at('2026-03-09T05:30:00Z'), 'America/New_York', defaults).rawFrom).toBe('2026-03-08');
  });

  it('rankOfDay gives each band its tier', () => {
    const bands = computeBands(at('2026-06-15T06:00:00Z'), 'UTC', defaults);
    expect(rankOfDay(bands.today, bands)).toBe(TIER_RANK.raw);
    expect(rankOfDay(bands.rawFrom, bands)).toBe(TIER_RANK.raw);
    if (bands.dailyFrom < bands.rawFrom) expect(rankOfDay(bands.dailyFrom, bands)).toBe(TIER_RANK.daily);
    expect(rankOfDay(addDays(bands.monthlyFrom, -1), bands)).toBe(TIER_RANK.longterm);
    expect(rankOfDay(bands.monthlyFrom, bands)).toBe(bands.monthlyFrom < bands.weeklyFrom ? TIER_RANK.monthly : TIER_RANK.weekly);
  });

  const configs: [string, UploadConfig][] = [
    ['the default config', defaults],
    ['no monthly window', { ...defaults, monthly_window: 0 }],
    ['six monthlies, 48 h full detail', { ...defaults, monthly_window: 6, full_detail_hours: 48 }],
    ['no daily or weekly band', { ...defaults, daily_days: 0, weekly_days: 0 }],
  ];

  // The default config in zones on both sides of UTC, morning and night; the variants in UTC at 06:00.
  const runs: [string, UploadConfig, string, string[]][] = [
    ...['UTC', 'America/New_York', 'Pacific/Kiritimati'].map((zone): [string, UploadConfig, string, string[]] => [
      configs[0]![0],
      defaults,
      zone,
      ['T06:00:00Z', 'T23:59:00Z'],
    ]),
    ...configs.slice(1).map(([name, upload]): [string, UploadConfig, string, string[]] => [name, upload, 'UTC', ['T06:00:00Z']]),
  ];
  for (const [name, upload, zone, times] of runs) {
    it(`holds its invariants for every day of 2026 (${name}, ${zone})`, () => {
      const broken: string[] = [];
      for (const day of eachDay('2026-01-01', '2026-12-31')) {
        for (const time of times) {
          const now = at(`${day}${time}`);
          broken.push(...brokenInvariants(computeBands(now, zone, upload), now, zone, upload));
        }
      }
      expect(broken.slice(0, 5)).toEqual([]);
    });
  }

  it('at 06:00 every day of 2026 (default config), rawFrom is yesterday', () => {
    for (const day of eachDay('2026-01-01', '2026-12-31')) {
      expect(computeBands(at(`${day}T06:00:00Z`), 'UTC', defaults).rawFrom, day).toBe(addDays(day, -1));
    }
  });

  it('with full_detail_hours 0, rawFrom is today on every day of 2026', () => {
    const upload = { ...defaults, full_detail_hours: 0 };
    for (const day of eachDay('2026-01-01', '2026-12-31')) {
      expect(computeBands(at(`${day}T06:00:00Z`), 'UTC', upload).rawFrom, day).toBe(day);
    }
  });

  it('no band ever moves back as time goes on (nothing folded into long-term comes back)', () => {
    let previous = computeBands(at('2025-12-31T06:00:00Z'), 'UTC', defaults);
    for (const day of eachDay('2026-01-01', '2026-12-31')) {
      const bands = computeBands(at(`${day}T06:00:00Z`), 'UTC', defaults);
      for (const key of ['rawFrom', 'dailyFrom', 'weeklyFrom', 'monthlyFrom', 'longtermThrough'] as const) {
        expect(bands[key] >= previous[key], `${key} on ${day}: ${previous[key]} → ${bands[key]}`).toBe(true);
      }
      previous = bands;
    }
  });
});
