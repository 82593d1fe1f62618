import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, memory, readText, removeProject, runCli } from '../helpers/project.js';
import { commitAll, git, gitConfig, gitStatus, initRepo, porcelain } from './helpers.js';

/**
 * Any name git can store is committed as it is. A line break in a memory's file name used to split
 * `git hash-object --stdin-paths`: every build exited 2, nothing was committed again, and the archive moves of that
 * build stayed uncommitted. A committed name that is not UTF-8 was renamed (to U+FFFD) in the tree of every folder
 * memvault rewrote. The CLI runs on the backend of the vitest project (MEMVAULT_GIT_BACKEND, the git command by default).
 */

const BACKEND = process.env.MEMVAULT_GIT_BACKEND ?? 'cli';
const ENV = { MEMVAULT_GIT_BACKEND: BACKEND };

const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

/** Names that a line-per-path protocol breaks: a line break, a leading quote, a tab and a carriage return. */
const ODD = ['2026-02-10-odd\nname.md', '"2026-02-10-quoted.md', '2026-02-10-tab\tand cr\r.md'];

function oddProject(odd: readonly string[] = ODD): string {
  const files: Record<string, string> = {
    '.gitignore': '.memvault/\n',
    'vault/main/memories/2026-02-10-plain.md': memory({ date: '2026-02-10T08:00:00Z', title: 'Plain', body: 'A plain memory.' }),
  };
  odd.forEach((name, i) => {
    files[`vault/main/memories/${name}`] = memory({
      date: `2026-02-10T1${i}:00:00Z`,
      title: `Odd ${i}`,
      body: `Odd name number ${i} holds the walrus fact ${i}.`,
    });
  });
  const root = createProject(files, gitConfig());
  roots.push(root);
  initRepo(root);
  commitAll(root, 'setup');
  return root;
}

/** `git ls-tree -z --name-only` at HEAD (of a folder, or `-r` of everything), as raw bytes per path: names need not be UTF-8. */
function rawNames(root: string, folder?: string): Buffer[] {
  const args = folder ? ['ls-tree', '-z', '--name-only', 'HEAD', `${folder}/`] : ['ls-tree', '-r', '-z', '--name-only', 'HEAD'];
  const out = execFileSync('git', args, { cwd: root });
  const names: Buffer[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i >= 0; start = i + 1, i = out.indexOf(0, start)) names.push(out.subarray(start, i));
  return names;
}

/** Every path in HEAD's tree, unquoted (`git ls-tree -r -z`). */
const filesAt = (root: string): string[] => rawNames(root).map((name) => name.toString('utf8'));

describe(`file names git can store (${BACKEND} backend)`, () => {
  it('a memory named with a line break (or a leading quote, a tab, a CR) is built, committed and archived; later builds work', async () => {
    const root = oddProject();
    const first = await runCli(['build', '--now', '2026-02-12T06:00:00Z'], { cwd: root, env: ENV });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('committed');
    for (const name of ODD) expect(filesAt(root)).toContain(`vault/main/memories/${name}`);
    // Summarized like any memory: the daily names every odd memory's fact.
    const daily = readText(root, 'vault/main/daily/2026-02-10.md');
    for (let i = 0; i < ODD.length; i++) expect(daily).toContain(`walrus fact ${i}`);
    expect(porcelain(root)).toEqual([]);

    const again = await runCli(['build', '--now', '2026-02-12T06:00:00Z'], { cwd: root, env: ENV });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing to commit');

    // Months later retention moves them to the archive: both ends of each move are committed.
    const later = await runCli(['build', '--now', '2026-06-12T06:00:00Z'], { cwd: root, env: ENV });
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain('archived');
    const tree = filesAt(root);
    for (const name of ODD) {
      expect(tree).toContain(`vault/main/archive/2026-Q1/${name}`);
      expect(tree).not.toContain(`vault/main/memories/${name}`);
      expect(existsSync(path.join(root, 'vault/main/archive/2026-Q1', name))).toBe(true);
    }
    expect(porcelain(root)).toEqual([]);
    expect(gitStatus(root, 'fsck', '--strict', '--no-dangling').code).toBe(0);
    const last = await runCli(['build', '--now', '2026-06-12T06:00:00Z'], { cwd: root, env: ENV });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toContain('nothing to commit');
  });

  it('a name with a backslash is committed by the git command, refused by isomorphic-git (which cannot read it back)', async () => {
    const name = '2026-02-10-back\\slash.md';
    const root = oddProject([name]);
    const head = git(root, 'rev-parse', 'HEAD');
    const result = await runCli(['build', '--now', '2026-02-12T06:00:00Z'], { cwd: root, env: ENV });
    if (BACKEND === 'isomorphic') {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('[git/file-name]');
      expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
      // Nothing is lost: the setup commit still holds every memory.
      expect(filesAt(root)).toEqual(expect.arrayContaining([`vault/main/memories/${name}`, 'vault/main/memories/2026-02-10-plain.md']));
    } else {
      expect(result.code, result.stderr).toBe(0);
      expect(readText(root, 'vault/main/daily/2026-02-10.md')).toContain('walrus fact 0');
      const later = await runCli(['build', '--now', '2026-06-12T06:00:00Z'], { cwd: root, env: ENV });
      expect(later.code, later.stderr).toBe(0);
      expect(filesAt(root)).toContain(`vault/main/archive/2026-Q1/${name}`);
      expect(filesAt(root)).not.toContain(`vault/main/memories/${name}`);
      expect(porcelain(root)).toEqual([]);
    }
  });

  it('a committed name that is not UTF-8 is reported, never renamed in the commit of its folder', async () => {
    const root = createProject(
      {
        '.gitignore': '.memvault/\n',
        'vault/main/memories/2026-02-10-plain.md': memory({ date: '2026-02-10T08:00:00Z', body: 'A plain memory.' }),
      },
      gitConfig(),
    );
    roots.push(root);
    initRepo(root);
    // `café` in latin1, as an old tool on another machine wrote and committed it.
    const latin1 = Buffer.from('vault/main/memories/2026-02-10-caf\xe9.md', 'latin1');
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/`), latin1]),
      memory({ date: '2026-02-10T09:00:00Z', body: 'Latin-1 named memory.' }),
    );
    commitAll(root, 'setup');
    const before = rawNames(root, 'vault/main/memories');
    expect(before).toContainEqual(latin1);

    // A new memory in the same folder: the build commits it, so it rewrites that folder's tree.
    writeFileSync(
      path.join(root, 'vault/main/memories/2026-02-11-new.md'),
      memory({ date: '2026-02-11T09:00:00Z', body: 'A new memory in the same folder.' }),
    );
    const result = await runCli(['build', '--now', '2026-02-12T06:00:00Z'], { cwd: root, env: ENV });
    // The file Node cannot open by name is one named diagnostic; the rest builds.
    const status = await runCli(['status'], { cwd: root, env: ENV });
    if (BACKEND === 'isomorphic') {
      // isomorphic-git's walk of the work tree stops on the name: a named error, not an internal one.
      expect(status.stderr).toContain('[git/file-name]');
    } else
      expect(status.stdout).toMatch(/main\/memories\/2026-02-10-caf\uFFFD\.md:1:1 error file name is not UTF-8.*\[memory\/file-name\]$/m);
    if (BACKEND === 'isomorphic') {
      // isomorphic-git writes names as UTF-8: it refuses this folder rather than renaming the file.
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('[git/file-name]');
    } else {
      expect(result.code, result.stderr).toBe(0);
      expect(filesAt(root)).toContain('vault/main/memories/2026-02-11-new.md');
    }
    // Whatever was committed, the latin1 name is in HEAD byte for byte, and nothing renamed it.
    expect(rawNames(root, 'vault/main/memories')).toContainEqual(latin1);
    expect(rawNames(root, 'vault/main/memories').some((name) => name.toString('utf8').includes('\uFFFD') && !name.equals(latin1))).toBe(
      false,
    );
    expect(porcelain(root).filter((line) => !line.startsWith('??') && !line.startsWith(' M'))).toEqual([]);
    expect(git(root, 'status', '--porcelain', '--', 'vault/main/memories/')).not.toMatch(/^(D|R| D)/m);
  });
});
