import { DateTime, Settings } from 'luxon';

// Every date this program formats is ISO or numeric: a fixed locale means luxon never asks the system for its own
// (starting ICU's locale data, ~25-50 ms of every build in a UTC vault) and never writes a locale's own digits.
Settings.defaultLocale = 'en-US';

/**
 * Calendar arithmetic on ISO 8601 names: days `YYYY-MM-DD`, ISO weeks
 * `YYYY-Www`, months `YYYY-MM`, quarters `YYYY-Qn`. Days are plain calendar
 * dates (no zone); the zone only matters when an instant is mapped to its day
 * (`dayOfInstant`) or when `now` is turned into today.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const WEEK = /^(\d{4})-W(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const DAY_MS = 86_400_000;

function utcDay(day: string): DateTime {
  // `YYYY-MM-DD` is read field by field: luxon's ISO parser costs ~20 µs a call, and planning maps thousands of days.
  const match = DAY.exec(day);
  if (!match) return DateTime.fromISO(day, { zone: 'utc' });
  return DateTime.fromObject({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }, { zone: 'utc' });
}

/**
 * Caches a pure function of a string: planning maps every memory's day to its
 * week on each build, and luxon takes ~5 µs a call (100 ms at 20,000
 * memories, paid again on every rebuild in watch mode).
 */
function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= 100_000) cache.clear();
      value = fn(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** True when `text` is a real calendar date in `YYYY-MM-DD` form (2026-02-30 is not). */
export const isValidDay: (text: string) => boolean = memoize((text) => utcMillis(text) !== undefined);

/**
 * Midnight UTC of a real `YYYY-MM-DD` day, else undefined (2026-02-30 rolls
 * over in `Date.UTC` and is rejected). Planning looks at every memory's day
 * on each build; luxon takes ~40 µs to build a date, `Date.UTC` well under 1.
 */
function utcMillis(day: string): number | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 100) {
    // Date.UTC reads years 0–99 as 1900–1999.
    const luxon = utcDay(day);
    return luxon.isValid ? luxon.toMillis() : undefined;
  }
  const millis = Date.UTC(year, month - 1, date);
  const back = new Date(millis);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === date ? millis : undefined;
}

/**
 * `day` plus `n` days. Plain UTC calendar arithmetic (no zone can shift a
 * calendar day) on `utcMillis`: planning walks every day of a three-year
 * history on each build, ~20 µs a step with luxon.
 */
function shiftDay(day: string, n: number): string {
  const millis = utcMillis(day);
  if (millis === undefined) return utcDay(day).plus({ days: n }).toISODate()!;
  return new Date(millis + n * DAY_MS).toISOString().slice(0, 10);
}
const nextDay = memoize((day) => shiftDay(day, 1));
/** `day` plus `n` days, keyed `n|day`. */
const shiftedDay = memoize((key) => {
  const bar = key.indexOf('|');
  return shiftDay(key.slice(bar + 1), Number(key.slice(0, bar)));
});
/** Days since 1970-01-01 (NaN for a day that does not exist). */
const epochDay = memoize((day) => (utcMillis(day) ?? NaN) / DAY_MS);

/** `day` plus `n` days (n may be negative). */
export function addDays(day: string, n: number): string {
  if (n === 1) return nextDay(day);
  return shiftedDay(`${n}|${day}`);
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return epochDay(b) - epochDay(a);
}

/** Every day from `start` to `end`, both included. */
export function eachDay(start: string, end: string): string[] {
  const days: string[] = [];
  for (let day = start; day <= end; day = addDays(day, 1)) days.push(day);
  return days;
}

/** ISO week of a day, e.g. `2026-W07`. */
export const weekOf: (day: string) => string = memoize((day) => {
  const millis = utcMillis(day);
  if (millis === undefined || millis < Date.UTC(1000, 0, 1)) {
    const date = utcDay(day);
    return `${date.weekYear}-W${String(date.weekNumber).padStart(2, '0')}`;
  }
  // ISO 8601: a week belongs to the year of its Thursday, and week 1 holds that year's first Thursday.
  const weekday = (new Date(millis).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = millis + (3 - weekday) * DAY_MS;
  const weekYear = new Date(thursday).getUTCFullYear();
  const week = 1 + Math.floor((thursday - Date.UTC(weekYear, 0, 1)) / (7 * DAY_MS));
  return `${weekYear}-W${String(week).padStart(2, '0')}`;
});

/** Monday and Sunday of an ISO week. */
export function weekRange(week: string): { start: string; end: string } {
  const range = cachedWeekRange(week);
  return { start: range.start, end: range.end };
}

const cachedWeekRange = memoize((week): { start: string; end: string } => {
  const match = WEEK.exec(week);
  if (!match) throw new Error(`\`${week}\` is not an ISO week (YYYY-Www)`);
  const monday = DateTime.fromObject({ weekYear: Number(match[1]), weekNumber: Number(match[2]), weekday: 1 }, { zone: 'utc' });
  if (!monday.isValid || monday.weekNumber !== Number(match[2])) throw new Error(`\`${week}\` is not an existing ISO week`);
  return { start: monday.toISODate()!, end: monday.plus({ days: 6 }).toISODate()! };
});

/** Calendar month of a day, e.g. `2026-02`. */
export function monthOf(day: string): string {
  return day.slice(0, 7);
}

/** The month a week belongs to: the month of its Thursday (so every week belongs to exactly one month). */
export const monthOfWeek: (week: string) => string = memoize((week) => monthOf(addDays(weekRange(week).start, 3)));

/**
 * The days a monthly summary covers: the ISO weeks whose Thursday falls in
 * the month, Monday of the first to Sunday of the last.
 */
export function monthRange(month: string): { start: string; end: string } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`\`${month}\` is not a month (YYYY-MM)`);
  const first = DateTime.fromObject({ year: Number(match[1]), month: Number(match[2]), day: 1 }, { zone: 'utc' });
  if (!first.isValid) throw new Error(`\`${month}\` is not an existing month`);
  const last = first.endOf('month').startOf('day');
  const startWeek = weekOf(first.toISODate()!);
  const firstWeek = monthOfWeek(startWeek) === month ? startWeek : weekOf(first.plus({ days: 7 }).toISODate()!);
  const endWeek = weekOf(last.toISODate()!);
  const lastWeek = monthOfWeek(endWeek) === month ? endWeek : weekOf(last.minus({ days: 7 }).toISODate()!);
  return { start: weekRange(firstWeek).start, end: weekRange(lastWeek).end };
}

/** The month a day's week belongs to (not always the day's calendar month). */
export function pyramidMonthOf(day: string): string {
  return monthOfWeek(weekOf(day));
}

/** `month` plus `n` months. */
export function addMonths(month: string, n: number): string {
  return DateTime.fromISO(`${month}-01`, { zone: 'utc' }).plus({ months: n }).toFormat('yyyy-MM');
}

/** Quarter of a day, e.g. `2026-Q1`. */
export function quarterOf(day: string): string {
  const month = Number(day.slice(5, 7));
  return `${day.slice(0, 4)}-Q${Math.floor((month - 1) / 3) + 1}`;
}

/** English weekday name of a day. */
export function weekdayName(day: string): string {
  return utcDay(day).setLocale('en').toFormat('cccc');
}

export interface DayAndMinute {
  day: string;
  minute: number;
}

/**
 * Maps a frontmatter date to its calendar day in `zone`. A bare date
 * (`2026-02-13`) is that day wherever the zone is; a datetime without an
 * offset is read in `zone`; a datetime with an offset is converted.
 * Returns undefined for anything that is not a real ISO date or datetime.
 */
export function dayOfInstant(value: string, zone: string): DayAndMinute | undefined {
  if (DAY.test(value)) return isValidDay(value) && inYearRange(value) ? { day: value, minute: 0 } : undefined;
  const parsed = DateTime.fromISO(value, { zone, setZone: false });
  if (!parsed.isValid) return undefined;
  const local = parsed.setZone(zone);
  const day = local.toISODate();
  // `9999-12-31T23:59:59-14:00` is a day of year 10000 in UTC: its day must be a four-digit one too.
  if (!day || !DAY.test(day) || !inYearRange(day)) return undefined;
  return { day, minute: local.hour * 60 + local.minute };
}

/** Years a memory may be dated in: every period name (`YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM`) has a four-digit year. */
export const MIN_YEAR = 1000;
export const MAX_YEAR = 9999;

function inYearRange(day: string): boolean {
  const year = Number(day.slice(0, 4));
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/** Parses `now` (an ISO datetime) and returns its day in `zone`; throws on an invalid value. */
export function todayIn(now: Date, zone: string): string {
  return DateTime.fromJSDate(now, { zone }).toISODate()!;
}

/** Minutes since midnight of `now` in `zone`. */
export function minuteOfDay(now: Date, zone: string): number {
  const local = DateTime.fromJSDate(now, { zone });
  return local.hour * 60 + local.minute;
}

/** The instant at which `day` starts in `zone`. */
export function startOfDay(day: string, zone: string): Date {
  return DateTime.fromISO(day, { zone }).startOf('day').toJSDate();
}
