/**
 * The calendar days a query names with their year: `on 13 October 2023`,
 * `October 13, 2023`, `Oct 13th 2023`, `1st February, 2023`, `2023-10-13`.
 * A question about a day ("What did Gina find on 1 February, 2023?") is about
 * that day's memories, which rarely write their own date in their text (it is
 * in their heading), and a text's resolved dates are spelt out in full
 * (`yesterday (31 December 2023)`) where a query abbreviates (`31 Dec 2023`).
 * Pure; a day without a year (`May 7`) is not read: which year it means is a guess.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';
const DAY_MONTH_YEAR = new RegExp(`\\b${DAY} (?:of )?${MONTH},? ${YEAR}\\b`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH} ${DAY},? ${YEAR}\\b`, 'gi');
const ISO_DAY = /\b(\d{4})-(\d{2})-(\d{2})\b/g;

/** `2023-02-30` is no day: the date a `Date` makes of it must give back the same year, month and day (no luxon: a search loads none). */
function isCalendarDay(iso: string): boolean {
  const [y, m, d] = iso.split('-').map(Number);
  const date = new Date(Date.UTC(y!, m! - 1, d!));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m! - 1 && date.getUTCDate() === d;
}

function dayOf(year: string, month: string, day: string): string | undefined {
  const m = MONTHS.indexOf(month.slice(0, 3).toLowerCase() as (typeof MONTHS)[number]) + 1;
  if (m === 0) return undefined;
  const iso = `${year}-${String(m).padStart(2, '0')}-${day.padStart(2, '0')}`;
  return isCalendarDay(iso) ? iso : undefined;
}

/**
 * @example
 *   namedDays('Where was Kate on 31 Dec 2023?') // ['2023-12-31']
 */
export function namedDays(query: string): string[] {
  const days = new Set<string>();
  for (const m of query.matchAll(DAY_MONTH_YEAR)) {
    const day = dayOf(m[3]!, m[2]!, m[1]!);
    if (day) days.add(day);
  }
  for (const m of query.matchAll(MONTH_DAY_YEAR)) {
    const day = dayOf(m[3]!, m[1]!, m[2]!);
    if (day) days.add(day);
  }
  for (const m of query.matchAll(ISO_DAY)) if (isCalendarDay(m[0])) days.add(m[0]);
  return [...days];
}
