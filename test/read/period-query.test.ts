import { describe, expect, it } from 'vitest';
import { parseNumberRange, parsePeriod } from '../../src/read/period-query.js';
import { UserError } from '../../src/util/errors.js';

// Wednesday 2026-02-18, 10:00 UTC.
const at = { now: new Date('2026-02-18T10:00:00Z'), zone: 'UTC' };

describe('parsePeriod', () => {
  it.each([
    ['2026-02-13', 'day', '2026-02-13', '2026-02-13', '2026-02-13'],
    ['2026-W07', 'week', '2026-W07', '2026-02-09', '2026-02-15'],
    ['2026-w01', 'week', '2026-W01', '2025-12-29', '2026-01-04'],
    ['2026-02', 'month', '2026-02', '2026-02-01', '2026-02-28'],
    ['2024-02', 'month', '2024-02', '2024-02-01', '2024-02-29'],
    ['2026-Q1', 'quarter', '2026-Q1', '2026-01-01', '2026-03-31'],
    ['2026-Q4', 'quarter', '2026-Q4', '2026-10-01', '2026-12-31'],
    ['2026-02-10..2026-02-14', 'range', '2026-02-10..2026-02-14', '2026-02-10', '2026-02-14'],
    ['2026-W06..2026-02', 'range', '2026-02-02..2026-02-28', '2026-02-02', '2026-02-28'],
    ['today', 'day', '2026-02-18', '2026-02-18', '2026-02-18'],
    ['yesterday', 'day', '2026-02-17', '2026-02-17', '2026-02-17'],
    ['last week', 'week', '2026-W07', '2026-02-09', '2026-02-15'],
    ['this week', 'week', '2026-W08', '2026-02-16', '2026-02-22'],
    ['last month', 'month', '2026-01', '2026-01-01', '2026-01-31'],
    ['last Monday', 'day', '2026-02-16', '2026-02-16', '2026-02-16'],
    ['3 days ago', 'day', '2026-02-15', '2026-02-15', '2026-02-15'],
  ])('%s', (text, kind, label, start, end) => {
    expect(parsePeriod(text, at)).toEqual({ kind, label, start, end });
  });

  it('reads phrases in the configured time zone', () => {
    // 23:30 UTC on the 18th is already the 19th in Berlin.
    const late = { now: new Date('2026-02-18T23:30:00Z'), zone: 'Europe/Berlin' };
    expect(parsePeriod('today', late).start).toBe('2026-02-19');
    expect(parsePeriod('yesterday', late).start).toBe('2026-02-18');
    expect(parsePeriod('today', { ...late, zone: 'UTC' }).start).toBe('2026-02-18');
  });

  it.each([
    '2026-02-30',
    '2026-W54',
    '2026-13',
    '2026-Q5',
    'soon-ish',
    'foo yesterday',
    '2026-02-14..2026-02-10',
    '',
  ])('rejects %j with examples', (text) => {
    let error: unknown;
    try {
      parsePeriod(text, at);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).hint).toContain('2026-W07');
    expect((error as UserError).message).not.toContain('\n');
  });
});

describe('parseNumberRange', () => {
  it('reads FROM..TO, FROM.. and a single number', () => {
    expect(parseNumberRange('65..128')).toEqual({ from: 65, to: 128 });
    expect(parseNumberRange('7')).toEqual({ from: 7, to: 7 });
    expect(parseNumberRange('65..').from).toBe(65);
    expect(parseNumberRange('65..').to).toBeGreaterThan(1e9);
  });
  it.each(['0..3', '5..2', 'a..b', '-1'])('rejects %j', (text) => expect(() => parseNumberRange(text)).toThrow(UserError));
});
