import { monthOfWeek, weekOf } from '../time/periods.js';
import { CALENDAR_TIER_TABLE } from '../time/tiers.js';
import type { Memory, Summary } from '../vault/model.js';

/**
 * The pyramid of one stream as the site walks it: years → months → ISO weeks → days, from the memories' days. A week
 * belongs to the month of its Thursday, as the monthly summaries count it (so a month page shows the weeks its
 * summary was built from), and a month to its year. Pure.
 */

export type PeriodTier = 'year' | 'month' | 'week' | 'day';

export interface Period {
  tier: PeriodTier;
  /** `2026`, `2026-10`, `2026-W44`, `2026-10-28`. */
  id: string;
  /** Finer periods, oldest first (none for a day). */
  children: string[];
  parent: string | undefined;
  /** Memories of the period (memories/ and archive/), oldest first. */
  memories: Memory[];
  /** The calendar summary of the period, when the build wrote one. */
  summary: Summary | undefined;
}

export interface StreamTimeline {
  years: Map<string, Period>;
  months: Map<string, Period>;
  weeks: Map<string, Period>;
  days: Map<string, Period>;
}

/** The summary tier of each page kind (the tier table's `unit`); a year has none. */
const SUMMARY_TIER: Record<PeriodTier, string> = {
  year: '',
  ...Object.fromEntries(CALENDAR_TIER_TABLE.flatMap((row) => (row.unit ? [[row.unit, row.name]] : []))),
} as Record<PeriodTier, string>;

/** `memories` oldest first. */
export function buildTimeline(memories: readonly Memory[], summaries: readonly Summary[]): StreamTimeline {
  const byTierPeriod = new Map<string, Summary>();
  for (const summary of summaries) byTierPeriod.set(`${summary.meta.tier}/${summary.meta.period}`, summary);
  const timeline: StreamTimeline = { years: new Map(), months: new Map(), weeks: new Map(), days: new Map() };
  const period = (map: Map<string, Period>, tier: PeriodTier, id: string, parent: string | undefined): Period => {
    let found = map.get(id);
    if (!found) {
      found = { tier, id, children: [], parent, memories: [], summary: byTierPeriod.get(`${SUMMARY_TIER[tier]}/${id}`) };
      map.set(id, found);
    }
    return found;
  };
  for (const memory of memories) {
    const week = weekOf(memory.day);
    const month = monthOfWeek(week);
    const year = month.slice(0, 4);
    const chain = [
      period(timeline.years, 'year', year, undefined),
      period(timeline.months, 'month', month, year),
      period(timeline.weeks, 'week', week, month),
      period(timeline.days, 'day', memory.day, week),
    ];
    chain.forEach((p, i) => {
      p.memories.push(memory);
      const child = chain[i + 1];
      // At most 13 months, 6 weeks or 7 days: a linear look is cheap.
      if (child && !p.children.includes(child.id)) p.children.push(child.id);
    });
  }
  for (const map of Object.values(timeline)) for (const p of map.values()) p.children.sort();
  return timeline;
}
