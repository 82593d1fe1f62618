import { addDays, weekOf, weekRange } from '../time/periods.js';

/**
 * Relative dates ("yesterday", "last Friday", "two weeks ago", "next month")
 * resolved against the day a memory was written, so a summary read months
 * later never says "yesterday" about a day long gone. The phrase is kept and
 * the absolute date follows it in parentheses:
 *
 *   "I went to a support group yesterday."  (memory of 2023-05-08)
 *   → "I went to a support group yesterday (7 May 2023)."
 *
 * Keeping the phrase keeps the sentence grammatical wherever the phrase sits
 * (subject, adverb, after a preposition). Dates are written `7 May 2023`:
 * unambiguous (no day/month order to guess) and read the same by people and
 * models. Vague phrases ("recently", "the other day", "a few weeks ago") are
 * left alone: there is no date to give them. Code spans are never touched, and
 * a phrase already followed by a parenthesis is not annotated twice.
 *
 * Not chrono-node (which reads search's period phrases, read/period-query.ts):
 * it dates more than these phrases (a weekday alone, `May 7`, `at 5pm`, `a few
 * weeks ago`), reads some otherwise (`this coming Friday` as the last Friday,
 * `next weekend` a week later, `this week` Sunday-first, no `Tues` or
 * `fifteen`), and costs ~4× the time on a memory's text. The differences are
 * pinned in test/retention/dates.test.ts; docs/engines.md has the numbers.
 */

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** `2023-05-07` → `7 May 2023`. */
export function formatLongDate(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return `${d} ${MONTH_NAMES[(m ?? 1) - 1]} ${y}`;
}

/** `2023-05` → `May 2023`. */
export function formatMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return `${MONTH_NAMES[(m ?? 1) - 1]} ${y}`;
}

function weekdayOf(day: string): number {
  return new Date(`${day}T00:00:00Z`).getUTCDay();
}

function shiftMonth(day: string, n: number): string {
  const [y, m] = day.split('-').map(Number);
  const index = (y ?? 0) * 12 + ((m ?? 1) - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  'a couple of': 2,
  'a couple': 2,
  couple: 2,
};
const COUNT = `(\\d{1,3}|a couple of|a couple|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)`;
const WEEKDAY = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues?|wed|thur?s?|fri|sat)\\.?';

function count(text: string): number {
  const lower = text.toLowerCase();
  return NUMBER_WORDS[lower] ?? Number(lower);
}

/** `fri`, `Tues`, `thursday` → 5, 2, 4 (Sunday is 0). */
function weekdayIndex(name: string): number {
  const lower = name.toLowerCase();
  return WEEKDAY_NAMES.findIndex((weekday) => weekday.startsWith(lower.slice(0, 3)));
}

function weekOfLabel(day: string): string {
  return `week of ${formatLongDate(weekRange(weekOf(day)).start)}`;
}

/** The Saturday and Sunday of the weekend `offset` weekends from the one on or before `day`. */
function weekendLabel(day: string, offset: number): string {
  const weekday = weekdayOf(day);
  // The most recent Saturday strictly before `day` (a Sunday's "last weekend" is the one before this one).
  const back = weekday === 6 ? 7 : weekday === 0 ? 8 : weekday + 1;
  const saturday = addDays(day, -back + 7 * offset);
  const sunday = addDays(saturday, 1);
  const [sy, sm, sd] = saturday.split('-').map(Number);
  const [uy, um, ud] = sunday.split('-').map(Number);
  if (sy === uy && sm === um) return `${sd}–${ud} ${MONTH_NAMES[(um ?? 1) - 1]} ${uy}`;
  return `${formatLongDate(saturday)} – ${formatLongDate(sunday)}`;
}

interface Rule {
  pattern: RegExp;
  resolve: (match: RegExpExecArray, day: string) => string | undefined;
}

/** Longest phrases first: "the day before yesterday" must win over "yesterday". */
const RULES: Rule[] = [
  { pattern: /\bthe day before yesterday\b/i, resolve: (_, day) => formatLongDate(addDays(day, -2)) },
  { pattern: /\bthe day after tomorrow\b/i, resolve: (_, day) => formatLongDate(addDays(day, 2)) },
  {
    pattern: /\byesterday (?:morning|afternoon|evening|night)\b|\byesterday\b|\blast night\b/i,
    resolve: (_, day) => formatLongDate(addDays(day, -1)),
  },
  { pattern: /\btomorrow (?:morning|afternoon|evening|night)\b|\btomorrow\b/i, resolve: (_, day) => formatLongDate(addDays(day, 1)) },
  {
    pattern: new RegExp(`\\b(?:last|this past|past) ${WEEKDAY}\\b`, 'i'),
    resolve: (m, day) => {
      const target = weekdayIndex(m[1]!);
      const back = (weekdayOf(day) - target + 7) % 7 || 7;
      return formatLongDate(addDays(day, -back));
    },
  },
  {
    pattern: new RegExp(`\\b(?:next|this coming) ${WEEKDAY}\\b`, 'i'),
    resolve: (m, day) => {
      const target = weekdayIndex(m[1]!);
      const ahead = (target - weekdayOf(day) + 7) % 7 || 7;
      return formatLongDate(addDays(day, ahead));
    },
  },
  { pattern: /\b(?:last|this past|past) weekend\b/i, resolve: (_, day) => weekendLabel(day, 0) },
  { pattern: /\b(?:next|this coming) weekend\b/i, resolve: (_, day) => weekendLabel(day, 1) },
  { pattern: /\blast week\b/i, resolve: (_, day) => weekOfLabel(addDays(day, -7)) },
  { pattern: /\bnext week\b/i, resolve: (_, day) => weekOfLabel(addDays(day, 7)) },
  { pattern: /\bthis week\b/i, resolve: (_, day) => weekOfLabel(day) },
  { pattern: /\blast month\b/i, resolve: (_, day) => formatMonth(shiftMonth(day, -1)) },
  { pattern: /\bnext month\b/i, resolve: (_, day) => formatMonth(shiftMonth(day, 1)) },
  { pattern: /\bthis month\b/i, resolve: (_, day) => formatMonth(shiftMonth(day, 0)) },
  { pattern: /\blast year\b/i, resolve: (_, day) => String(Number(day.slice(0, 4)) - 1) },
  { pattern: /\bnext year\b/i, resolve: (_, day) => String(Number(day.slice(0, 4)) + 1) },
  { pattern: /\bthis year\b/i, resolve: (_, day) => day.slice(0, 4) },
  {
    pattern: new RegExp(`\\b${COUNT} (day|week|month|year)s? (ago|before|earlier)\\b`, 'i'),
    resolve: (m, day) => shifted(day, -count(m[1]!), m[2]!.toLowerCase()),
  },
  {
    pattern: new RegExp(`\\bin ${COUNT} (day|week|month|year)s?(?! ago)\\b`, 'i'),
    resolve: (m, day) => shifted(day, count(m[1]!), m[2]!.toLowerCase()),
  },
  {
    pattern: new RegExp(`\\b${COUNT} (day|week|month|year)s? from now\\b`, 'i'),
    resolve: (m, day) => shifted(day, count(m[1]!), m[2]!.toLowerCase()),
  },
];

function shifted(day: string, n: number, unit: string): string | undefined {
  if (!Number.isFinite(n) || n === 0 || Math.abs(n) > 400) return undefined;
  switch (unit) {
    case 'day':
      return formatLongDate(addDays(day, n));
    case 'week':
      return weekOfLabel(addDays(day, 7 * n));
    case 'month':
      return formatMonth(shiftMonth(day, n));
    case 'year':
      return String(Number(day.slice(0, 4)) + n);
    default:
      return undefined;
  }
}

const CODE_SPAN = /(`[^`]*`)/;
const ALL_RULES_POSSESSIVE = new RegExp(`(?:${RULES.map((rule) => `(?:${rule.pattern.source})`).join('|')})(?:['’]s\\b)?`, 'gi');

/**
 * Annotates every relative date of `text` with the absolute date it means for
 * a memory written on `day` (`YYYY-MM-DD`). Idempotent.
 *
 * @example
 * resolveRelativeDates('Lost my job yesterday.', '2023-01-20') // 'Lost my job yesterday (19 January 2023).'
 */
export function resolveRelativeDates(text: string, day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return text;
  return text
    .split(CODE_SPAN)
    .map((part, index) => (index % 2 === 1 ? part : resolvePart(part, day)))
    .join('');
}

function resolvePart(text: string, day: string): string {
  return text.replace(ALL_RULES_POSSESSIVE, (whole: string, ...rest: unknown[]) => {
    const offset = rest[rest.length - 2] as number;
    const input = rest[rest.length - 1] as string;
    // Already annotated (`yesterday (7 May 2023)`): leave it.
    if (/^\s*\(/.test(input.slice(offset + whole.length))) return whole;
    // `yesterday's fix` → `yesterday's (7 May 2023) fix`: the annotation follows the possessive.
    const phrase = whole.replace(/['’]s$/, '');
    for (const rule of RULES) {
      const match = new RegExp(`^(?:${rule.pattern.source})$`, 'i').exec(phrase);
      if (!match) continue;
      const absolute = rule.resolve(match, day);
      return absolute ? `${whole} (${absolute})` : whole;
    }
    return whole;
  });
}
