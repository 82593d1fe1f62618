import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { copyProject, createProject, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { commitAll, git, gitConfig, gitStatus, initRepo, porcelain, shortHistory, shortMemories, workTreeFiles } from './helpers.js';

/**
 * The committed record (vault/.memvault-record/) through a crash: a build
 * killed (SIGKILL, `MEMVAULT_TEST_CRASH_AFTER`) after the branch moved leaves
 * the record's shards committed but their git index entries behind HEAD. The
 * next build finishes it: git is clean, HEAD holds the record an
 * uninterrupted build commits, and that record vouches for every memory's
 * committed blob. (test/git/crash.test.ts covers the vault's other files at
 * every kill point; the record is on by default there too.)
 */

const NIGHT1 = '2026-02-13T06:00:00Z';
const NIGHT2 = '2026-02-14T06:00:00Z';
const NEW_DAY = '2026-02-13';
const RECORD = 'vault/.memvault-record/';

/** The record's lines in a commit: vault path → blob id, for every shard under `vault/.memvault-record/`. */
function recordAt(root: string, rev = 'HEAD'): Map<string, string> {
  const out = new Map<string, string>();
  const shards = git(root, 'ls-tree', '-r', '--name-only', rev, RECORD).split('\n').filter(Boolean);
  for (const shard of shards) {
    for (const line of git(root, 'show', `${rev}:${shard}`).split('\n').slice(1).filter(Boolean)) {
      const { p, b } = JSON.parse(line) as { p: string; b: string };
      out.set(p, b);
    }
  }
  return out;
}

describe('the committed record after a build killed once the branch moved', () => {
  let base: string;
  let reference: { listing: string; files: string[] };
  const roots: string[] = [];

  /** Night 2 (a new day of memories) on a copy of night 1's committed state. */
  const nightTwo = (): string => {
    const root = copyProject(base);
    roots.push(root);
    writeFiles(root, shortMemories(NEW_DAY, 11));
    return root;
  };

  beforeAll(async () => {
    base = createProject({ '.gitignore': '.memvault/\n' }, gitConfig());
    initRepo(base);
    commitAll(base, 'project setup');
    writeFiles(base, shortHistory('2026-02-02', '2026-02-12').files);
    commitAll(base, 'memories');
    await build({ root: base, now: new Date(NIGHT1) });
    // The record is on by default and committed with the build.
    expect(recordAt(base).size).toBeGreaterThan(20);
    const clean = nightTwo();
    await build({ root: clean, now: new Date(NIGHT2) });
    reference = { listing: git(clean, 'ls-tree', '-r', 'HEAD', 'vault'), files: workTreeFiles(path.join(clean, 'vault')) };
  }, 120_000);
  afterAll(() => [base, ...roots].forEach(removeProject));

  it('is finished by the next build: git clean, HEAD as an uninterrupted build leaves it, the record vouching for every file', async () => {
    const root = nightTwo();
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const crashed = await runCli(['build', '--now', NIGHT2, '--json'], { cwd: root, env: { MEMVAULT_TEST_CRASH_AFTER: 'commit-ref' } });
    expect(crashed.code, crashed.stderr).toBe(128); // killed by the signal
    expect(git(root, 'rev-parse', 'HEAD').trim()).not.toBe(head);
    // The killed build committed shards of the record, and the index still holds their old content.
    const staleInIndex = git(root, 'diff', '--cached', '--name-only', 'HEAD').split('\n').filter(Boolean);
    expect(staleInIndex.filter((file) => file.startsWith(RECORD)).length).toBeGreaterThan(0);

    const recovered = await runCliJson(['build', '--now', NIGHT2, '--json'], { cwd: root });
    expect(recovered.json.commit.recovered).toBe(true);
    expect(porcelain(root)).toEqual([]);
    expect(gitStatus(root, 'diff', '--cached', '--quiet', 'HEAD').code).toBe(0);
    expect(git(root, 'ls-tree', '-r', 'HEAD', 'vault')).toBe(reference.listing);
    expect(workTreeFiles(path.join(root, 'vault'))).toEqual(reference.files);
    // Every memory committed is in the record with its committed blob: a clone of this commit reads none of them.
    const record = recordAt(root);
    const memories = git(root, 'ls-tree', '-r', 'HEAD', 'vault/main/memories').split('\n').filter(Boolean);
    expect(memories.length).toBeGreaterThan(25);
    for (const line of memories) {
      const [meta, file] = line.split('\t') as [string, string];
      expect(record.get(file.slice('vault/'.length)), file).toBe(meta.split(' ')[2]);
    }
  }, 120_000);
});
