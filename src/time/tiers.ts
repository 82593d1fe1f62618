import { CALENDAR_TIER_FIELDS, type TitleInput, WATERFALL_TIER_TABLE, type WaterfallTierRow } from './tier-names.js';
import { MAX_YEAR, MIN_YEAR, monthRange, pyramidMonthOf, weekOf, weekRange, weekdayName } from './periods.js';

/**
 * The tier table (docs/architecture.md, "Tier table"): one row per summary
 * tier, and the only place a tier's name, folder, calendar, title, prompt,
 * budget and band are written. Everything that lists tiers or switches over
 * them reads this table, so adding a calendar tier is one row here, one
 * prompt file in `prompts/` and one budget key in `config/schema.ts`.
 *
 * The calendar tiers cover days: each has a period of a day and the range of
 * days of a period, and every day belongs to exactly one period of each tier
 * (test/time/tiers.test.ts checks it). The waterfall's two levels are
 * count-based (a period is not a set of days), so they have a smaller table
 * of their own below with the fields they share: name, file, prompt, budget
 * key, title and order.
 */

/** First and last day of a period, both included. */
export interface DayRange {
  start: string;
  end: string;
}

export type { TitleInput } from './tier-names.js';

export interface CalendarTierRow {
  /** The tier's name: in frontmatter (`tier:`), history folders, summary ids and search filters. */
  name: string;
  /** Position from finest (0) to coarsest; lists of tiers are in this order unless they say otherwise. */
  order: number;
  /**
   * Folder of the tier's summaries in a stream, one file per period (`<stream>/<folder>/<period>.md`);
   * undefined for a tier with one summary per stream, `<stream>/<name>.md` (its summary id is its name).
   */
  folder: string | undefined;
  /** The calendar unit of a period (the site's page kind): undefined for a tier with one summary per stream. */
  unit: 'day' | 'week' | 'month' | undefined;
  /** The tier whose summaries are its inputs; undefined for the tier made from memories. */
  finer: string | undefined;
  /** The period a day belongs to (`2026-02-13` → `2026-W07`). */
  periodOf(day: string): string;
  /** The days a period covers. */
  rangeOf(period: string): DayRange;
  /** The word a commit message and a person use for it (`weekly`, `long-term`). */
  label: string;
  /** Plural of the label, for counts of archived summaries. */
  plural: string;
  /** Heading of a generated summary. */
  title(input: TitleInput): string;
  /** Heading of the tier's summary in the upload package. */
  packageTitle(input: Omit<TitleInput, 'stream'>): string;
  /**
   * How the summarizer's prompt introduces one of the tier's summaries as a source of the tier above:
   * `label` is the source's label (its period, or `long-term memory`), `day` its first day.
   */
  sourceHeading(label: string, day: string): string;
  /** The prompt file, `prompts/<prompt>.yaml` (or the project's override of that name). */
  prompt: string;
  /** The budget's key under `calendar:` in memory.config.yaml. */
  budgetKey: string;
  /**
   * The package band (pipeline/bands.ts) whose days may be covered by this tier's summaries: the field of
   * `Bands` where the band starts; undefined for the coarsest tier, whose band is everything older.
   */
  band: 'dailyFrom' | 'weeklyFrom' | 'monthlyFrom' | undefined;
  /**
   * Whether the tier's summaries past retention move to `<stream>/archive/<quarter>/<folder>/`
   * (pipeline/archive.ts decides when, from `calendar.retention`).
   */
  archived: boolean;
}

/** The first and last day a period name can hold: one period of a single-summary tier covers them all. */
const ALL_DAYS: DayRange = { start: `${MIN_YEAR}-01-01`, end: `${MAX_YEAR}-12-31` };

/** Weekday of a day, or the day itself when it is not one (a hand-edited source label). */
function safeWeekday(day: string): string {
  try {
    return weekdayName(day);
  } catch {
    return day;
  }
}

/** The calendar tiers, finest first. */
export const CALENDAR_TIER_TABLE = [
  {
    ...CALENDAR_TIER_FIELDS[0],
    periodOf: (day) => day,
    rangeOf: (period) => ({ start: period, end: period }),
    title: ({ stream, period }) => `# ${stream}: ${period} (${weekdayName(period)})`,
    packageTitle: ({ period }) => `Day ${period}`,
    sourceHeading: (label) => `${label} (${safeWeekday(label)})`,
  },
  {
    ...CALENDAR_TIER_FIELDS[1],
    periodOf: weekOf,
    rangeOf: weekRange,
    title: ({ stream, period, start, end }) => `# ${stream}: week ${period} (${start} to ${end})`,
    packageTitle: ({ period, start, end }) => `Week ${period} (${start} to ${end})`,
    sourceHeading: (label, day) => `week ${label} (from ${day})`,
  },
  {
    ...CALENDAR_TIER_FIELDS[2],
    // A month is the ISO weeks whose Thursday falls in it (time/periods.ts), so a day's month is its week's.
    periodOf: pyramidMonthOf,
    rangeOf: monthRange,
    title: ({ stream, period, start, end }) => `# ${stream}: month ${period} (${start} to ${end})`,
    packageTitle: ({ period, start, end }) => `Month ${period} (${start} to ${end})`,
    sourceHeading: (label) => `month ${label}`,
  },
  {
    ...CALENDAR_TIER_FIELDS[3],
    // One summary per stream: the months that left the package window, folded (pipeline/plan.ts, planLongterm).
    periodOf: () => 'longterm',
    rangeOf: () => ALL_DAYS,
    title: ({ stream, start, end }) => `# ${stream}: long-term memory (${start} to ${end})`,
    packageTitle: ({ start, end }) => `Long-term memory (${start} to ${end})`,
    sourceHeading: () => 'long-term memory so far',
  },
] as const satisfies readonly CalendarTierRow[];

/** A calendar tier's name: `daily`, `weekly`, `monthly`, `longterm`. */
export type CalendarTier = (typeof CALENDAR_TIER_TABLE)[number]['name'];

export { calendarSummaryPath, tierOfFolder, tierOfStreamFile, WATERFALL_TIER_TABLE, type WaterfallTierRow } from './tier-names.js';

export type WaterfallTier = (typeof WATERFALL_TIER_TABLE)[number]['name'];
export type Tier = CalendarTier | WaterfallTier;

/** A calendar tier with one summary per period, in a folder (daily, weekly, monthly): what zoom shows. */
export type PeriodTier = Extract<(typeof CALENDAR_TIER_TABLE)[number], { folder: string }>['name'];

/** A calendar tier whose summaries are archived past retention. */
export type ArchivedTier = Extract<(typeof CALENDAR_TIER_TABLE)[number], { archived: true }>['name'];

/** Calendar tier names, finest first. */
export const CALENDAR_TIERS: readonly CalendarTier[] = CALENDAR_TIER_TABLE.map((row) => row.name);
/** The calendar tiers with one summary per period, finest first. */
export const PERIOD_TIERS: readonly PeriodTier[] = CALENDAR_TIER_TABLE.filter((row) => row.folder !== undefined).map(
  (row) => row.name as PeriodTier,
);
/** Calendar tier names, coarsest first (the order the package and the index read them in). */
export const CALENDAR_TIERS_COARSEST_FIRST: readonly CalendarTier[] = [...CALENDAR_TIERS].reverse();
/** The calendar tiers whose summaries are archived past retention, finest first. */
export const ARCHIVED_TIERS: readonly ArchivedTier[] = CALENDAR_TIER_TABLE.filter((row) => row.archived).map(
  (row) => row.name as ArchivedTier,
);
/** The folders of the archived tiers: `<stream>/<folder>/` and `<stream>/archive/<quarter>/<folder>/`. */
export const ARCHIVED_FOLDERS: ReadonlySet<string> = new Set(ARCHIVED_TIERS.map((tier) => folderOf(tier)));
/** Waterfall level names, newest first. */
export const WATERFALL_TIERS: readonly WaterfallTier[] = WATERFALL_TIER_TABLE.map((row) => row.name);
/** Every summary tier: the calendar's finest first, then the waterfall's newest first. */
export const ALL_TIERS: readonly Tier[] = [...CALENDAR_TIERS, ...WATERFALL_TIERS];
/** Every summary tier: the calendar's coarsest first, then the waterfall's oldest first (INDEX.md's order). */
export const ALL_TIERS_COARSEST_FIRST: readonly Tier[] = [...CALENDAR_TIERS_COARSEST_FIRST, ...[...WATERFALL_TIERS].reverse()];

const BY_NAME = new Map<string, CalendarTierRow>(CALENDAR_TIER_TABLE.map((row) => [row.name, row]));
const WATERFALL_BY_NAME = new Map<string, WaterfallTierRow>(WATERFALL_TIER_TABLE.map((row) => [row.name, row]));

/** The folder of a tier with one summary per period (an archived tier always has one). */
function folderOf(tier: CalendarTier): string {
  const row = CALENDAR_TIER_TABLE.find((candidate) => candidate.name === tier)!;
  return row.folder ?? row.name;
}

/** True when `name` is a calendar tier. */
export function isCalendarTier(name: string): name is CalendarTier {
  return BY_NAME.has(name);
}

/** True when `name` is a waterfall level. */
export function isWaterfallTier(name: string): name is WaterfallTier {
  return WATERFALL_BY_NAME.has(name);
}

/** The row of a calendar tier. */
export function calendarTier(name: CalendarTier): CalendarTierRow {
  return BY_NAME.get(name)!;
}

/** The row of a waterfall level. */
export function waterfallTier(name: WaterfallTier): WaterfallTierRow {
  return WATERFALL_BY_NAME.get(name)!;
}

/** The finest calendar tier: the one made from memories. */
export const FINEST_TIER: CalendarTier = CALENDAR_TIERS[0]!;
/** The coarsest calendar tier. */
export const COARSEST_TIER: CalendarTier = CALENDAR_TIERS[CALENDAR_TIERS.length - 1]!;

/** The tier whose inputs are `tier`'s summaries, if any. */
export function coarserTier(tier: CalendarTier): CalendarTier | undefined {
  return CALENDAR_TIERS[calendarTier(tier).order + 1];
}

/** True when the tier has one summary per stream (no folder of periods). */
export function isSingleSummaryTier(tier: CalendarTier): boolean {
  return calendarTier(tier).folder === undefined;
}

/**
 * A calendar summary's id inside its stream: `<tier>/<period>` (`weekly/2026-W07`), or the tier's name for a
 * tier with one summary per stream (`longterm`). Planning, the index, the dry-run estimate and the site key
 * summaries by it.
 */
export function summaryId(tier: Tier, period: string): string {
  return isCalendarTier(tier) && isSingleSummaryTier(tier) ? tier : `${tier}/${period}`;
}

/** A value for each calendar tier, computed from its row: budgets by `budgetKey`, empty counters, plans. */
export function tierRecord<T>(value: (row: (typeof CALENDAR_TIER_TABLE)[number]) => T): Record<CalendarTier, T> {
  return Object.fromEntries(CALENDAR_TIER_TABLE.map((row) => [row.name, value(row)])) as Record<CalendarTier, T>;
}

/** The heading of a generated summary of any tier. */
export function tierTitle(tier: Tier, input: TitleInput): string {
  return isCalendarTier(tier) ? calendarTier(tier).title(input) : waterfallTier(tier).title(input);
}

/** A summary tier's prompt file name, without `.yaml`. */
export type TierPrompt = (typeof CALENDAR_TIER_TABLE)[number]['prompt'] | (typeof WATERFALL_TIER_TABLE)[number]['prompt'];

/** The prompt file name of every summary tier, in table order. */
export const TIER_PROMPTS: readonly TierPrompt[] = [
  ...CALENDAR_TIER_TABLE.map((row) => row.prompt),
  ...WATERFALL_TIER_TABLE.map((row) => row.prompt),
];

/** The prompt a tier's summaries are made with. */
export function promptOfTier(tier: Tier): TierPrompt {
  return (isCalendarTier(tier) ? calendarTier(tier).prompt : waterfallTier(tier).prompt) as TierPrompt;
}
