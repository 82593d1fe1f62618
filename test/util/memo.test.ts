import { describe, expect, it } from 'vitest';
import { CappedMemo } from '../../src/util/memo.js';

describe('CappedMemo', () => {
  it('computes a key once, remembers undefined too, and starts over when full', () => {
    const memo = new CappedMemo<string, string | undefined>(2);
    let calls = 0;
    const compute = (value: string | undefined) => () => {
      calls++;
      return value;
    };
    expect(memo.get('a', compute('A'))).toBe('A');
    expect(memo.get('a', compute('other'))).toBe('A');
    expect(memo.get('b', compute(undefined))).toBeUndefined();
    expect(memo.get('b', compute('other'))).toBeUndefined();
    expect(calls).toBe(2);
    // Setting a known key when full keeps the others.
    memo.set('a', 'A2');
    expect(memo.size).toBe(2);
    // A new key when full starts over.
    expect(memo.get('c', compute('C'))).toBe('C');
    expect(memo.size).toBe(1);
    expect(memo.peek('a')).toBeUndefined();
  });
});
