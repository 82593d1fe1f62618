import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { parseUsageFile, usageTotals } from '../../src/usage/codec.js';
import { foldUsage, type LocalState, legacyStateFile, readLocalState } from '../../src/usage/fold.js';
import { readUsageLog, recordSources } from '../../src/usage/log.js';
import type { StreamState } from '../../src/vault/model.js';
import { memoryAt } from '../helpers/memory-object.js';
import { git, gitConfig, initRepo } from '../git/helpers.js';
import { createProject, memory, readText, runCli } from '../helpers/project.js';

/**
 * The usage log stays bounded: each build folds the `usage_events` rows into
 * the clone's totals and deletes them in the same transaction, so the log
 * holds what was served since the last build, whatever the number of build
 * cycles, and every use is counted exactly once (what the CLI logged is what
 * usage.json sums). A fold killed before its commit counts nothing twice and
 * loses nothing; the totals keep at most `USAGE_STATE_MAX_KEYS` ids without
 * losing a count.
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const NOW = '2026-03-20T12:00:00Z';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Uses per memory id as the log holds them (the CLI's own record of what it served). */
function loggedUses(root: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const event of readUsageLog(root).events) {
    const id = /\/memories\/(.+)\.md$/.exec(event.path)?.[1];
    if (id) out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

async function cycles(count: number): Promise<void> {
  const root = createProject(
    {
      '.gitignore': '.memvault/\n',
      'vault/main/memories/2026-03-17-otter.md': memory({
        date: '2026-03-17T09:00:00Z',
        title: 'Otter',
        body: 'The otter service caches invoices.',
      }),
      'vault/main/memories/2026-03-18-heron.md': memory({
        date: '2026-03-18T09:00:00Z',
        title: 'Heron',
        body: 'The heron job exports ledgers.',
      }),
    },
    gitConfig(),
  );
  dirs.push(root);
  initRepo(root);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'memories');
  const run = async (args: string[]) => {
    const result = await runCli(args, { cwd: root });
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  };
  // The reads that log uses run through the CLI; the builds that fold the log run in-process (the same pipeline, the
  // fold included: src/pipeline/build.ts), a CLI start less each.
  const buildHere = () => build({ root, now: new Date(NOW) });
  await buildHere();
  const expected = new Map<string, number>();
  const stateSizes: number[] = [];
  for (let cycle = 0; cycle < count; cycle++) {
    await run(['search', 'otter', '--now', NOW]);
    await run(['context', '--query', 'heron ledgers', '--budget', '2000', '--now', NOW]);
    expect(readUsageLog(root).events.length).toBeGreaterThan(0);
    for (const [id, n] of loggedUses(root)) expected.set(id, (expected.get(id) ?? 0) + n);
    await buildHere();
    expect(readUsageLog(root).events, `cycle ${cycle}: the log after the build`).toEqual([]);
    stateSizes.push(JSON.stringify(readLocalState(root)).length);
  }
  // The same ids each cycle: the totals grow by digits, never by lines.
  expect(Math.max(...stateSizes)).toBeLessThanOrEqual(stateSizes[0]! + 16);
  const counts = usageTotals(parseUsageFile(readText(root, 'vault/main/usage.json')));
  expect(expected.size).toBeGreaterThan(0);
  for (const [id, n] of expected) expect(counts.get(id)?.count, id).toBe(n);
}

describe('the usage log through build cycles', () => {
  it('is emptied by every build and each use counted once (2 cycles)', () => cycles(2), 120_000);
  it.skipIf(!SLOW)('stays bounded over 60 build cycles', () => cycles(60), 900_000);
});

// In-process: the fold's steps, with the files a fold killed at each step leaves.
function project(ids: readonly string[]): { root: string; vaultDir: string; streams: StreamState[] } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-usage-bounded-'));
  dirs.push(root);
  const vaultDir = path.join(root, 'vault');
  mkdirSync(path.join(vaultDir, 'main'), { recursive: true });
  return { root, vaultDir, streams: [{ name: 'main', memories: ids.map((id) => memoryAt('main', id)), summaries: new Map() }] };
}

const use = (root: string, id: string, at = '2026-11-20T10:00:00Z') =>
  recordSources(root, 'main', [`main/memories/${id}.md`], 'cli:search', new Date(at));
const totals = (vaultDir: string) =>
  Object.fromEntries(
    [...usageTotals(parseUsageFile(readFileSync(path.join(vaultDir, 'main/usage.json'), 'utf8')))].map(([id, u]) => [id, u.count]),
  );
const readState = (root: string): LocalState => readLocalState(root);

/** The compiled fold (`npm run build`), for a child process killed inside the fold's transaction. */
const COMPILED_FOLD = fileURLToPath(new URL('../../dist/src/usage/fold.js', import.meta.url));
const FOLDER = `
const { foldUsage } = await import(process.argv[1]);
const [root, vaultDir] = [process.argv[2], process.argv[3]];
foldUsage(root, vaultDir, [{ name: 'main', memories: [{ path: 'main/memories/a.md', id: 'a' }, { path: 'main/memories/b.md', id: 'b' }], summaries: new Map() }]);
`;

describe('the fold, killed', () => {
  it('inside its transaction (totals saved, events deleted, not committed): the next fold counts each use once', () => {
    const { root, vaultDir, streams } = project(['a', 'b']);
    use(root, 'a');
    foldUsage(root, vaultDir, streams);
    use(root, 'a');
    use(root, 'b');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', FOLDER, COMPILED_FOLD, root, vaultDir], {
      env: { ...process.env, MEMVAULT_TEST_CRASH_AFTER: 'store-commit' },
      encoding: 'utf8',
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(readUsageLog(root).events).toHaveLength(2);
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 2, b: 1 });
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 2, b: 1 });
    expect(readUsageLog(root).events).toEqual([]);
  });

  it('totals of a version that kept a log file (an offset, no sequence number) go on counting from the table', () => {
    const { root, vaultDir, streams } = project(['a', 'b']);
    use(root, 'b');
    const old = { replica: 'feedbeef', offset: 120, counts: { main: { a: [1, '2026-11-20T10:00:00.000Z'] } } };
    // An earlier version's totals file: read when the state store has none, and gone once they are saved there.
    writeFileSync(legacyStateFile(root), `${JSON.stringify(old)}\n`);
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 1, b: 1 });
    expect(existsSync(legacyStateFile(root))).toBe(false);
    expect(readState(root).replica).toBe('feedbeef');
  });

  it('keeps at most the cap of ids, the least recently used dropped, and an id used again goes on from usage.json', () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const { root, vaultDir, streams } = project(ids);
    ids.forEach((id, i) => use(root, id, `2026-11-2${i}T10:00:00Z`));
    use(root, 'a', '2026-11-20T11:00:00Z');
    foldUsage(root, vaultDir, streams, 3);
    expect(Object.keys(readState(root).counts.main!).sort()).toEqual(['c', 'd', 'e']);
    // usage.json holds every count.
    expect(totals(vaultDir)).toEqual({ a: 2, b: 1, c: 1, d: 1, e: 1 });
    use(root, 'a', '2026-11-29T10:00:00Z');
    foldUsage(root, vaultDir, streams, 3);
    expect(totals(vaultDir)).toEqual({ a: 3, b: 1, c: 1, d: 1, e: 1 });
    expect(Object.keys(readState(root).counts.main!).sort()).toEqual(['a', 'd', 'e']);
  });
});
