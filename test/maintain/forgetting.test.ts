import { describe, expect, it } from 'vitest';
import { FORGET_AFTER_DAYS, forgottenIds, retentionOf } from '../../src/maintain/forgetting.js';

const policy = { afterDays: FORGET_AFTER_DAYS, enabled: true };
const memory = (id: string, day: string, extra: { kind?: string; importance?: 'low' | 'normal' | 'high' | 'pinned' } = {}) => ({
  id,
  day,
  kind: extra.kind ?? 'note',
  importance: extra.importance ?? 'normal',
});

describe('forgetting', () => {
  const today = '2026-11-24';
  it('forgets an old memory nothing used, and nothing else', () => {
    expect(retentionOf(memory('a', '2026-05-01'), today, undefined, false, policy)).toBe('forgotten');
    expect(retentionOf(memory('a', '2026-05-01', { importance: 'low' }), today, '2026-06-01', false, policy)).toBe('forgotten');
    expect(retentionOf(memory('b', '2026-09-01'), today, undefined, false, policy)).toBe('young');
    expect(retentionOf(memory('c', '2026-05-01'), today, '2026-10-01', false, policy)).toBe('used');
    expect(retentionOf(memory('d', '2026-05-01', { importance: 'pinned' }), today, undefined, false, policy)).toBe('protected');
    expect(retentionOf(memory('e', '2026-05-01', { importance: 'high' }), today, undefined, false, policy)).toBe('protected');
    expect(retentionOf(memory('f', '2026-05-01', { kind: 'Decision' }), today, undefined, false, policy)).toBe('protected');
    expect(retentionOf(memory('g', '2026-05-01'), today, undefined, true, policy)).toBe('fact');
    expect(retentionOf(memory('h', '2026-05-01'), today, undefined, false, { ...policy, enabled: false })).toBe('disabled');
  });

  it('brings a forgotten memory back on its first retrieval, and counts the boundary day as recent', () => {
    const memories = [memory('old', '2026-01-10'), memory('edge', '2026-08-26')];
    expect([...forgottenIds(memories, today, new Map(), new Set(), policy)]).toEqual(['old']);
    expect([...forgottenIds(memories, today, new Map([['old', today]]), new Set(), policy)]).toEqual([]);
    // 90 days old exactly is still young; 91 is not.
    expect([...forgottenIds(memories, '2026-11-25', new Map(), new Set(), policy)]).toEqual(['old', 'edge']);
  });
});
