import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  dayOfInstant,
  eachDay,
  isValidDay,
  monthOfWeek,
  monthRange,
  pyramidMonthOf,
  quarterOf,
  startOfDay,
  todayIn,
  weekdayName,
  weekOf,
  weekRange,
} from '../../src/time/periods.js';

describe('ISO weeks', () => {
  it.each([
    ['2026-01-01', '2026-W01'],
    ['2027-01-01', '2026-W53'],
    ['2025-12-29', '2026-W01'],
    ['2025-12-28', '2025-W52'],
    ['2026-12-31', '2026-W53'],
    ['2027-01-04', '2027-W01'],
    ['2021-01-03', '2020-W53'],
    ['2024-12-30', '2025-W01'],
    ['2026-02-13', '2026-W07'],
  ])('%s is in %s', (day, week) => {
    expect(weekOf(day)).toBe(week);
  });

  it.each([
    ['2026-W01', '2025-12-29', '2026-01-04'],
    ['2026-W07', '2026-02-09', '2026-02-15'],
    ['2026-W53', '2026-12-28', '2027-01-03'],
    ['2020-W53', '2020-12-28', '2021-01-03'],
  ])('weekRange(%s) is %s to %s', (week, start, end) => {
    expect(weekRange(week)).toEqual({ start, end });
  });

  it('every day of 2025–2028 lies in the Monday–Sunday range of its week', () => {
    for (const day of eachDay('2025-01-01', '2028-12-31')) {
      const { start, end } = weekRange(weekOf(day));
      expect(start <= day && day <= end, `${day} in ${weekOf(day)}`).toBe(true);
      expect(weekdayName(start)).toBe('Monday');
      expect(addDays(start, 6)).toBe(end);
    }
  });

  it('rejects names that are not weeks', () => {
    expect(() => weekRange('2026-W7')).toThrow(/2026-W7/);
    expect(() => weekRange('2026-07')).toThrow(/2026-07/);
  });

  it('rejects week numbers that do not exist in that year', () => {
    // 2025 has 52 ISO weeks; W00 and W54 never exist.
    for (const week of ['2025-W53', '2026-W00', '2026-W54']) {
      expect(() => weekRange(week), week).toThrow(week);
    }
  });
});

describe('months by the Thursday rule', () => {
  it.each([
    ['2026-W01', '2026-01'], // Mon 2025-12-29, Thu 2026-01-01
    ['2025-W01', '2025-01'], // Mon 2024-12-30, Thu 2025-01-02
    ['2026-W53', '2026-12'], // Thu 2026-12-31
    ['2026-W40', '2026-10'], // Mon 2026-09-28, Thu 2026-10-01
    ['2026-W44', '2026-10'], // Mon 2026-10-26, Thu 2026-10-29, Sun 2026-11-01
    ['2026-W09', '2026-02'], // Thu 2026-02-26
  ])('%s belongs to %s', (week, month) => {
    expect(monthOfWeek(week)).toBe(month);
  });

  it.each([
    ['2026-01', '2025-12-29', '2026-02-01'],
    ['2026-02', '2026-02-02', '2026-03-01'],
    ['2026-03', '2026-03-02', '2026-03-29'],
    ['2026-12', '2026-11-30', '2027-01-03'],
    ['2027-01', '2027-01-04', '2027-01-31'],
  ])('monthRange(%s) is %s to %s', (month, start, end) => {
    expect(monthRange(month)).toEqual({ start, end });
  });

  it('consecutive months tile the calendar from 2025 to 2027 without gaps or overlap', () => {
    let month = '2025-01';
    for (let i = 0; i < 36; i++) {
      const { start, end } = monthRange(month);
      const next = monthRange(addMonths(month, 1));
      expect(addDays(end, 1), `${month} → next month`).toBe(next.start);
      expect(weekdayName(start)).toBe('Monday');
      expect(weekdayName(end)).toBe('Sunday');
      const length = Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000) + 1;
      expect([28, 35]).toContain(length);
      // Every week inside the range belongs to the month, and the range holds the month's 1st Thursday.
      for (let monday = start; monday <= end; monday = addDays(monday, 7)) expect(monthOfWeek(weekOf(monday))).toBe(month);
      month = addMonths(month, 1);
    }
  });

  it('every day lies in the range of its pyramid month', () => {
    for (const day of eachDay('2025-01-01', '2027-12-31')) {
      const { start, end } = monthRange(pyramidMonthOf(day));
      expect(start <= day && day <= end, day).toBe(true);
    }
  });

  it('addMonths crosses year boundaries both ways', () => {
    expect(addMonths('2026-01', -1)).toBe('2025-12');
    expect(addMonths('2026-11', 3)).toBe('2027-02');
    expect(addMonths('2026-05', 0)).toBe('2026-05');
  });

  it('rejects names that are not months, naming the bad value', () => {
    expect(() => monthRange('2026-2')).toThrow(/2026-2/);
    expect(() => monthRange('2026-13')).toThrow(/2026-13/);
  });
});

describe('quarterOf', () => {
  it.each([
    ['2026-01-01', '2026-Q1'],
    ['2026-03-31', '2026-Q1'],
    ['2026-04-01', '2026-Q2'],
    ['2026-06-30', '2026-Q2'],
    ['2026-07-01', '2026-Q3'],
    ['2026-09-30', '2026-Q3'],
    ['2026-10-01', '2026-Q4'],
    ['2026-12-31', '2026-Q4'],
  ])('%s is in %s', (day, quarter) => {
    expect(quarterOf(day)).toBe(quarter);
  });
});

describe('isValidDay', () => {
  it.each(['2028-02-29', '2000-02-29', '2026-02-28', '2026-12-31', '2026-01-01'])('accepts %s', (day) => {
    expect(isValidDay(day)).toBe(true);
  });

  it.each([
    '2026-02-29',
    '2100-02-29',
    '2026-02-30',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-2-1',
    '2026-02-28T00:00',
    '26-02-28',
    '',
  ])('rejects %j', (day) => {
    expect(isValidDay(day)).toBe(false);
  });
});

describe('dayOfInstant', () => {
  it('a datetime with an offset is converted to the zone', () => {
    expect(dayOfInstant('2026-03-01T23:30:00-05:00', 'UTC')).toEqual({ day: '2026-03-02', minute: 270 });
    expect(dayOfInstant('2026-03-01T23:30:00-05:00', 'America/New_York')).toEqual({ day: '2026-03-01', minute: 1410 });
    expect(dayOfInstant('2026-03-01T23:30:00Z', 'Asia/Tokyo')).toEqual({ day: '2026-03-02', minute: 510 });
    expect(dayOfInstant('2026-03-01T12:00:00Z', 'Pacific/Kiritimati')).toEqual({ day: '2026-03-02', minute: 120 });
    expect(dayOfInstant('2026-03-01T12:00:00+14:00', 'Pacific/Pago_Pago')).toEqual({ day: '2026-02-28', minute: 660 });
  });

  it('a datetime without an offset is read in the zone', () => {
    expect(dayOfInstant('2026-03-01T10:00:00', 'Asia/Kolkata')).toEqual({ day: '2026-03-01', minute: 600 });
    expect(dayOfInstant('2026-03-01T00:00', 'America/Los_Angeles')).toEqual({ day: '2026-03-01', minute: 0 });
  });

  it('a bare date is that day in any zone', () => {
    for (const zone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York']) {
      expect(dayOfInstant('2026-03-01', zone)).toEqual({ day: '2026-03-01', minute: 0 });
    }
  });

  it('follows daylight saving time', () => {
    // New York springs forward on 2026-03-08 at 02:00 (EST −5 → EDT −4).
    expect(dayOfInstant('2026-03-08T06:30:00Z', 'America/New_York')).toEqual({ day: '2026-03-08', minute: 90 });
    expect(dayOfInstant('2026-03-08T12:00:00Z', 'America/New_York')).toEqual({ day: '2026-03-08', minute: 8 * 60 });
    // and falls back on 2026-11-01: 01:30 happens twice, both on the same day.
    expect(dayOfInstant('2026-11-01T05:30:00Z', 'America/New_York')).toEqual({ day: '2026-11-01', minute: 90 });
    expect(dayOfInstant('2026-11-01T06:30:00Z', 'America/New_York')).toEqual({ day: '2026-11-01', minute: 90 });
    // Berlin: 2026-03-29 01:30Z is 03:30 CEST.
    expect(dayOfInstant('2026-03-29T01:30:00Z', 'Europe/Berlin')).toEqual({ day: '2026-03-29', minute: 210 });
    // 2026-10-25 22:30Z is 23:30 CET (after fall back), still the 25th.
    expect(dayOfInstant('2026-10-25T22:30:00Z', 'Europe/Berlin')).toEqual({ day: '2026-10-25', minute: 23 * 60 + 30 });
  });

  it('returns undefined for values that are not real dates', () => {
    for (const value of ['2026-02-30', '2026-02-30T10:00:00Z', '2026-01-01T25:00:00Z', 'nonsense', 'yesterday', '']) {
      expect(dayOfInstant(value, 'UTC'), value).toBeUndefined();
    }
  });
});

describe('today and the start of a day in a zone', () => {
  it('todayIn is the local calendar day', () => {
    expect(todayIn(new Date('2026-03-08T04:59:00Z'), 'America/New_York')).toBe('2026-03-07');
    expect(todayIn(new Date('2026-03-08T05:00:00Z'), 'America/New_York')).toBe('2026-03-08');
    expect(todayIn(new Date('2026-03-08T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-03-09');
    expect(todayIn(new Date('2026-03-08T23:30:00Z'), 'UTC')).toBe('2026-03-08');
  });

  it('startOfDay follows the zone offset across DST', () => {
    expect(startOfDay('2026-03-08', 'America/New_York').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(startOfDay('2026-03-09', 'America/New_York').toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(startOfDay('2026-11-01', 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(startOfDay('2026-11-02', 'America/New_York').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(startOfDay('2026-03-08', 'UTC').toISOString()).toBe('2026-03-08T00:00:00.000Z');
  });
});

describe('calendar arithmetic agrees with luxon', () => {
  it('ISO week, validity and day steps for every day from 1990 to 2040', async () => {
    const { DateTime } = await import('luxon');
    const { addDays, daysBetween, isValidDay, weekOf } = await import('../../src/time/periods.js');
    let day = DateTime.fromISO('1990-01-01', { zone: 'utc' });
    const end = DateTime.fromISO('2040-12-31', { zone: 'utc' });
    let checked = 0;
    for (; day <= end; day = day.plus({ days: 1 })) {
      const text = day.toISODate()!;
      expect(weekOf(text), text).toBe(`${day.weekYear}-W${String(day.weekNumber).padStart(2, '0')}`);
      expect(isValidDay(text), text).toBe(true);
      expect(addDays(text, 10), text).toBe(day.plus({ days: 10 }).toISODate());
      checked++;
    }
    expect(checked).toBe(18_628);
    expect(daysBetween('1990-01-01', '2040-12-31')).toBe(18_627);
    for (const bad of ['2026-02-29', '2026-02-30', '2025-13-01', '2025-00-10', '2025-04-31', '2025-1-01', 'x'])
      expect(isValidDay(bad), bad).toBe(false);
    expect(isValidDay('2024-02-29')).toBe(true);
    // Years below 100, which Date.UTC would read as 19xx.
    expect(addDays('0050-12-31', 1)).toBe(DateTime.fromISO('0050-12-31', { zone: 'utc' }).plus({ days: 1 }).toISODate());
    expect(daysBetween('0050-12-31', '0051-01-02')).toBe(2);
    expect(weekOf('0050-06-15')).toBe(
      `${DateTime.fromISO('0050-06-15', { zone: 'utc' }).weekYear}-W${String(DateTime.fromISO('0050-06-15', { zone: 'utc' }).weekNumber).padStart(2, '0')}`,
    );
  });
});

describe('dates outside the four-digit years (hostile input)', () => {
  it('maps no instant to a day before 1000 or after 9999', () => {
    for (const value of [
      '0999-06-01',
      '0999-12-31T23:00:00Z',
      '+012345-01-01',
      '9999-12-31T23:59:59-14:00',
      '1000-01-01T00:00:00+14:00',
      '2026-02-30',
      '2026-13-01',
    ]) {
      expect(dayOfInstant(value, 'UTC'), value).toBeUndefined();
    }
    expect(dayOfInstant('1000-01-01', 'UTC')).toEqual({ day: '1000-01-01', minute: 0 });
    expect(dayOfInstant('9999-12-31T23:59:00Z', 'UTC')).toEqual({ day: '9999-12-31', minute: 1439 });
  });
});
