import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitBackend } from '../../src/git/backend.js';
import { findRepo } from '../../src/git/repo.js';
import { openCommitSession, storeAhead } from '../../src/git/commit.js';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import { lookForUncommittedRecord, uncommittedRecord } from '../../src/store/committed-record-write.js';
import { createProject, memory, removeProject, runCli } from '../helpers/project.js';
import { commitAll, git, gitConfig, initRepo, tempRepo } from './helpers.js';

/**
 * The git backend methods the committed record and `memvault context` use, on
 * both backends (real repositories, checked with the real git CLI): blob ids
 * as git stores them (none where git would store other bytes than the file
 * holds), the index's blobs git vouches for, the record's uncommitted shards,
 * the branch. And the SHA-256 cases: the record's blob ids in a SHA-256
 * repository, and the history commands' refusal of one.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function repo(init: string[] = []): string {
  const dir = tempRepo(dirs, 'memvault-record-backend-', init);
  git(dir, 'config', 'core.autocrlf', 'false');
  git(dir, 'config', 'filter.upper.clean', 'tr a-z A-Z');
  git(dir, 'config', 'filter.upper.smudge', 'cat');
  return dir;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

const bytesOf = (dir: string, file: string) => ({ path: file, bytes: readFileSync(path.join(dir, file)) });

describe.each(['cli', 'isomorphic'] as const)("the record's git methods (%s backend)", (backend) => {
  const open = async (dir: string) => ({ backend: await gitBackend({ MEMVAULT_GIT_BACKEND: backend }), repo: findRepo(dir)! });

  it('blobIds: the blob a commit of the file records; none where git would store other bytes than the file holds', async () => {
    const dir = repo();
    write(dir, {
      'vault/a.md': 'plain\n',
      'vault/up/.gitattributes': '*.md filter=upper\n',
      'vault/up/b.md': 'filtered\n',
      '.gitattributes': 'vault/crlf.md text\n',
      'vault/crlf.md': 'one\r\ntwo\r\n',
    });
    const { backend: b, repo: r } = await open(dir);
    const ids = await b.blobIds(
      r,
      ['vault/a.md', 'vault/up/b.md', 'vault/crlf.md'].map((file) => bytesOf(dir, file)),
    );
    expect(ids[0]).toBe(git(dir, 'hash-object', 'vault/a.md').trim());
    // A clean filter: the git command would store other bytes, isomorphic-git cannot run it.
    expect(ids[1]).toBeUndefined();
    // Line-ending conversion: git stores LF; isomorphic-git stores the bytes as they are, and says so.
    expect(ids[2]).toBe(backend === 'cli' ? undefined : git(dir, 'hash-object', '--no-filters', 'vault/crlf.md').trim());
    expect(git(dir, 'count-objects').startsWith('0 objects')).toBe(true); // nothing written
  });

  it(`blobIds in a SHA-256 repository: ${backend === 'cli' ? "git's SHA-256 ids" : 'none (isomorphic-git hashes SHA-1 only)'}`, async () => {
    const dir = repo(['--object-format=sha256']);
    write(dir, { 'vault/a.md': 'a\n' });
    const { backend: b, repo: r } = await open(dir);
    const [id] = await b.blobIds(r, [bytesOf(dir, 'vault/a.md')]);
    if (backend === 'cli') expect(id).toBe(git(dir, 'hash-object', 'vault/a.md').trim());
    else expect(id).toBeUndefined();
    if (backend === 'cli') expect(id).toMatch(/^[0-9a-f]{64}$/);
  });

  it(`unchangedBlobs: ${backend === 'cli' ? "the index's blobs of unchanged files whose checkout is the blob" : 'vouches for nothing'}`, async () => {
    const dir = repo();
    write(dir, {
      'README.md': 'outside\n',
      'vault/a.md': 'a\n',
      'vault/edited.md': 'before\n',
      'vault/staged.md': 'before\n',
      'vault/up/.gitattributes': '*.md filter=upper\n',
      'vault/up/b.md': 'B\n',
      'vault/crlf/.gitattributes': '*.md eol=crlf\n',
      'vault/crlf/c.md': 'c\r\n',
    });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    write(dir, { 'vault/edited.md': 'after\n', 'vault/staged.md': 'staged\n', 'vault/new.md': 'new\n' });
    git(dir, 'add', 'vault/staged.md');
    const { backend: b, repo: r } = await open(dir);
    const asked = ['vault/a.md', 'vault/edited.md', 'vault/staged.md', 'vault/up/b.md', 'vault/crlf/c.md', 'vault/new.md'];
    const found = await b.unchangedBlobs(r, 'vault', asked);
    if (backend === 'isomorphic') {
      expect(found).toBeUndefined();
      return;
    }
    // The staged file's work tree is its index entry: vouched for with the staged blob.
    expect(found).toEqual(
      new Map([
        ['vault/a.md', git(dir, 'rev-parse', ':vault/a.md').trim()],
        ['vault/staged.md', git(dir, 'rev-parse', ':vault/staged.md').trim()],
      ]),
    );
    // Only the paths asked for.
    expect(await b.unchangedBlobs(r, 'vault', ['vault/a.md'])).toEqual(
      new Map([['vault/a.md', git(dir, 'rev-parse', ':vault/a.md').trim()]]),
    );
  });

  it("uncommittedRecord: the record's shards that differ from HEAD, vault-relative, for a vault in a sub-folder", async () => {
    const dir = repo();
    const shard = (name: string) => `tools/vault/.memvault-record/main/${name}`;
    write(dir, { [shard('a.jsonl')]: 'a\n', [shard('b.jsonl')]: 'b\n', [shard('c.jsonl')]: 'c\n', 'tools/vault/main/x.md': 'x\n' });
    const vaultDir = path.join(dir, 'tools', 'vault');
    // No commit yet: every shard is new.
    expect(await uncommittedRecord(vaultDir, { MEMVAULT_GIT_BACKEND: backend })).toEqual(
      ['a', 'b', 'c'].map((name) => `.memvault-record/main/${name}.jsonl`),
    );
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    write(dir, { [shard('a.jsonl')]: 'a2\n', [shard('d.jsonl')]: 'd\n', 'tools/vault/main/y.md': 'y\n' });
    rmSync(path.join(dir, shard('b.jsonl')));
    expect(await uncommittedRecord(vaultDir, { MEMVAULT_GIT_BACKEND: backend })).toEqual(
      ['a', 'b', 'd'].map((name) => `.memvault-record/main/${name}.jsonl`),
    );
  });

  it('lookForUncommittedRecord: the shards uncommitted when the look started, and those the build wrote since', async () => {
    const dir = repo();
    const shard = (name: string) => `vault/.memvault-record/main/${name}`;
    write(dir, { [shard('a.jsonl')]: 'a\n', [shard('b.jsonl')]: 'b\n', [shard('c.jsonl')]: 'c\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    write(dir, { [shard('a.jsonl')]: 'a2\n' }); // left uncommitted by an earlier build (commits off)
    const look = lookForUncommittedRecord(path.join(dir, 'vault'), { MEMVAULT_GIT_BACKEND: backend });
    // Git may answer before or after these writes: the shards the build names are taken either way.
    write(dir, { [shard('b.jsonl')]: 'b2\n', [shard('d.jsonl')]: 'd\n' });
    const written = ['b', 'd'].map((name) => `.memvault-record/main/${name}.jsonl`);
    expect(await look.settle(written)).toEqual(['a', 'b', 'd'].map((name) => `.memvault-record/main/${name}.jsonl`));
  });

  it(`storeAhead: ${backend === 'cli' ? "the written files' blobs are stored before the commit, a missing one skipped" : 'stores nothing (hashed in-process at the commit)'}`, async () => {
    const dir = repo();
    write(dir, { 'vault/main/a.md': 'a\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    write(dir, {
      'vault/main/a.md': 'a, written by a build\n',
      'vault/main/up/.gitattributes': '*.md filter=upper\n',
      'vault/main/up/b.md': 'b\n',
    });
    const env = { ...process.env, MEMVAULT_GIT_BACKEND: backend };
    const session = await openCommitSession({
      vaultDir: path.join(dir, 'vault'),
      stateDir: path.join(dir, '.memvault'),
      enabled: true,
      author: undefined,
      env,
    });
    await storeAhead(session, ['main/a.md', 'main/gone.md', 'main/up/b.md']);
    const stored = (file: string) => {
      try {
        git(dir, 'cat-file', '-e', git(dir, 'hash-object', file).trim());
        return true;
      } catch {
        return false;
      }
    };
    // The blob a commit records: the clean filter applied (`B`), as the commit's own hashing stores it.
    expect([stored('vault/main/a.md'), stored('vault/main/up/b.md')]).toEqual(backend === 'cli' ? [true, true] : [false, false]);
  });

  it('headState names the branch `memvault context` reads, none on a detached HEAD', async () => {
    const dir = repo();
    write(dir, { 'a.md': 'a\n' });
    const { backend: b, repo: r } = await open(dir);
    expect(await b.headState(r)).toMatchObject({ branch: 'main' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    git(dir, 'checkout', '-q', '-b', 'notes/agent-1');
    expect(await b.headState(r)).toMatchObject({ branch: 'notes/agent-1' });
    git(dir, 'checkout', '-q', '--detach', 'HEAD');
    expect(await b.headState(r)).toEqual({ detached: git(dir, 'rev-parse', 'HEAD').trim() });
  });
});

describe('a SHA-256 repository', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeProject));
  const MEMORY = 'vault/main/memories/2026-02-10-auth.md';
  const project = () => {
    const root = createProject(
      { '.gitignore': '.memvault/\n', [MEMORY]: memory({ date: '2026-02-10T09:00:00Z', body: 'Replaced JWT with sessions.' }) },
      gitConfig(),
    );
    roots.push(root);
    git(root, 'init', '-q', '-b', 'main', '--object-format=sha256');
    initRepo(root); // identity and no hooks (re-initialising keeps the object format)
    return root;
  };

  it('memvault log, diff and show refuse it with a clear message and point at git log (git/history-format)', async () => {
    const root = project();
    commitAll(root, 'memories');
    for (const command of ['log', 'diff', 'show']) {
      const result = await runCli([command, MEMORY], { cwd: root });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('SHA256 git repository; memvault log, diff and show read SHA-1 repositories only');
      expect(result.stderr).toContain(`hint: use git itself: \`git log -p -- ${MEMORY}\``);
    }
  });

  it("the build's record carries git's SHA-256 blob ids, which the committed files have (git command backend)", async () => {
    const root = project();
    const env = { ...process.env, MEMVAULT_GIT_BACKEND: 'cli' };
    const report = await buildInProcess({ root, now: new Date('2026-02-16T06:00:00Z'), env });
    expect(report.commit?.status).toBe('committed');
    const shardDir = path.join(root, 'vault', '.memvault-record', 'main');
    const lines = readdirSync(shardDir).flatMap((name) =>
      readFileSync(path.join(shardDir, name), 'utf8').split('\n').slice(1).filter(Boolean),
    );
    const recorded = new Map(lines.map((line) => JSON.parse(line) as { p: string; b: string }).map((line) => [line.p, line.b]));
    expect(recorded.get('main/memories/2026-02-10-auth.md')).toBe(git(root, 'rev-parse', `HEAD:${MEMORY}`).trim());
    expect(recorded.get('main/daily/2026-02-10.md')).toMatch(/^[0-9a-f]{64}$/);
    expect(recorded.get('main/daily/2026-02-10.md')).toBe(git(root, 'rev-parse', 'HEAD:vault/main/daily/2026-02-10.md').trim());
  });
});
