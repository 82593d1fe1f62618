import { describe, expect, it } from 'vitest';
import type { Bands } from '../../../src/pipeline/package/bands.js';
import { refine } from '../../../src/pipeline/package/degrade.js';
import { memoryItem, summaryItem } from '../../../src/pipeline/package/items.js';
import type { Item, PackageInput } from '../../../src/pipeline/package/model.js';
import { eachDay } from '../../../src/time/periods.js';
import type { Memory, Summary } from '../../../src/vault/model.js';

/**
 * The order in which spare room buys detail back (issue 27, item 3): the
 * newest first. A package of a weekly (W41) and three dailies, whose room is
 * measured in characters here: the room goes to the newest day before an old
 * week, and a day too big in full is shown in part (its newest memories in
 * full, the rest by their opening) before anything older gets detail.
 */

const bands: Bands = {
  today: '2026-10-15',
  rawFrom: '2026-10-15',
  dailyFrom: '2026-10-12',
  weeklyFrom: '2026-09-28',
  monthlyFrom: '2026-08-01',
  longtermThrough: '2026-07',
};

function memory(day: string, minute: number, words: number): Memory {
  const body = `Opening sentence of ${day} at ${minute}. Second sentence here. Third sentence here. ${'word '.repeat(words).trim()}.`;
  return {
    id: `${day}-${minute}`,
    stream: 'main',
    path: `main/memories/${day}-${minute}.md`,
    day,
    minute,
    date: `${day}T${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00Z`,
    title: `Memory ${day} ${minute}`,
    tags: [],
    kind: 'note',
    importance: 'normal',
    body,
  } as unknown as Memory;
}

function summary(tier: 'daily' | 'weekly', period: string, start: string, end: string, chars: number): Summary {
  return {
    path: `main/${tier}/${period}.md`,
    meta: { stream: 'main', tier, period, start, end },
    body: `- ${'s'.repeat(chars)}`,
  } as unknown as Summary;
}

function setup(sizes: Record<string, number[]>, dailyFrom = bands.dailyFrom) {
  const memories = Object.entries(sizes).flatMap(([day, words]) => words.map((w, i) => memory(day, 600 + i * 60, w)));
  const summaries = new Map<string, Summary>();
  const week = summary('weekly', '2026-W41', '2026-10-05', '2026-10-11', 300);
  summaries.set(week.path, week);
  for (const day of eachDay('2026-10-05', '2026-10-14')) if (sizes[day]) summaries.set(`d${day}`, summary('daily', day, day, day, 150));
  const sentences = (body: string) =>
    body.split(/(?<=\.) /).map((text) => ({ text, section: '', block: 0, role: 'context', mustKeep: [] }));
  const input = {
    stream: 'main',
    vaultLabel: 'vault',
    bands: { ...bands, dailyFrom },
    memories,
    summaries,
    leftOut: undefined,
    readMemory: (m: Memory) => ({
      body: (m as unknown as { body: string }).body,
      sentences: sentences((m as unknown as { body: string }).body),
    }),
    readSummary: (s: Summary) => ({ body: (s as unknown as { body: string }).body, sentences: [] }),
  } as unknown as PackageInput;
  const history: Item[] = [
    summaryItem(week, input),
    ...['2026-10-12', '2026-10-13', '2026-10-14'].map((day) => summaryItem(summaries.get(`d${day}`)!, input)),
  ];
  const render = (): string =>
    history
      .filter((item) => item.status !== 'left-out')
      .map((item) => (item.opening !== undefined ? `short ${item.id} opening of three sentences here` : item.render()))
      .join('\n\n');
  /** Characters the day's memories in full take beyond its daily's (the `\n\n` joins counted). */
  const fullCost = (day: string): number =>
    memories.filter((m) => m.day === day).reduce((sum, m) => sum + memoryItem(m, 'memory', input).render().length + 2, 0) -
    summaryItem(summaries.get(`d${day}`)!, input).render().length -
    2;
  /** Characters W41's dailies take beyond the weekly's. */
  const weekCost = (): number =>
    [...summaries.values()]
      .filter((sum) => sum.meta.tier === 'daily' && sum.meta.end <= '2026-10-11')
      .reduce((total, sum) => total + summaryItem(sum, input).render().length + 2, 0) -
    summaryItem(week, input).render().length -
    2;
  return { input, history, render, fullCost, weekCost };
}

/** How each day (or week) is shown: `weekly`, `daily`, `full`, or `part`. */
function shownAs(history: readonly Item[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of history) {
    if (item.type === 'summary') out[item.id] = item.tier;
    else out[item.start] = item.opening !== undefined || out[item.start] === 'part' ? 'part' : (out[item.start] ?? 'full');
  }
  return out;
}

const WEEK = { '2026-10-05': [20], '2026-10-07': [20], '2026-10-09': [20] };

describe('refine', () => {
  it('gives spare room to the newest day before an old week', () => {
    const { input, history, render, fullCost } = setup({ ...WEEK, '2026-10-12': [30], '2026-10-13': [30], '2026-10-14': [60, 60] });
    const start = render().length;
    // Room for the newest day in full (two memories), not also for the week's dailies or another day.
    expect(fullCost('2026-10-13')).toBeGreaterThan(30);
    refine(history, input, render(), render, (text) => text.length <= start + fullCost('2026-10-14') + 30);
    expect(shownAs(history)).toEqual({ '2026-W41': 'weekly', '2026-10-12': 'daily', '2026-10-13': 'daily', '2026-10-14': 'full' });
  });

  it('shows a day too big in full in part: its newest memory that fits in full, the others by their opening', () => {
    const { input, history, render, fullCost } = setup({ ...WEEK, '2026-10-12': [400], '2026-10-13': [400], '2026-10-14': [400, 400, 60] });
    const start = render().length;
    // Room for a third of the newest day: its small newest memory in full and the two others by their opening.
    refine(history, input, render(), render, (text) => text.length <= start + Math.round(fullCost('2026-10-14') / 3));
    // The older days of the week too big for what is left; the old week's small days may get it.
    expect(shownAs(history)).toMatchObject({ '2026-10-12': 'daily', '2026-10-13': 'daily', '2026-10-14': 'part' });
    const day = history.filter((item) => item.start === '2026-10-14');
    // All included (more than the daily they replace), the two older ones by their opening.
    expect(day.map((item) => [item.memory!.minute, item.status, item.opening ?? 'full'])).toEqual([
      [600, 'included', 3],
      [660, 'included', 3],
      [720, 'included', 'full'],
    ]);
    for (const item of day) expect(item.reason).toMatch(/instead of daily 2026-10-14/);
  });

  it('splits an old week into its days before showing an old day in full', () => {
    const old = { '2026-10-05': [200], '2026-10-07': [200], '2026-10-09': [200] };
    // The daily band starts on the 13th: the 12th is an old day, newer than the week. Room for one of the two only.
    const { input, history, render, fullCost, weekCost } = setup(
      { ...old, '2026-10-12': [40], '2026-10-13': [30], '2026-10-14': [30] },
      '2026-10-13',
    );
    const recent = fullCost('2026-10-13') + fullCost('2026-10-14');
    const room = Math.max(weekCost(), fullCost('2026-10-12')) + 10;
    expect(Math.min(weekCost(), fullCost('2026-10-12'))).toBeGreaterThan(10);
    const start = render().length;
    refine(history, input, render(), render, (text) => text.length <= start + recent + room);
    expect(shownAs(history)).toEqual({
      '2026-10-05': 'daily',
      '2026-10-07': 'daily',
      '2026-10-09': 'daily',
      '2026-10-12': 'daily',
      '2026-10-13': 'full',
      '2026-10-14': 'full',
    });
  });

  it('buys back every level when there is room for everything', () => {
    const { input, history, render } = setup({ ...WEEK, '2026-10-12': [30], '2026-10-13': [30], '2026-10-14': [60, 60] });
    refine(history, input, render(), render, () => true);
    expect(Object.values(shownAs(history)).every((how) => how === 'full')).toBe(true);
  });
});
