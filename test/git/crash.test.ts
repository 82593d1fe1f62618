import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { copyProject, createProject, readJsonFile, readText, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { commitAll, filesAt, git, gitConfig, gitStatus, initRepo, memoryNames, porcelain, shortHistory, workTreeFiles } from './helpers.js';

/**
 * Fault injection: the build process is killed (SIGKILL, through the
 * test-only `MEMVAULT_TEST_CRASH_AFTER` hook) after some writes, in the
 * middle of the archive moves, and at two points of the commit. Each time the
 * vault stays readable with every memory on disk, and the next build
 * finishes the work: its HEAD holds exactly the vault an uninterrupted build
 * commits, the index lists exactly the summaries on disk, git is clean and
 * `git fsck` passes, and one more build changes nothing.
 *
 * The default run kills at one point per stage (six writes, the archive moves, each of the two commit points) and runs
 * each git backend's recovery once: the `commit` point with the git command, `commit-ref` with isomorphic-git. Every
 * recovery path (rewriting leftovers, redoing moves, a commit not yet on the branch, a branch ahead of the index) and
 * both backends are covered. The remaining kill points (the first write, each commit point on the other backend) repeat
 * those paths at about 6 s each and run with MEMVAULT_SLOW=1. The kill and the recovery run the real CLI (a new process
 * finds what the killed one left); the set-up builds and the final no-change build run in-process, which saves a CLI
 * start each and checks the same files.
 */

const RETENTION = 'calendar:\n  retention: { memories_days: 30, daily_days: 40, weekly_weeks: 6 }\n';
const NIGHT1 = '2026-02-09T06:00:00Z';
/** Tuesday: February's monthly completes, January's memories and the oldest dailies and weeklies are archived, one edited memory is re-summarized. */
const NIGHT2 = '2026-03-03T06:00:00Z';
const history = shortHistory('2026-01-05', '2026-03-02');
/** A memory summarized on night 1 and edited before night 2. */
const EDITED = history.byDay.get('2026-02-04')![0]!;

/**
 * Each kill point names its backend for the kill and the recovery, so the git-isomorphic project (vitest.config.ts)
 * would run the same ones again: there only the set-up (committed by isomorphic-git) would differ. That project runs
 * the deletion case, whose recovery is in-process and so on its backend, and skips the reference build only the kill
 * points compare with.
 */
const otherProject = process.env.MEMVAULT_GIT_BACKEND === 'isomorphic';

describe('crash safety: a build killed at any point is finished by the next one', () => {
  let base: string;
  let reference: { tree: string; listing: string; files: string[] };
  const roots: string[] = [];

  /** Night 2's changes on a copy of night 1's committed state. */
  const nightTwo = (): string => {
    const root = copyProject(base);
    roots.push(root);
    writeFileSync(path.join(root, EDITED), `${readText(root, EDITED)}\nLate note: the scheduler fix also needs a config flag.\n`);
    return root;
  };
  const buildNight2 = (root: string, env: Record<string, string> = {}) => runCli(['build', '--now', NIGHT2, '--json'], { cwd: root, env });

  beforeAll(async () => {
    base = createProject({ '.gitignore': '.memvault/\n' }, gitConfig(RETENTION));
    initRepo(base);
    commitAll(base, 'project setup');
    writeFiles(base, history.files);
    await build({ root: base, now: new Date(NIGHT1) });
    if (otherProject) return;

    const clean = nightTwo();
    const report = await build({ root: clean, now: new Date(NIGHT2) });
    // The scenario exercises every stage that writes.
    expect(report.archived.length).toBeGreaterThan(20);
    expect(report.historyCopies).toContain('main/history/daily/2026-02-04-20260303-060000.md');
    expect(report.written).toContain('main/monthly/2026-02.md');
    reference = {
      tree: git(clean, 'rev-parse', 'HEAD:vault').trim(),
      listing: git(clean, 'ls-tree', '-r', 'HEAD', 'vault'),
      files: workTreeFiles(path.join(clean, 'vault')),
    };
    // Two builds of two months of memories: well over the default hook timeout when the shared cores are busy.
  }, 180_000);
  afterAll(() => [base, ...roots].forEach(removeProject));

  // The commit points run with each git backend (the git command by default, isomorphic-git forced); the rest once.
  // The fourth field: true for the points that run only with MEMVAULT_SLOW=1 (see the header).
  const points: [string, string, string, boolean][] = [
    ['write:1', 'after the first file of the build is written', 'cli', true],
    ['write:6', 'after six files are written', 'cli', false],
    ['archive:3', 'in the middle of the archive moves', 'cli', false],
    ['commit', 'after the commit objects are written, before the branch moves', 'cli', false],
    ['commit-ref', 'after the branch moved, before the git index is updated', 'cli', true],
    ['commit', 'after the commit objects are written, before the branch moves', 'isomorphic', true],
    ['commit-ref', 'after the branch moved, before the git index is updated', 'isomorphic', false],
  ];

  for (const [point, when, backend, slow] of points) {
    it.skipIf(otherProject || (slow && process.env.MEMVAULT_SLOW !== '1'))(
      `recovers from a kill ${when} (${point}, ${backend} backend)`,
      async () => {
        const root = nightTwo();
        const head = git(root, 'rev-parse', 'HEAD').trim();
        const crashed = await buildNight2(root, { MEMVAULT_TEST_CRASH_AFTER: point, MEMVAULT_GIT_BACKEND: backend });
        expect(crashed.code, crashed.stderr).toBe(128); // killed by the signal
        expect(crashed.stdout).toBe('');

        // The vault is readable right away: every memory is on disk, in memories/ or archive/.
        expect(memoryNames(workTreeFiles(root))).toEqual(memoryNames(Object.keys(history.files)));
        if (point === 'commit') expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
        if (point === 'commit-ref') {
          expect(git(root, 'rev-parse', 'HEAD').trim()).not.toBe(head);
          expect(gitStatus(root, 'diff', '--cached', '--quiet').code).toBe(1); // the index still has the old files
        }

        const recovered = await runCliJson(['build', '--now', NIGHT2, '--json'], { cwd: root, env: { MEMVAULT_GIT_BACKEND: backend } });
        expect(recovered.json.commit.recovered).toBe(true);
        expect(git(root, 'ls-tree', '-r', 'HEAD', 'vault')).toBe(reference.listing);
        expect(git(root, 'rev-parse', 'HEAD:vault').trim()).toBe(reference.tree);
        expect(workTreeFiles(path.join(root, 'vault'))).toEqual(reference.files);
        expect(porcelain(root)).toEqual([]);
        const fsck = gitStatus(root, 'fsck', '--strict', '--no-dangling');
        expect(fsck.code, fsck.stderr).toBe(0);
        expect(memoryNames(filesAt(root))).toEqual(memoryNames(Object.keys(history.files)));
        expect(indexedSummaries(root)).toEqual(summariesOnDisk(root));

        const again = await build({ root, now: new Date(NIGHT2), env: { ...process.env, MEMVAULT_GIT_BACKEND: backend } });
        expect(again.written).toEqual([]);
        expect(again.archived).toEqual([]);
        expect(again.commit).toEqual({ status: 'unchanged', branch: 'main', recovered: false });
        // isomorphic-git's recovery scan and index updates are slower than git's: ~50 s on a busy 2-core machine.
      },
      // Two CLI builds and one in-process build of two months of memories: over a minute when the 2 cores are shared.
      backend === 'isomorphic' ? 180_000 : 120_000,
    );
  }

  it("does not commit a person's deletion of a memory while finishing a crashed build", async () => {
    const root = nightTwo();
    expect((await buildNight2(root, { MEMVAULT_TEST_CRASH_AFTER: 'write:2' })).code).toBe(128);
    const deleted = history.byDay.get('2026-02-05')![0]!; // committed on night 1, not due for the archive
    rmSync(path.join(root, deleted));
    const recovered = await build({ root, now: new Date(NIGHT2) });
    expect(recovered.commit).toMatchObject({ status: 'committed', recovered: true });
    expect(filesAt(root)).toContain(deleted);
    expect(porcelain(root)).toEqual([` D ${deleted}`]);
    // The archive moves of the crashed build are committed as renames, memories included.
    expect(memoryNames(filesAt(root))).toEqual(memoryNames(Object.keys(history.files)));
  });
});

/** Summary paths index.json lists (vault-relative). */
function indexedSummaries(root: string): string[] {
  const index = readJsonFile(root, 'vault/index.json');
  return index.streams.flatMap((stream: any) => stream.summaries.map((summary: any) => summary.path)).sort();
}

/** Summary files on disk: live tiers, long-term, and archived dailies and weeklies. */
function summariesOnDisk(root: string): string[] {
  const stream = path.join(root, 'vault', 'main');
  const out: string[] = [];
  const list = (relative: string) =>
    existsSync(path.join(stream, relative)) ? readdirSync(path.join(stream, relative)).map((name) => `main/${relative}/${name}`) : [];
  for (const tier of ['daily', 'weekly', 'monthly']) out.push(...list(tier));
  if (existsSync(path.join(stream, 'longterm.md'))) out.push('main/longterm.md');
  for (const quarter of existsSync(path.join(stream, 'archive')) ? readdirSync(path.join(stream, 'archive')) : []) {
    for (const tier of ['daily', 'weekly']) out.push(...list(`archive/${quarter}/${tier}`));
  }
  return out.sort();
}
