/**
 * The tier table's columns that need no calendar (time/tiers.ts adds each
 * calendar tier's period, range and titles, which need luxon): names,
 * folders, labels, prompts, budget keys, bands. Apart so a search, which
 * filters and ranks by tier, starts without loading the calendar. Read the
 * table through time/tiers.ts; only the start path of a search (vault/paths.ts,
 * search/query.ts) reads this file.
 */

/** What a generated summary's heading is made from. */
export interface TitleInput {
  stream: string;
  period: string;
  start: string;
  end: string;
}

export const CALENDAR_TIER_FIELDS = [
  {
    name: 'daily',
    order: 0,
    folder: 'daily',
    unit: 'day',
    finer: undefined,
    label: 'daily',
    plural: 'dailies',
    prompt: 'daily',
    budgetKey: 'daily',
    band: 'dailyFrom',
    archived: true,
  },
  {
    name: 'weekly',
    order: 1,
    folder: 'weekly',
    unit: 'week',
    finer: 'daily',
    label: 'weekly',
    plural: 'weeklies',
    prompt: 'weekly',
    budgetKey: 'weekly',
    band: 'weeklyFrom',
    archived: true,
  },
  {
    name: 'monthly',
    order: 2,
    folder: 'monthly',
    unit: 'month',
    finer: 'weekly',
    label: 'monthly',
    plural: 'monthlies',
    prompt: 'monthly',
    budgetKey: 'monthly',
    band: 'monthlyFrom',
    archived: false,
  },
  {
    name: 'longterm',
    order: 3,
    folder: undefined,
    unit: undefined,
    finer: 'monthly',
    label: 'long-term',
    plural: 'long-term summaries',
    prompt: 'longterm',
    budgetKey: 'longterm',
    band: undefined,
    archived: false,
  },
] as const;

export interface WaterfallTierRow {
  name: string;
  order: number;
  /** The summary's file in a stream (`<stream>/waterfall/<file>`) and the period its path gives it. */
  file: string;
  period: string;
  /** The prompt file, `prompts/<prompt>.yaml`. */
  prompt: string;
  /** The budget's key under `waterfall:` in memory.config.yaml. */
  budgetKey: string;
  title(input: TitleInput): string;
}

/** The waterfall's levels (docs/waterfall.md), newest first: count-based, so no period of a day. */
export const WATERFALL_TIER_TABLE = [
  {
    name: 'waterfall-recent',
    order: 0,
    file: 'recent.md',
    period: 'recent',
    prompt: 'waterfall-recent',
    budgetKey: 'recent',
    title: ({ stream, period, start, end }) => `# ${stream}: recent past, ${period} (${start} to ${end})`,
  },
  {
    name: 'waterfall-longterm',
    order: 1,
    file: 'longterm.md',
    period: 'longterm',
    prompt: 'waterfall-longterm',
    budgetKey: 'longterm',
    title: ({ stream, period, start, end }) => `# ${stream}: older memories, ${period} (${start} to ${end})`,
  },
] as const satisfies readonly WaterfallTierRow[];

/** Every summary tier's name: the calendar's finest first, then the waterfall's newest first. */
export const ALL_TIER_NAMES = [...CALENDAR_TIER_FIELDS.map((row) => row.name), ...WATERFALL_TIER_TABLE.map((row) => row.name)] as const;

/** A calendar tier's name (time/tiers.ts calls it `CalendarTier`). */
export type CalendarTierName = (typeof CALENDAR_TIER_FIELDS)[number]['name'];

/** The calendar tier whose summaries live in `folder` of a stream, if any. */
export function tierOfFolder(folder: string): CalendarTierName | undefined {
  return CALENDAR_TIER_FIELDS.find((row) => row.folder !== undefined && row.folder === folder)?.name;
}

/** The calendar tier with one summary per stream stored as `<stream>/<file>`, if any. */
export function tierOfStreamFile(file: string): CalendarTierName | undefined {
  return CALENDAR_TIER_FIELDS.find((row) => row.folder === undefined && `${row.name}.md` === file)?.name;
}

/** The file of a calendar summary inside the vault. */
export function calendarSummaryPath(stream: string, tier: CalendarTierName, period: string): string {
  const folder = CALENDAR_TIER_FIELDS.find((row) => row.name === tier)?.folder;
  return folder === undefined ? `${stream}/${tier}.md` : `${stream}/${folder}/${period}.md`;
}
