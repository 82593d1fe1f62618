import type { UploadConfig } from '../config/schema.js';
import { addDays, addMonths, monthRange, pyramidMonthOf, startOfDay, todayIn } from '../time/periods.js';

/**
 * The package's bands, going back from `now` (spec section 6). Each day gets
 * the coarsest tier allowed for it; a summary is used only for a period all
 * of whose days allow its tier.
 *
 *   raw      days overlapping the last `full_detail_hours` (always today)
 *   daily    back to `daily_days` days ago
 *   weekly   back to `weekly_days` days ago
 *   monthly  the `monthly_window` months (weeks by their Thursday) before that
 *   longterm everything older
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

/** Tier ranks: a day of rank r may be covered by a summary of rank ≤ r. */
export const TIER_RANK = { raw: 0, daily: 1, weekly: 2, monthly: 3, longterm: 4 } as const;
export type PackageTier = keyof typeof TIER_RANK;

/** Computes the bands for `now` in `zone`. Pure. */
export function computeBands(now: Date, zone: string, upload: UploadConfig): Bands {
  const today = todayIn(now, zone);
  const rawHorizon = now.getTime() - upload.full_detail_hours * 3600_000;
  // Raw days are those overlapping (horizon, now]: step back while a day starts after the horizon.
  let rawFrom = today;
  while (startOfDay(rawFrom, zone).getTime() > rawHorizon) rawFrom = addDays(rawFrom, -1);
  const dailyFrom = minDay(rawFrom, addDays(today, -(upload.daily_days - 1)));
  const weeklyFrom = minDay(dailyFrom, addDays(today, -(upload.weekly_days - 1)));
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
  if (day >= bands.dailyFrom) return TIER_RANK.daily;
  if (day >= bands.weeklyFrom) return TIER_RANK.weekly;
  if (day >= bands.monthlyFrom) return TIER_RANK.monthly;
  return TIER_RANK.longterm;
}

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}
