import type * as Chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { isValidDay, todayIn, weekOf, weekRange } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { lazy, requireLazy } from '../util/lazy.js';

// chrono-node (~100 KB of parsers) is loaded the first time a phrase gets past the ISO and `last week` forms.
const chrono = lazy(() => requireLazy('chrono-node') as typeof Chrono);

/**
 * Periods a person can ask about, as calendar days (both ends included):
 * `2026-02-13`, `2026-W07`, `2026-02`, `2026-Q1`, `2026`, a range `A..B` of
 * any two of these, or an English phrase (`today`, `yesterday`, `last week`,
 * `this month`, `last Tuesday`, `3 days ago`, `Feb 13`) read in the configured
 * time zone. Pure: `now` and the zone come in as arguments.
 */
export interface PeriodQuery {
  /** Canonical name: `2026-W07`, `2026-02-10..2026-02-14`, or the day a phrase resolved to. */
  label: string;
  kind: 'day' | 'week' | 'month' | 'quarter' | 'year' | 'range';
  start: string;
  end: string;
}

const EXAMPLES = '2026-02-13, 2026-W07, 2026-02, 2026-Q1, 2026-02-10..2026-02-14, today, yesterday, last week, last Tuesday';

/**
 * Parses a period; throws a one-line `UserError` with examples when it is not one.
 *
 * @example
 *   parsePeriod('2026-W07', { now, zone: 'UTC' }) // { label: '2026-W07', kind: 'week', start: '2026-02-09', end: '2026-02-15' }
 */
export function parsePeriod(text: string, at: { now: Date; zone: string }): PeriodQuery {
  const input = text.trim();
  const range = input.split('..');
  if (range.length === 2 && range[0] && range[1]) {
    const a = parsePeriod(range[0], at);
    const b = parsePeriod(range[1], at);
    if (b.end < a.start) throw unknown(text, `the range ends (${b.end}) before it starts (${a.start})`);
    return { label: `${a.start}..${b.end}`, kind: 'range', start: a.start, end: b.end };
  }
  return isoPeriod(input) ?? relativePeriod(input, at) ?? phrasePeriod(input, at) ?? throwUnknown(text);
}

function isoPeriod(input: string): PeriodQuery | undefined {
  let match: RegExpExecArray | null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(input)) return isValidDay(input) ? { label: input, kind: 'day', start: input, end: input } : undefined;
  if ((match = /^(\d{4})-W(\d{2})$/i.exec(input))) {
    const week = `${match[1]}-W${match[2]}`;
    try {
      return { label: week, kind: 'week', ...weekRange(week) };
    } catch {
      return undefined;
    }
  }
  if ((match = /^(\d{4})-(\d{2})$/.exec(input))) {
    const first = DateTime.fromObject({ year: Number(match[1]), month: Number(match[2]), day: 1 }, { zone: 'utc' });
    return first.isValid ? { label: input, kind: 'month', start: first.toISODate()!, end: first.endOf('month').toISODate()! } : undefined;
  }
  if ((match = /^(\d{4})-Q([1-4])$/i.exec(input))) {
    const first = DateTime.fromObject({ year: Number(match[1]), month: (Number(match[2]) - 1) * 3 + 1, day: 1 }, { zone: 'utc' });
    return { label: `${match[1]}-Q${match[2]}`, kind: 'quarter', start: first.toISODate()!, end: first.endOf('quarter').toISODate()! };
  }
  if (/^\d{4}$/.test(input)) return { label: input, kind: 'year', start: `${input}-01-01`, end: `${input}-12-31` };
  return undefined;
}

/**
 * `this/last week|month|quarter|year`: chrono reads "last week" as the day
 * seven days ago, but a person zooming into last week means the whole ISO
 * week, so these are calendar periods relative to today.
 */
function relativePeriod(input: string, at: { now: Date; zone: string }): PeriodQuery | undefined {
  const match = /^(this|last|previous)\s+(week|month|quarter|year)$/i.exec(input);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase() as 'week' | 'month' | 'quarter' | 'year';
  let today = DateTime.fromISO(todayIn(at.now, at.zone), { zone: 'utc' });
  if (match[1]!.toLowerCase() !== 'this') today = today.minus({ [`${unit}s`]: 1 });
  const day = today.toISODate()!;
  if (unit === 'week') return { label: weekOf(day), kind: 'week', ...weekRange(weekOf(day)) };
  const start = today.startOf(unit).toISODate()!;
  const end = today.endOf(unit).toISODate()!;
  const label =
    unit === 'month' ? day.slice(0, 7) : unit === 'year' ? day.slice(0, 4) : `${day.slice(0, 4)}-Q${Math.ceil(today.month / 3)}`;
  return { label, kind: unit, start, end };
}

/** Any other phrase through chrono-node, as of `now` in the zone; the whole input must be the phrase. */
function phrasePeriod(input: string, at: { now: Date; zone: string }): PeriodQuery | undefined {
  const offset = DateTime.fromJSDate(at.now, { zone: at.zone }).offset;
  const [result] = chrono().parse(input, { instant: at.now, timezone: offset }, { forwardDate: false });
  if (result?.index !== 0 || result.text.length !== input.length) return undefined;
  const dayOf = (c: Chrono.ParsedComponents): string =>
    DateTime.fromObject({ year: c.get('year')!, month: c.get('month')!, day: c.get('day')! }, { zone: 'utc' }).toISODate()!;
  const start = dayOf(result.start);
  const end = result.end ? dayOf(result.end) : start;
  if (!isValidDay(start) || !isValidDay(end) || end < start) return undefined;
  return start === end ? { label: start, kind: 'day', start, end } : { label: `${start}..${end}`, kind: 'range', start, end };
}

function unknown(text: string, why = 'not a period'): UserError {
  return new UserError('read/period', `\`${text}\`: ${why}`, { examples: EXAMPLES });
}

function throwUnknown(text: string): never {
  throw unknown(text);
}

/** `65..128` → `{ from: 65, to: 128 }` (1-based, both included); `65..` runs to the end. */
export function parseNumberRange(text: string): { from: number; to: number } {
  const match = /^(\d+)\.\.(\d*)$/.exec(text.trim()) ?? /^(\d+)$/.exec(text.trim());
  const from = match ? Number(match[1]) : NaN;
  const to = match?.[2] ? Number(match[2]) : match && match[2] === '' ? Number.MAX_SAFE_INTEGER : from;
  if (!match || from < 1 || to < from) {
    throw new UserError('read/range', `\`${text}\` is not a memory number range`);
  }
  return { from, to };
}
