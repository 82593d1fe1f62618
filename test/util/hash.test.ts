import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashFields, hashValue, sha256, stableStringify } from '../../src/util/hash.js';

/** Canonical JSON written the slow, obvious way: the reference the fast paths must agree with. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonical hashing', () => {
  const values: unknown[] = [
    { b: 1, a: [1, 'x'], c: { z: null, y: true } },
    [
      { id: 'daily/2026-01-01', sha256: 'ab' },
      { id: 'daily/2026-01-02', sha256: 'cd' },
    ],
    [{ sha256: 'ab', id: 'unsorted keys' }],
    [{ id: 'x', sha256: 'y', extra: undefined }],
    [{ id: 'x', nested: { b: 2, a: 1 } }],
    [{ 2: 'b', 10: 'a', x: 'c' }],
    [
      ['main/a.md', 'sha'],
      ['main/b.md', 'sha2'],
    ],
    [{ '': 'empty key', a: 1 }],
    { sources: [{ id: 'é', sha256: '→' }], tier: 'daily', budget: { max_bytes: 1400, target_tokens: 300 } },
  ];
  for (const [i, value] of values.entries()) {
    it(`value ${i + 1} is written in canonical form and hashed as such`, () => {
      expect(stableStringify(value)).toBe(reference(value));
      expect(hashValue(value)).toBe(createHash('sha256').update(reference(value)).digest('hex'));
    });
  }
});

describe('hashFields', () => {
  it('tells records apart however their fields split, and follows their order', () => {
    const of = (records: string[][]) => hashFields(records, (r) => r);
    expect(of([['a', 'bc']])).not.toBe(of([['ab', 'c']]));
    expect(of([['a'], ['b']])).not.toBe(of([['b'], ['a']]));
    expect(of([['a', 'b']])).toBe(of([['a', 'b']]));
    // Past the chunk size the digest is the same as one update of the whole text.
    const many = Array.from({ length: 5_000 }, (_, i) => [`main/memories/m${i}.md`, String(i).padStart(64, '0')]);
    expect(of(many)).toBe(sha256(many.map((r) => r.map((f) => `${f}\u0000`).join('')).join('')));
  });
});
