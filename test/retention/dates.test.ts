import { describe, expect, it } from 'vitest';
import { formatLongDate, formatMonth, resolveRelativeDates } from '../../src/retention/dates.js';

/** Relative dates resolved against the memory's day (a Monday, 2023-05-08, unless said otherwise). */
const on = (text: string, day = '2023-05-08'): string => resolveRelativeDates(text, day);

describe('relative dates', () => {
  it('formats absolute dates as day, month name, year', () => {
    expect(formatLongDate('2023-05-07')).toBe('7 May 2023');
    expect(formatMonth('2024-12')).toBe('December 2024');
  });

  it('annotates days: yesterday, tomorrow, last night, N days ago, the day before yesterday', () => {
    expect(on('I went to a support group yesterday and it was powerful.')).toBe(
      'I went to a support group yesterday (7 May 2023) and it was powerful.',
    );
    expect(on('Yesterday I took the kids to the museum.')).toBe('Yesterday (7 May 2023) I took the kids to the museum.');
    expect(on('Last night was amazing!')).toBe('Last night (7 May 2023) was amazing!');
    expect(on('The release is tomorrow morning.')).toBe('The release is tomorrow morning (9 May 2023).');
    expect(on('I went to a conference two days ago.')).toBe('I went to a conference two days ago (6 May 2023).');
    expect(on('It broke the day before yesterday.')).toBe('It broke the day before yesterday (6 May 2023).');
    expect(on('We ship in 3 days.')).toBe('We ship in 3 days (11 May 2023).');
  });

  it('annotates weekdays relative to the memory: last Friday, this past Sunday, next Monday, abbreviations', () => {
    expect(on('Last Friday, I went to a workshop.')).toBe('Last Friday (5 May 2023), I went to a workshop.');
    expect(on('I joined a new group last Tues.')).toBe('I joined a new group last Tues (2 May 2023).');
    // On a Monday, "last Monday" is a week ago and "next Monday" a week ahead.
    expect(on('last Monday and next Monday')).toBe('last Monday (1 May 2023) and next Monday (15 May 2023)');
    expect(on('this past Sunday')).toBe('this past Sunday (7 May 2023)');
  });

  it('annotates weeks, weekends, months and years', () => {
    expect(on('Last week was wild.')).toBe('Last week (week of 1 May 2023) was wild.');
    expect(on('Last weekend our city held a parade.')).toBe('Last weekend (6–7 May 2023) our city held a parade.');
    expect(on('We are going camping next month.')).toBe('We are going camping next month (June 2023).');
    expect(on("I'm going to a conference this month.")).toBe("I'm going to a conference this month (May 2023).");
    expect(on('I painted that last year.')).toBe('I painted that last year (2022).');
    expect(on('A friend made it ten years ago.')).toBe('A friend made it ten years ago (2013).');
    expect(on('Started three weeks ago.')).toBe('Started three weeks ago (week of 17 April 2023).');
  });

  it('crosses month and year boundaries, leap days included', () => {
    expect(on('yesterday', '2024-01-01')).toBe('yesterday (31 December 2023)');
    expect(on('yesterday', '2024-03-01')).toBe('yesterday (29 February 2024)');
    expect(on('last month', '2024-01-15')).toBe('last month (December 2023)');
    expect(on('next month', '2023-12-31')).toBe('next month (January 2024)');
    expect(on('last weekend', '2023-05-01')).toBe('last weekend (29–30 April 2023)');
    expect(on('last weekend', '2023-06-01')).toBe('last weekend (27–28 May 2023)');
    expect(on('last weekend', '2023-03-02')).toBe('last weekend (25–26 February 2023)');
    expect(on('last weekend', '2023-10-02')).toBe('last weekend (30 September 2023 – 1 October 2023)');
  });

  it("puts the date after a possessive: yesterday's fix", () => {
    expect(on("With yesterday's fix deployed, tomorrow’s window is open.")).toBe(
      "With yesterday's (7 May 2023) fix deployed, tomorrow’s (9 May 2023) window is open.",
    );
  });

  it('is idempotent, leaves code spans and vague phrases alone', () => {
    const once = on('Fixed it yesterday, deploy next Friday.');
    expect(on(once)).toBe(once);
    expect(on('Run `deploy --since yesterday` now.')).toBe('Run `deploy --since yesterday` now.');
    for (const vague of ['We met the other day.', 'Recently I moved.', 'A few weeks ago I started.', 'Someday I will.'])
      expect(on(vague)).toBe(vague);
  });

  // The phrases chrono-node (a dependency, used for search's period phrases) reads otherwise: each case here is why
  // dates.ts keeps its own rules (docs/engines.md). On a Monday, 2023-05-08.
  it('keeps its reading where chrono-node differs: abbreviations, large number words, "this coming", weekends, ISO weeks', () => {
    expect(on('next Thurs')).toBe('next Thurs (11 May 2023)'); // chrono: no date
    expect(on('fifteen days ago')).toBe('fifteen days ago (23 April 2023)'); // chrono: no date
    expect(on('this coming Friday')).toBe('this coming Friday (12 May 2023)'); // chrono: "Friday", 5 May
    expect(on('next weekend')).toBe('next weekend (13–14 May 2023)'); // chrono: 20 May
    expect(on('this week')).toBe('this week (week of 8 May 2023)'); // chrono: the Sunday-first week, 7 May
    expect(on('in a month, 3 weeks from now')).toBe('in a month (June 2023), 3 weeks from now (week of 29 May 2023)');
  });

  it('leaves alone what is not a date relative to the memory: weekdays alone, dates, times, today, vague counts', () => {
    for (const text of [
      'See you Friday.',
      'It was on May 7 at 5pm.',
      'today and tonight',
      'an hour ago',
      'several days ago',
      'the other week',
    ])
      expect(on(text)).toBe(text); // chrono dates all but the last two
  });

  it('does nothing without a valid day', () => {
    expect(resolveRelativeDates('yesterday', 'not a day')).toBe('yesterday');
  });
});
