import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/vault/fact-extract.js';
import type { Fact } from '../../src/vault/fact-model.js';
import { addToFrontmatter } from '../../src/vault/frontmatter-edit.js';
import { factsAt, findContradictions, timeFacts } from '../../src/facts/timeline.js';

const read = (memoryId: string, day: string, raw: string) => extractFacts({ memoryId, path: `main/memories/${memoryId}.md`, day, raw });

describe('facts are read from kind: fact memories and inline lines', () => {
  it('reads a fact memory with its frontmatter fields and the line of its key', () => {
    const raw = '---\ndate: 2026-02-10\nkind: fact\nkey: Primary DB\nvalue: PostgreSQL 16\nscope: Billing\nconfidence: 0.9\n---\nWhy.\n';
    const { facts, problems } = read('db', '2026-02-10', raw);
    expect(problems).toEqual([]);
    expect(facts).toMatchObject([
      {
        id: 'db',
        key: 'primary_db',
        value: 'PostgreSQL 16',
        scope: 'billing',
        confidence: 0.9,
        line: 4,
        validFrom: '2026-02-10',
        source: 'frontmatter',
      },
    ]);
  });

  it('reads inline facts with scope, in lists and bold, but not inside code blocks', () => {
    const raw = [
      '---',
      'date: 2026-03-01',
      '---',
      'Notes.',
      '- Fact: cache = redis (eu)',
      '**Fact:** queue = sqs',
      '```',
      'Fact: ignored = yes',
      '```',
      'A sentence that mentions a fact: not a fact line = no.',
    ].join('\n');
    const { facts } = read('notes', '2026-03-01', raw);
    expect(facts.map((fact) => [fact.id, fact.key, fact.value, fact.scope, fact.line])).toEqual([
      ['notes#cache@eu', 'cache', 'redis', 'eu', 5],
      ['notes#queue', 'queue', 'sqs', '', 6],
    ]);
  });

  it('reports a fact memory without a value and a bad valid_to, and keeps going', () => {
    const incomplete = read('x', '2026-01-01', '---\ndate: 2026-01-01\nkind: fact\nkey: owner\n---\n');
    expect(incomplete.facts).toEqual([]);
    expect(incomplete.problems).toMatchObject([{ rule: 'fact/incomplete', line: 4, severity: 'warning' }]);
    const badDate = read('y', '2026-01-01', '---\ndate: 2026-01-01\nkind: fact\nkey: owner\nvalue: ana\nvalid_to: soon\n---\n');
    expect(badDate.facts).toMatchObject([{ value: 'ana', validTo: undefined }]);
    expect(badDate.problems).toMatchObject([{ rule: 'fact/invalid-date', line: 6 }]);
    // The window is the memory's: reported once however many facts it states, and not at all without a fact.
    const inline = read('z', '2026-01-01', '---\ndate: 2026-01-01\nvalid_from: later\n---\nFact: a = 1\nFact: b = 2\n');
    expect(inline.facts).toHaveLength(2);
    expect(inline.problems).toMatchObject([{ rule: 'fact/invalid-date', line: 3 }]);
    expect(read('w', '2026-01-01', '---\nvalid_from: later\n---\nNo facts here.\n').problems).toEqual([]);
  });

  it('a `kind: fact` memory that states its fact on a `Fact:` line (what `add --kind fact` writes) is complete', () => {
    const added = read('v', '2026-01-01', '---\ndate: 2026-01-01\nkind: fact\n---\nFact: cache = redis (eu)\n');
    expect(added.facts).toMatchObject([{ key: 'cache', value: 'redis', scope: 'eu', source: 'inline' }]);
    expect(added.problems).toEqual([]);
    // Neither in the frontmatter nor on a line: still reported, with both ways to fix it.
    const bare = read('u', '2026-01-01', '---\ndate: 2026-01-01\nkind: fact\n---\nThe cache is redis.\n');
    expect(bare.facts).toEqual([]);
    expect(bare.problems).toMatchObject([
      { rule: 'fact/incomplete', line: 3, reason: expect.stringContaining('`Fact: key = value` line') },
    ]);
  });
});

/** A fact memory as a person writes it. */
function factFile(fields: Record<string, string | string[]>): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${Array.isArray(value) ? `[${value.join(', ')}]` : value}`);
  return `---\nkind: fact\n${lines.join('\n')}\n---\nRecorded.\n`;
}

function factOf(id: string, day: string, fields: Record<string, string | string[]>): Fact {
  const { facts } = read(id, day, factFile(fields));
  expect(facts).toHaveLength(1);
  return facts[0]!;
}

describe('validity and supersession', () => {
  const v1 = factOf('v1', '2026-01-05', { key: 'primary_db', value: 'mysql' });
  const v2 = factOf('v2', '2026-02-10', { key: 'primary_db', value: 'postgresql', supersedes: ['v1'] });
  const v3 = factOf('v3', '2026-06-01', { key: 'primary_db', value: 'cockroach', supersedes: ['v2'] });
  const timed = timeFacts([v1, v2, v3]);

  it('answers what held on a day along a supersede chain', () => {
    expect(factsAt(timed, '2026-01-04').map((f) => f.value)).toEqual([]);
    expect(factsAt(timed, '2026-01-05').map((f) => f.value)).toEqual(['mysql']);
    expect(factsAt(timed, '2026-02-09').map((f) => f.value)).toEqual(['mysql']);
    expect(factsAt(timed, '2026-02-10').map((f) => f.value)).toEqual(['postgresql']);
    expect(factsAt(timed, '2026-12-31').map((f) => f.value)).toEqual(['cockroach']);
    expect(timed.find((f) => f.id === 'v1')).toMatchObject({ effectiveTo: '2026-02-10', supersededBy: ['v2'] });
    expect(findContradictions(timed)).toEqual([]);
  });

  it('ends a fact at valid_to and starts one at valid_from', () => {
    const window = timeFacts([
      factOf('w1', '2026-01-01', { key: 'oncall', value: 'ana', valid_to: '2026-02-01' }),
      factOf('w2', '2026-01-01', { key: 'oncall', value: 'bo', valid_from: '2026-02-01' }),
    ]);
    expect(factsAt(window, '2026-01-31').map((f) => f.value)).toEqual(['ana']);
    expect(factsAt(window, '2026-02-01').map((f) => f.value)).toEqual(['bo']);
    expect(findContradictions(window)).toEqual([]);
  });
});

/**
 * A recall set: 200 facts over 40 keys and 3 scopes with supersede
 * chains and validity windows; 20 contradicting pairs planted among them and
 * 50 compatible pairs (different scopes, superseded values, windows that do
 * not overlap, equal values written differently).
 */
describe('contradiction recall on a generated set', () => {
  // mulberry32: a small deterministic generator with a full 2^32 period.
  let seed = 42;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
  const files: { id: string; day: string; raw: string }[] = [];
  const planted = new Set<string>();
  let n = 0;
  const add = (d: number, fields: Record<string, string | string[]>, inline = false) => {
    const id = `f${++n}`;
    const raw = inline
      ? `---\ndate: ${day(d)}\n${fields.supersedes ? `supersedes: [${(fields.supersedes as string[]).join(', ')}]\n` : ''}---\nSome prose first.\n\n- Fact: ${fields.key} = ${fields.value}${fields.scope ? ` (${fields.scope})` : ''}\n`
      : factFile(fields);
    files.push({ id, day: day(d), raw });
    return id;
  };
  // 20 planted contradictions: two open-ended facts, same key and scope, different values, no supersession.
  for (let i = 0; i < 20; i++) {
    const key = `planted_${i}`;
    const scope = i % 3 === 0 ? 'eu' : '';
    const a = add(i * 3, { key, value: `alpha${i}`, ...(scope ? { scope } : {}) }, i % 2 === 0);
    const b = add(i * 3 + 1 + Math.floor(rand() * 30), { key, value: `beta${i}`, ...(scope ? { scope } : {}) }, i % 4 === 1);
    planted.add([a, b].sort().join('+'));
  }
  // 50 compatible pairs, ten of each kind.
  for (let i = 0; i < 10; i++) {
    add(i, { key: `scoped_${i}`, value: 'one', scope: 'eu' });
    add(i + 2, { key: `scoped_${i}`, value: 'two', scope: 'us' }, true);
    const old = add(i, { key: `chain_${i}`, value: 'old' });
    add(i + 5, { key: `chain_${i}`, value: 'new', supersedes: [old] }, i % 2 === 0);
    add(i, { key: `window_${i}`, value: 'first', valid_to: day(i + 10) });
    add(i + 10, { key: `window_${i}`, value: 'second' });
    add(i, { key: `same_${i}`, value: 'PostgreSQL' });
    add(i + 3, { key: `same_${i}`, value: 'postgresql' }, true);
    const before = add(i, { key: `late_${i}`, value: 'x', valid_from: day(i + 1), valid_to: day(i + 4) });
    add(i + 4, { key: `late_${i}`, value: 'y', supersedes: [before] });
  }
  // Filler up to 200 facts: supersede chains of three over 20 more keys (compatible by construction)
  while (files.length < 200) {
    const key = `filler_${files.length}`;
    const first = add(Math.floor(rand() * 100), { key, value: 'v1' });
    if (files.length < 200) add(150, { key, value: 'v2', supersedes: [first] });
  }

  it('finds at least 18 of the 20 planted pairs and raises no false alarm', () => {
    expect(files).toHaveLength(200);
    const facts = files.flatMap((file) => read(file.id, file.day, file.raw).facts);
    expect(facts).toHaveLength(200);
    const found = findContradictions(timeFacts(facts)).map((c) => [c.a.memoryId, c.b.memoryId].sort().join('+'));
    const hits = found.filter((pair) => planted.has(pair));
    const falseAlarms = found.filter((pair) => !planted.has(pair));
    expect(hits.length).toBeGreaterThanOrEqual(18);
    expect(falseAlarms).toEqual([]);
    // Ids are stable: the same set gives the same ids.
    const again = findContradictions(timeFacts(files.flatMap((file) => read(file.id, file.day, file.raw).facts))).map((c) => c.id);
    expect(again).toEqual(findContradictions(timeFacts(facts)).map((c) => c.id));
  });
});

describe('resolve edits only the keys it records', () => {
  const body = '\nWe moved things around.\n\n- Fact: primary_db = mysql\n';
  it('adds to a flow list, a block list or a single value, keeps comments and the body byte for byte', () => {
    const flow = addToFrontmatter(`---\ndate: 2026-03-01\n# mine\ntags: [db]\n---${body}`, 'supersedes', 'old-db', 'kept: because');
    expect(flow).toBe(`---\ndate: 2026-03-01\n# mine\ntags: [db]\nsupersedes: [old-db]\nresolution_notes: ["kept: because"]\n---${body}`);
    const block = addToFrontmatter(`---\nsupersedes:\n  - a\n  - b\ntitle: x\n---${body}`, 'supersedes', 'c', undefined);
    expect(block).toBe(`---\nsupersedes: [a, b, c]\ntitle: x\n---${body}`);
    const single = addToFrontmatter(`---\nsupersedes: a\n---${body}`, 'supersedes', 'b', undefined);
    expect(single).toBe(`---\nsupersedes: [a, b]\n---${body}`);
    expect(addToFrontmatter(single, 'supersedes', 'b', undefined)).toBe(single);
    expect(addToFrontmatter('No frontmatter.\n', 'compatible_with', 'z', undefined)).toBe(
      '---\ncompatible_with: [z]\n---\nNo frontmatter.\n',
    );
    // A file swapped for an alias bomb after it was loaded is refused with the loader's limit, never expanded.
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9)
          .fill(`*${'abcdefghi'[i - 1]}`)
          .join(', ')}]`,
      );
    expect(() => addToFrontmatter(`---\n${levels.join('\n')}\n---\nBody.\n`, 'supersedes', 'x', undefined)).toThrow(/aliases/);
  });
});
