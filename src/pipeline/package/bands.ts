import type { UploadConfig } from '../../config/schema.js';
import { CALENDAR_TIER_TABLE, type CalendarTier } from '../../time/tiers.js';
import { addDays, addMonths, monthRange, pyramidMonthOf, startOfDay, todayIn, weekOf, weekRange } from '../../time/periods.js';

/**
 * The package's bands, going back from `now` (docs/architecture.md, "band"). Each day gets
 * the coarsest tier allowed for it; a summary is used only for a period all
 * of whose days allow its tier.
 *
 *   raw      days overlapping the last `full_detail_hours` (always today)
 *   daily    back to `daily_days` days ago, moved forward to a Monday
 *   weekly   back to `weekly_days` days ago, moved forward to a month start
 *   monthly  the `monthly_window` months (weeks by their Thursday) before that
 *   longterm everything older
 *
 * Worst case, per package: 2 raw days, 6 dailies (on a Monday the week just
 * ended still holds a raw day), ⌈weekly_days/7⌉ weeklies, `monthly_window`
 * monthlies and the long-term summary.
 */
export interface Bands {
  today: string;
  rawFrom: string;
  dailyFrom: string;
  weeklyFrom: string;
  monthlyFrom: string;
  /** Last month folded into the long-term summary (months ≤ this have left the package window). */
  longtermThrough: string;
}

/** What covers a day in the package: its memories (`raw`) or a summary of a calendar tier. */
export type PackageTier = 'raw' | CalendarTier;

/** Tier ranks: a day of rank r may be covered by a summary of rank ≤ r (raw 0, then the tier table's order from 1). */
export const TIER_RANK: Readonly<Record<PackageTier, number>> = {
  raw: 0,
  ...(Object.fromEntries(CALENDAR_TIER_TABLE.map((row) => [row.name, row.order + 1])) as Record<CalendarTier, number>),
};

/** Computes the bands for `now` in `zone`. Pure. */
export function computeBands(now: Date, zone: string, upload: UploadConfig): Bands {
  const today = todayIn(now, zone);
  const rawHorizon = now.getTime() - upload.full_detail_hours * 3600_000;
  // Raw days are those overlapping (horizon, now]: step back while a day starts after the horizon.
  let rawFrom = today;
  while (startOfDay(rawFrom, zone).getTime() > rawHorizon) rawFrom = addDays(rawFrom, -1);
  // Band starts move forward to the next week (month) boundary, so a band never splits a
  // period of the tier below it: without this, a split week would add up to six extra dailies.
  const dailyFrom = minDay(rawFrom, nextWeekStart(addDays(today, -(upload.daily_days - 1))));
  const weeklyFrom = minDay(dailyFrom, nextMonthStart(addDays(today, -(upload.weekly_days - 1))));
  // The newest month lying entirely before the weekly band.
  const dayBefore = addDays(weeklyFrom, -1);
  const straddling = pyramidMonthOf(dayBefore);
  const lastWholeMonth = monthRange(straddling).end === dayBefore ? straddling : addMonths(straddling, -1);
  const longtermThrough = addMonths(lastWholeMonth, -upload.monthly_window);
  const monthlyFrom = monthRange(addMonths(longtermThrough, 1)).start;
  return { today, rawFrom, dailyFrom, weeklyFrom, monthlyFrom, longtermThrough };
}

/** The coarsest tier allowed for `day`. */
export function rankOfDay(day: string, bands: Bands): number {
  if (day >= bands.rawFrom) return TIER_RANK.raw;
  // The first tier whose band reaches back to `day`; the coarsest tier's band is everything older.
  for (const row of CALENDAR_TIER_TABLE) if (row.band === undefined || day >= bands[row.band]) return TIER_RANK[row.name];
  return TIER_RANK[CALENDAR_TIER_TABLE[CALENDAR_TIER_TABLE.length - 1]!.name];
}

/** `day` if it is a Monday, else the Monday after it. */
function nextWeekStart(day: string): string {
  const monday = weekRange(weekOf(day)).start;
  return monday === day ? day : addDays(monday, 7);
}

/** `day` if it starts a month (by the Thursday rule), else the start of the next month. */
function nextMonthStart(day: string): string {
  const month = pyramidMonthOf(day);
  const start = monthRange(month).start;
  return start === day ? day : monthRange(addMonths(month, 1)).start;
}

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}
