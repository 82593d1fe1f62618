import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadValidConfigCached } from '../../src/config/cached.js';
import { sessionStart } from '../../src/hooks/session-start.js';
import { partsKey, partsSubset } from '../../src/hooks/start-parts.js';
import { scanVault } from '../../src/hooks/start-cache.js';
import { ParseCache } from '../../src/store/cache.js';
import { todayIn } from '../../src/time/periods.js';
import { recordUsage } from '../../src/usage/log.js';
import { createProject, memory, removeProject } from '../helpers/project.js';
import { setStateRow } from '../helpers/state-store.js';

/**
 * The session-start hook's partial load (src/hooks/start-parts.ts): after a
 * whole load it keeps which files a query-less context draws on, and the
 * next answer loads only those and what changed since. On random vaults and
 * random changes (added, edited, removed memories; pinned, decisions,
 * conventions, errors and their fixes, facts, copies, shared ids; usage; the
 * next days), its answer is the answer of a whole load.
 */

/** Random cases: a few by default (~2 s), many with MEMVAULT_SLOW=1. */
const RUNS = process.env.MEMVAULT_SLOW === '1' ? Number(process.env.PARTS_RUNS ?? 400) : 20;
const KINDS = ['note', 'decision', 'error', 'convention', 'session'] as const;
const DAY = 24 * 3_600_000;
const START = Date.parse('2026-03-20T12:00:00Z');

interface Spec {
  kind: (typeof KINDS)[number];
  daysAgo: number;
  pinned: boolean;
  fact: number | undefined;
  copyOf: number | undefined;
  sharedId: boolean;
  fix: boolean;
}

/** A value one time in seven, else undefined: most memories state no fact and repeat none. */
const rarely = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: value, weight: 1 });

const spec = fc.record({
  kind: fc.constantFrom(...KINDS),
  daysAgo: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.integer({ min: 4, max: 120 })),
  pinned: fc.boolean().map((b) => b && Math.random() < 0.3),
  fact: rarely(fc.integer({ min: 0, max: 2 })),
  copyOf: rarely(fc.integer({ min: 0, max: 11 })),
  sharedId: fc.boolean().map((b) => b && Math.random() < 0.2),
  fix: fc.boolean(),
});

const fileOf = (i: number, s: Spec): string => {
  const day = new Date(START - s.daysAgo * DAY - (i % 7) * 3_600_000).toISOString().slice(0, 10);
  return `vault/main/memories/${day}-m${i}.md`;
};

function memoryText(i: number, s: Spec, revision: number): string {
  const date = new Date(START - s.daysAgo * DAY - (i % 7) * 3_600_000).toISOString();
  const lines = ['---', `date: ${date}`, `title: "Memory ${i}"`, `kind: ${s.kind}`];
  if (s.pinned) lines.push('importance: pinned');
  if (s.sharedId) lines.push('id: shared');
  if (s.copyOf !== undefined) lines.push(`duplicate_of: m${s.copyOf}`);
  lines.push('---');
  const body = [`Memory ${i} about the export worker, revision ${revision}.`];
  if (s.fix) body.push('Fixed the export worker crash.');
  if (s.fact !== undefined) body.push(`Fact: deploy_window = day${s.fact}`);
  return `${lines.join('\n')}\n${body.join('\n\n')}\n`;
}

const change = fc.oneof(
  fc.record({ type: fc.constant('add' as const), spec }),
  fc.record({ type: fc.constant('edit' as const), index: fc.nat(), spec }),
  fc.record({ type: fc.constant('remove' as const), index: fc.nat() }),
  fc.record({ type: fc.constant('use' as const), index: fc.nat() }),
  fc.record({ type: fc.constant('day' as const), days: fc.integer({ min: 1, max: 3 }) }),
);

describe('session-start: the partial load', () => {
  it('loads the needed files only, and the answer still has the unchanged recent error, convention and decisions', async () => {
    const m = (day: string, title: string, kind: string, body: string): string => memory({ date: `${day}T09:00:00Z`, title, kind, body });
    const root = createProject(
      {
        'vault/main/memories/2026-03-19-crash.md': m('2026-03-19', 'Crash', 'error', 'The export worker crashed at night.'),
        'vault/main/memories/2026-03-01-style.md': m('2026-03-01', 'Style', 'convention', 'Imports are sorted by biome.'),
        'vault/main/memories/2026-02-01-db.md': m('2026-02-01', 'Database', 'decision', 'We keep Postgres.'),
        'vault/main/memories/2026-02-02-queue.md': m('2026-02-02', 'Queue', 'decision', 'We chose SQS.'),
        'vault/main/memories/2026-02-03-cache.md': m('2026-02-03', 'Cache', 'decision', 'We cache in Redis.'),
        'vault/main/memories/2026-02-04-note.md': m('2026-02-04', 'Note', 'note', 'A standup note.'),
      },
      'timezone: UTC\n',
    );
    try {
      const input = { hook_event_name: 'SessionStart', source: 'startup' } as const;
      const now = new Date('2026-03-19T20:00:00Z');
      await sessionStart({ root, input, now });
      writeFileSync(path.join(root, 'vault/main/memories/2026-03-02-later.md'), m('2026-03-02', 'Later', 'note', 'Another note.'));
      const config = await loadValidConfigCached(root);
      const some = partsSubset(root, partsKey(config, undefined), '2026-03-19', scanVault(path.join(root, 'vault'), config));
      expect(some?.files.map((f) => f.vaultPath).sort()).toEqual([
        'main/memories/2026-02-01-db.md',
        'main/memories/2026-02-02-queue.md',
        'main/memories/2026-02-03-cache.md',
        'main/memories/2026-03-01-style.md',
        'main/memories/2026-03-02-later.md',
        'main/memories/2026-03-19-crash.md',
      ]);
      const answer = await sessionStart({ root, input, now });
      for (const text of ['crashed at night', 'sorted by biome', 'We keep Postgres', 'We chose SQS', 'We cache in Redis'])
        expect(answer.text).toContain(text);
      setStateRow(root, 'session-start-parts', 'last', 'null');
      setStateRow(root, 'session-start', 'last', 'null');
      expect(answer.text).toBe((await sessionStart({ root, input, now })).text);
    } finally {
      removeProject(root);
    }
  });

  it('reads the parse cache rows of its files only, and never writes them back', async () => {
    const root = createProject({ 'vault/main/memories/2026-03-01-a.md': memory({ date: '2026-03-01', body: 'A.' }) }, 'timezone: UTC\n');
    try {
      await sessionStart({ root, input: { hook_event_name: 'SessionStart', source: 'startup' }, now: new Date(START) });
      const some = ParseCache.openSome(path.join(root, '.memvault'), 'UTC', ['main/memories/2026-03-01-a.md', 'main/none.md']);
      expect(some.size).toBe(1);
      expect(() => some.save()).toThrow(/never written/);
      expect(ParseCache.open(path.join(root, '.memvault'), 'UTC').size).toBe(1);
    } finally {
      removeProject(root);
    }
  });

  it(
    'answers as a load of the whole vault after any change (property, random vaults)',
    async () => {
      let partial = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(spec, { minLength: 4, maxLength: 12 }),
          fc.array(change, { minLength: 1, maxLength: 3 }),
          async (specs, changes) => {
            const files = new Map(specs.map((s, i) => [fileOf(i, s), memoryText(i, s, 0)]));
            const root = createProject(Object.fromEntries(files), 'timezone: UTC\nforget_after_days: 30\n');
            try {
              const input = { hook_event_name: 'SessionStart', source: 'startup' } as const;
              let now = new Date(START);
              await sessionStart({ root, input, now });
              let next = specs.length;
              for (const [n, c] of changes.entries()) {
                const paths = [...files.keys()];
                const write = (file: string, text: string): void => {
                  files.set(file, text);
                  writeFileSync(path.join(root, file), text);
                };
                if (c.type === 'add') write(fileOf(next, c.spec), memoryText(next++, c.spec, n + 1));
                if (c.type === 'edit' && paths.length > 0) {
                  const old = paths[c.index % paths.length]!;
                  const i = Number(/-m(\d+)\.md$/.exec(old)![1]);
                  rmSync(path.join(root, old));
                  files.delete(old);
                  write(fileOf(i, c.spec), memoryText(i, c.spec, n + 1));
                }
                if (c.type === 'remove' && paths.length > 0) {
                  const old = paths[c.index % paths.length]!;
                  rmSync(path.join(root, old));
                  files.delete(old);
                }
                if (c.type === 'use' && paths.length > 0)
                  recordUsage(root, [{ stream: 'main', path: paths[c.index % paths.length]!.slice('vault/'.length) }], 'mcp:search', now);
                if (c.type === 'day') now = new Date(now.getTime() + c.days * DAY);
              }
              const config = await loadValidConfigCached(root);
              const scanned = scanVault(path.join(root, 'vault'), config);
              if (partsSubset(root, partsKey(config, undefined), todayIn(now, 'UTC'), scanned)) partial++;
              const answer = await sessionStart({ root, input, now });
              setStateRow(root, 'session-start-parts', 'last', 'null');
              setStateRow(root, 'session-start', 'last', 'null');
              const whole = await sessionStart({ root, input, now });
              expect(answer.text).toBe(whole.text);
              expect(answer.items).toEqual(whole.items);
            } finally {
              removeProject(root);
            }
          },
        ),
        { numRuns: RUNS },
      );
      // Most cases go through the partial load (the others: a needed file removed, decisions edited).
      expect(partial).toBeGreaterThan(RUNS / 5);
    },
    Math.max(60_000, RUNS * 500),
  );
});
