import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { usageBoostFor } from '../../src/usage/boost.js';
import { usageBoostLazy } from '../../src/usage/boost-lazy.js';
import { recordUsage } from '../../src/usage/log.js';

/**
 * The CLI's lazy search boost equals the boost from the whole usage files (`usageBoostFor`) for every path, on real
 * files: usage.json written canonically or by hand (several entries on a line, no spaces, escaped keys, duplicates
 * from a union merge, broken lines), this clone's fold state and its unfolded log.
 */

const IDS = ['2026/02/a', '2026/02/b', '2026/03/c', 'daily/2026-02-13.md'];
const PATHS = [
  'main/memories/2026/02/a.md',
  'main/memories/2026/02/b.md',
  'main/memories/2026/03/c.md',
  'main/daily/2026-02-13.md',
  'other/memories/2026/02/a.md',
  'main/memories/2026/04/none.md',
  'nostream/memories/2026/02/a.md',
];
const REPLICAS = ['r1', 'r2', 'local'];

const counts = fc.record({
  replica: fc.constantFrom(...REPLICAS),
  count: fc.integer({ min: 0, max: 40 }),
  day: fc.integer({ min: 10, max: 28 }),
});
const json = (id: string, c: { replica: string; count: number; day: number }, space = ' '): string =>
  `${JSON.stringify(id)}:${space}{${JSON.stringify(c.replica)}:${space}[${c.count}, "2026-11-${c.day}T00:00:00.000Z"]}`;
/** One line of a usage file, in any of the shapes a person or a merge could leave. */
const line = fc.oneof(
  fc.tuple(fc.constantFrom(...IDS), counts).map(([id, c]) => `${json(id, c)},`),
  fc.tuple(fc.constantFrom(...IDS), counts).map(([id, c]) => `  ${json(id, c, '')}`),
  fc.tuple(fc.constantFrom(...IDS), counts, fc.constantFrom(...IDS), counts).map(([a, ca, b, cb]) => `${json(a, ca)}, ${json(b, cb)},`),
  fc.tuple(fc.constantFrom(...IDS), counts).map(([id, c]) => `${json(id, c).replace(/^"2026/, '"\\u0032026')},`),
  fc.tuple(fc.constantFrom(...IDS), counts).map(([id, c]) => `"x": 5, ${json(id, c)},`),
  fc.tuple(fc.constantFrom(...IDS), counts).map(([id, c]) => `${json(id, c).slice(0, -3)}`),
  fc.constantFrom('{', '}', '"#": "usage counts"', '"2026/02/a": [1, 2],', '"2026/02/b": {"r1": "many"},', 'garbage', ''),
);

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('the lazy search boost', () => {
  it('equals the boost from the whole usage files for every path', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.array(line, { maxLength: 4 }),
        fc.option(fc.dictionary(fc.constantFrom(...IDS), fc.integer({ min: 1, max: 9 })), { nil: undefined }),
        fc.array(fc.constantFrom(...PATHS.slice(0, 5)), { maxLength: 4 }),
        (mainLines, otherLines, folded, logged) => {
          const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-boost-'));
          roots.push(root);
          const vaultDir = path.join(root, 'vault');
          for (const [stream, lines] of [
            ['main', mainLines],
            ['other', otherLines],
          ] as const) {
            mkdirSync(path.join(vaultDir, stream), { recursive: true });
            if (lines.length > 0) writeFileSync(path.join(vaultDir, stream, 'usage.json'), `${lines.join('\n')}\n`);
          }
          mkdirSync(path.join(root, '.memvault'), { recursive: true });
          if (folded) {
            const stateCounts = Object.fromEntries(Object.entries(folded).map(([id, n]) => [id, [n, '2026-11-20T00:00:00.000Z']]));
            writeFileSync(
              path.join(root, '.memvault', 'usage-state.json'),
              JSON.stringify({ replica: 'local', offset: 0, counts: { main: stateCounts } }),
            );
          }
          if (logged.length > 0)
            recordUsage(
              root,
              logged.map((p) => ({ stream: p.slice(0, p.indexOf('/')), path: p })),
              'cli:search',
              new Date('2026-11-21T00:00:00Z'),
            );
          const eager = usageBoostFor(root, vaultDir, ['main', 'other']);
          const lazy = usageBoostLazy(root, vaultDir, ['main', 'other']);
          expect(lazy === undefined).toBe(eager === undefined);
          for (const docPath of PATHS) expect([docPath, lazy?.(docPath)]).toEqual([docPath, eager?.(docPath)]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
