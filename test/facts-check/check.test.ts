import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type CachedAnswer, readCheckCache, writeCheckCache } from '../../src/facts-check/cache.js';
import { setStateRow, stateRow, stateRowCount } from '../helpers/state-store.js';
import { judgeId, loadCheckPrompt, parseVerdict, renderCheck } from '../../src/facts-check/judge.js';
import { type CheckCandidate, NEIGHBOURS_PER_CANDIDATE, pairKey, selectPairs } from '../../src/facts-check/pairs.js';

const candidate = (name: string, over: Partial<CheckCandidate> = {}): CheckCandidate => ({
  path: `main/memories/${name}.md`,
  id: name,
  day: '2026-02-10',
  sha256: `sha-${name}`,
  related: [],
  ...over,
});
const p = (name: string): string => `main/memories/${name}.md`;

describe('selectPairs', () => {
  it('a pair both sides find comes first; each pair once, smaller path as a', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => candidate(name)) as [
      CheckCandidate,
      CheckCandidate,
      CheckCandidate,
      CheckCandidate,
    ];
    const neighbours = new Map([
      [a.path, [p('c'), p('b')]],
      [b.path, [p('d')]],
      [c.path, [p('b'), p('a')]],
      [d.path, [p('b')]],
    ]);
    const { pairs, found } = selectPairs([d, c, b, a], neighbours, { maxPairs: 10 });
    expect(found).toBe(4);
    const names = pairs.map((pair) => `${pair.a.id}-${pair.b.id}`);
    // a–c (rank 1 and 2) and b–d (rank 1 twice) are found from both sides; b–c and a–b from one.
    expect(names.slice(0, 2).sort()).toEqual(['a-c', 'b-d']);
    expect(names.slice(2).sort()).toEqual(['a-b', 'b-c']);
    expect(pairs[0]!.score).toBeGreaterThan(pairs[3]!.score);
  });

  it('leaves out itself, unknown paths, same content, settled pairs and what skip says; maxPairs bounds the list', () => {
    const a = candidate('a', { related: ['b'] });
    const b = candidate('b');
    const c = candidate('c', { sha256: 'sha-a' });
    const d = candidate('d');
    const e = candidate('e');
    const neighbours = new Map([[a.path, [p('a'), p('zzz'), p('b'), p('c'), p('d'), p('e')]]]);
    const { pairs, found } = selectPairs([a, b, c, d, e], neighbours, { maxPairs: 1, skip: (x, y) => x.id === 'e' || y.id === 'e' });
    expect(found).toBe(1);
    expect(pairs.map((pair) => [pair.a.id, pair.b.id])).toEqual([['a', 'd']]);
    expect(selectPairs([a, b], new Map([[b.path, [a.path]]]), { maxPairs: 5 }).found).toBe(0); // a says it settled b
  });

  it('for any neighbour lists: pairs are distinct, within the limit, never a candidate with itself', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...names), { maxLength: 8 }), { minLength: names.length, maxLength: names.length }),
        fc.integer({ min: 0, max: 20 }),
        (lists, maxPairs) => {
          const candidates = names.map((name) => candidate(name));
          const neighbours = new Map(names.map((name, i) => [p(name), lists[i]!.map(p)]));
          const { pairs, found } = selectPairs(candidates, neighbours, { maxPairs });
          expect(pairs.length).toBe(Math.min(found, maxPairs));
          const keys = pairs.map((pair) => `${pair.a.path}|${pair.b.path}`);
          expect(new Set(keys).size).toBe(keys.length);
          for (const pair of pairs) expect(pair.a.path < pair.b.path).toBe(true);
          // At most NEIGHBOURS_PER_CANDIDATE pairs come from one candidate's list.
          expect(found).toBeLessThanOrEqual(names.length * NEIGHBOURS_PER_CANDIDATE);
          for (let i = 1; i < pairs.length; i++) expect(pairs[i - 1]!.score).toBeGreaterThanOrEqual(pairs[i]!.score);
        },
      ),
    );
  });

  it('pairKey does not depend on the order', () => {
    expect(pairKey('b', 'a')).toBe(pairKey('a', 'b'));
    expect(pairKey('a', 'b')).toBe('a:b');
  });
});

describe('parseVerdict', () => {
  it('reads the JSON object out of fences and chatter, one printable line of reason', () => {
    expect(
      parseVerdict('Sure!\n```json\n{"contradicts": true, "confidence": 0.75, "reason": "Postgres\\nvs\\u001b[31m MySQL"}\n```'),
    ).toEqual({
      contradicts: true,
      confidence: 0.75,
      reason: 'Postgres vs MySQL',
    });
    expect(parseVerdict(`{"contradicts": false, "confidence": 1, "reason": "${'x'.repeat(400)}"}`)!.reason).toHaveLength(200);
  });

  it('anything that is not a verdict is undefined', () => {
    for (const text of [
      '',
      'yes they contradict',
      '{"contradicts": "yes", "confidence": 0.5, "reason": "r"}',
      '{"contradicts": true, "confidence": 1.5, "reason": "r"}',
      '{"contradicts": true, "reason": "r"}',
      '{not json}',
    ])
      expect(parseVerdict(text)).toBeUndefined();
  });
});

describe('the prompt', () => {
  const prompt = loadCheckPrompt();
  it('shows both notes with their places, cut when long', () => {
    const a = { path: 'main/memories/a.md', day: '2026-02-10', text: 'We use PostgreSQL.' };
    const b = { path: 'main/memories/b.md', day: '2026-03-01', text: `We use MySQL. ${'More. '.repeat(1000)}` };
    const { system, user } = renderCheck(prompt, a, b);
    expect(system).toContain('JSON');
    expect(user).toContain('Note A (main/memories/a.md, 2026-02-10):\nWe use PostgreSQL.');
    expect(user).toContain('Note B (main/memories/b.md, 2026-03-01):\nWe use MySQL.');
    expect(user).toContain('[…]');
    expect(user.length).toBeLessThan(4500);
  });

  it('the judge id changes with the model and the mode, not with the prompt description', () => {
    const settings = { model: 'm', mode: 'chat' as const, temperature: 0.2 };
    expect(judgeId(settings, prompt)).toMatch(/^m@[0-9a-f]{8}$/);
    expect(judgeId({ ...settings, model: 'n' }, prompt)).toMatch(/^n@/);
    expect(judgeId({ ...settings, mode: 'completion' }, prompt)).not.toBe(judgeId(settings, prompt));
    expect(judgeId(settings, { ...prompt, description: 'other' })).toBe(judgeId(settings, prompt));
  });
});

describe('the answer cache', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const answer = (contradicts: boolean): CachedAnswer => ({ contradicts, confidence: 0.5, reason: 'r', judge: 'm@12345678' });

  it('reads nothing when absent, keeps answers in the state store, reports and drops a row that is not an answer', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-check-'));
    dirs.push(root);
    expect(readCheckCache(root)).toEqual({ answers: new Map() });
    writeCheckCache(
      root,
      new Map([
        ['a:b', answer(true)],
        ['b:c', answer(false)],
      ]),
    );
    expect(readCheckCache(root).answers.get('a:b')).toEqual(answer(true));
    expect(stateRow(root, 'facts-check', 'b:c')).toEqual(answer(false));
    setStateRow(root, 'facts-check', 'c:d', '{"contradicts": 1}');
    const broken = readCheckCache(root);
    expect([...broken.answers.keys()]).toEqual(['a:b', 'b:c']);
    expect(broken.problem).toMatchObject({ path: '.memvault/state.sqlite', rule: 'fact/check-cache', severity: 'warning' });
    writeCheckCache(root, new Map());
    expect(stateRowCount(root, 'facts-check')).toBe(0);
  });
});
