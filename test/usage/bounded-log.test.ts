import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
 * The usage log stays bounded: each build folds `.memvault/usage.log` into
 * the clone's totals and renames it away, so what is on disk is what was
 * served since the last build, whatever the number of build cycles, and every
 * use is counted exactly once (what the CLI logged is what usage.json sums).
 * The fold killed at each step counts nothing twice and loses nothing; the
 * totals keep at most `USAGE_STATE_MAX_KEYS` ids without losing a count.
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const NOW = '2026-03-20T12:00:00Z';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const sizeOf = (file: string): number => (existsSync(file) ? statSync(file).size : 0);

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
  const log = path.join(root, '.memvault/usage.log');
  const folded = path.join(root, '.memvault/usage.log.folded');
  const expected = new Map<string, number>();
  const stateSizes: number[] = [];
  for (let cycle = 0; cycle < count; cycle++) {
    await run(['search', 'otter', '--now', NOW]);
    await run(['context', '--query', 'heron ledgers', '--budget', '2000', '--now', NOW]);
    const cycleBytes = sizeOf(log);
    expect(cycleBytes).toBeGreaterThan(0);
    for (const [id, n] of loggedUses(root)) expected.set(id, (expected.get(id) ?? 0) + n);
    await buildHere();
    // On disk: nothing new in the log, and at most this cycle's lines in the folded one.
    expect(sizeOf(log), `cycle ${cycle}: usage.log after the build`).toBe(0);
    expect(sizeOf(folded)).toBeLessThanOrEqual(cycleBytes);
    stateSizes.push(JSON.stringify(readLocalState(root)).length);
  }
  // The same ids each cycle: the totals grow by digits, never by lines.
  expect(Math.max(...stateSizes)).toBeLessThanOrEqual(stateSizes[0]! + 16);
  const counts = usageTotals(parseUsageFile(readText(root, 'vault/main/usage.json')));
  expect(expected.size).toBeGreaterThan(0);
  for (const [id, n] of expected) expect(counts.get(id)?.count, id).toBe(n);
}

describe('usage.log through build cycles', () => {
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

describe('the fold, killed at each step', () => {
  it('killed after renaming the log, before saving: the renamed log is counted by the next fold, once', () => {
    const { root, vaultDir, streams } = project(['a', 'b']);
    use(root, 'a');
    foldUsage(root, vaultDir, streams);
    use(root, 'a');
    use(root, 'b');
    // What the killed fold did: the previous fold's file went, this one's log was renamed; nothing saved.
    rmSync(path.join(root, '.memvault/usage.log.folded'));
    renameSync(path.join(root, '.memvault/usage.log'), path.join(root, '.memvault/usage.log.folded'));
    use(root, 'b');
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 2, b: 2 });
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 2, b: 2 });
    expect(existsSync(path.join(root, '.memvault/usage.log'))).toBe(false);
  });

  it('a line its writer adds to the renamed log after the fold is counted by the next fold', () => {
    const { root, vaultDir, streams } = project(['a']);
    use(root, 'a');
    foldUsage(root, vaultDir, streams);
    appendFileSync(
      path.join(root, '.memvault/usage.log.folded'),
      `${JSON.stringify({ ts: '2026-11-21T00:00:00.000Z', stream: 'main', path: 'main/memories/a.md', via: 'mcp:search' })}\n`,
    );
    foldUsage(root, vaultDir, streams);
    expect(totals(vaultDir)).toEqual({ a: 2 });
    expect(existsSync(path.join(root, '.memvault/usage.log.folded'))).toBe(false);
  });

  it('a state written before the log was rotated (an offset into usage.log) counts only the lines past it', () => {
    const { root, vaultDir, streams } = project(['a', 'b']);
    use(root, 'a');
    const offset = statSync(path.join(root, '.memvault/usage.log')).size;
    use(root, 'b');
    const old = { replica: 'feedbeef', offset, counts: { main: { a: [1, '2026-11-20T10:00:00.000Z'] } } };
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
