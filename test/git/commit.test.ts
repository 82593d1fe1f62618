import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import {
  createProject,
  listFiles,
  memory,
  readText,
  removeProject,
  runCli,
  runCliJson,
  snapshotTree,
  writeFiles,
} from '../helpers/project.js';
import { AUTHOR, changedIn, commitAll, commitCount, filesAt, git, gitConfig, gitStatus, initRepo, porcelain } from './helpers.js';

/**
 * `memvault build` commits, checked with the real git CLI on real
 * repositories: one commit per build with every vault file it wrote and the
 * memories behind them, nothing else; no commit when nothing changed; a
 * person's work outside the vault untouched. Messages and flags go through
 * the CLI; scenarios that only look at the repository afterwards build
 * in-process (the same pipeline, without a CLI start each).
 */

const NOW = '2026-02-16T06:00:00Z';
const LATER = '2026-02-17T06:00:00Z';
const STAMP_LATER = '20260217-060000';

const MEMORIES: Record<string, string> = {
  'vault/main/memories/2026-02-10-auth.md': memory({
    date: '2026-02-10T09:00:00Z',
    title: 'Auth refactor',
    body: 'Replaced JWT with server sessions. Decision: sessions live in Postgres.',
  }),
  'vault/main/memories/2026-02-11-billing.md': memory({
    date: '2026-02-11T10:30:00Z',
    title: 'Billing retries',
    body: 'Moved billing retries into the queue; the error rate dropped to 0.1%.',
  }),
  'vault/main/memories/2026-02-12-search.md': memory({
    date: '2026-02-12T15:00:00Z',
    title: 'Search index',
    body: 'Rebuilt the search index with `tsvector`; queries are 4x faster.',
  }),
};
const MEMORY_PATHS = Object.keys(MEMORIES).sort();

const build = (root: string, ...flags: string[]) => runCliJson(['build', '--now', NOW, '--json', ...flags], { cwd: root });
const buildHere = (root: string, now = NOW) => buildInProcess({ root, now: new Date(now) });
const inVault = (files: readonly string[]) => files.map((file) => `vault/${file}`);

/** A repository with one commit by a person (config, README, code), then memories written but not committed. */
function personRepo(config = gitConfig()): string {
  const root = createProject({ 'README.md': '# Notes\n', '.gitignore': '.memvault/\n', 'src/app.ts': 'export const app = 1;\n' }, config);
  initRepo(root);
  commitAll(root, 'initial');
  writeFiles(root, MEMORIES);
  return root;
}

describe('build commits: a repository with history and a person at work', () => {
  let root: string;
  let report: any;
  const initial = { head: '' };

  beforeAll(async () => {
    root = personRepo();
    initial.head = git(root, 'rev-parse', 'HEAD').trim();
    // The person's own uncommitted work outside the vault: an unstaged edit, a staged file, an untracked file.
    writeFileSync(path.join(root, 'README.md'), '# Notes\n\nDraft, not ready.\n');
    writeFiles(root, { 'src/new.ts': 'export const next = 2;\n', 'notes.txt': 'scratch\n' });
    git(root, 'add', 'src/new.ts');
    report = (await build(root)).json;
  });
  afterAll(() => removeProject(root));

  it('makes one commit on the branch, with the configured author, `now` as its date and a message saying what happened', () => {
    expect(commitCount(root)).toBe(2);
    expect(git(root, 'rev-parse', 'HEAD~1').trim()).toBe(initial.head);
    const [author, committer, date, subject] = git(root, 'log', '-1', '--format=%an <%ae>%n%cn <%ce>%n%cI%n%s').trim().split('\n');
    expect(author).toBe(`${AUTHOR.name} <${AUTHOR.email}>`);
    expect(committer).toBe(author);
    expect(date).toBe('2026-02-16T06:00:00+00:00');
    expect(subject).toBe('memvault: rollup 2026-W07 — 3 daily, 1 weekly');
    expect(git(root, 'log', '-1', '--format=%b')).toContain('main: daily 2026-02-10, 2026-02-11, 2026-02-12; weekly 2026-W07');
    expect(report.commit).toMatchObject({ status: 'committed', branch: 'main', oid: git(root, 'rev-parse', 'HEAD').trim() });
  });

  it('commits exactly the vault files the build wrote plus the memories they were built from', () => {
    const changed = changedIn(root);
    expect(changed.every(([status]) => status === 'A')).toBe(true);
    expect(changed.map(([, file]) => file).sort()).toEqual([...inVault(report.written), ...MEMORY_PATHS].sort());
    expect(report.written).toEqual(
      expect.arrayContaining(['main/daily/2026-02-10.md', 'main/weekly/2026-W07.md', 'main/UPLOAD_PACKAGE.md', 'INDEX.md', 'index.json']),
    );
  });

  it("leaves the person's work outside the vault as it was: not committed, not staged differently, not changed", () => {
    expect(porcelain(root)).toEqual([' M README.md', 'A  src/new.ts', '?? notes.txt']);
    expect(readText(root, 'README.md')).toBe('# Notes\n\nDraft, not ready.\n');
    expect(filesAt(root)).not.toContain('src/new.ts');
    expect(git(root, 'show', 'HEAD:README.md')).toBe('# Notes\n');
  });

  it('leaves a repository git fsck accepts, with the vault clean in git status', () => {
    const fsck = gitStatus(root, 'fsck', '--strict', '--no-dangling');
    expect(fsck.code, fsck.stderr).toBe(0);
    expect(porcelain(root).filter((line) => line.includes('vault/'))).toEqual([]);
    // The index holds the committed blobs: nothing of the vault is staged or modified.
    expect(git(root, 'diff', '--cached', '--name-only', 'HEAD', '--', 'vault')).toBe('');
  });

  it('makes no commit and writes nothing on a second build', async () => {
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const before = snapshotTree(path.join(root, 'vault'));
    const json = await buildHere(root);
    expect(json.written).toEqual([]);
    expect(json.commit).toEqual({ status: 'unchanged', branch: 'main', recovered: false });
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(before);
  });

  it('gives the same commit id for the same inputs, author and --now in another repository', async () => {
    const other = personRepo();
    try {
      await buildHere(other);
      expect(git(other, 'rev-parse', 'HEAD').trim()).toBe(report.commit.oid);
    } finally {
      removeProject(other);
    }
  });
});

// Both git backends (MEMVAULT_GIT_BACKEND, in the environment an in-process build is handed and the CLI's).
describe.each(['cli', 'isomorphic'] as const)('build commits: repository states (%s backend)', (backend) => {
  const roots: string[] = [];
  const env = { MEMVAULT_GIT_BACKEND: backend };
  const cli = (root: string, ...args: string[]) => runCli(args, { cwd: root, env });
  const build = (root: string, ...flags: string[]) => runCliJson(['build', '--now', NOW, '--json', ...flags], { cwd: root, env });
  const buildHere = (root: string, now = NOW) => buildInProcess({ root, now: new Date(now), env: { ...process.env, ...env } });
  afterAll(() => {
    roots.forEach(removeProject);
  });
  const project = (files: Record<string, string>, config = gitConfig()) => {
    const root = createProject(files, config);
    roots.push(root);
    return root;
  };

  it('commits in a repository without commits, on whatever branch HEAD names', async () => {
    const root = project({ ...MEMORIES, '.gitignore': '.memvault/\n' });
    initRepo(root, 'notes/agent-1');
    const json = await buildHere(root);
    expect(json.commit?.status).toBe('committed');
    expect(git(root, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('notes/agent-1');
    expect(commitCount(root)).toBe(1);
    expect(git(root, 'log', '-1', '--format=%P').trim()).toBe(''); // a root commit
    expect(filesAt(root).every((file) => file.startsWith('vault/'))).toBe(true);
    // Only the person's files outside the vault are left untracked.
    expect(porcelain(root)).toEqual(['?? .gitignore', '?? memory.config.yaml']);
    expect(gitStatus(root, 'fsck', '--strict').code).toBe(0);
  });

  it('refuses to build in a detached HEAD, with a hint, before writing anything', async () => {
    const root = project({ ...MEMORIES });
    initRepo(root);
    commitAll(root, 'memories');
    git(root, 'checkout', '-q', '--detach', 'HEAD');
    const result = await cli(root, 'build', '--now', NOW);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^memvault: HEAD is detached \(at [0-9a-f]{12}\); memvault commits only on a branch\n {2}hint: switch to a branch/,
    );
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });

  it('refuses during a merge or a rebase; --no-commit still builds then', async () => {
    const root = project({ ...MEMORIES });
    initRepo(root);
    const head = commitAll(root, 'memories');
    writeFileSync(path.join(root, '.git', 'MERGE_HEAD'), `${head}\n`);
    const merging = await cli(root, 'build', '--now', NOW);
    expect(merging.code).toBe(1);
    expect(merging.stderr).toContain('memvault: a merge is in progress in');
    expect(merging.stderr).toContain(
      'hint: finish or abort it first; to resolve conflicts in generated files, run `memvault build --no-commit`',
    );
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);

    rmSync(path.join(root, '.git', 'MERGE_HEAD'));
    mkdirSync(path.join(root, '.git', 'rebase-merge'));
    const rebasing = await cli(root, 'build', '--now', NOW);
    expect(rebasing.code).toBe(1);
    expect(rebasing.stderr).toContain('a rebase is in progress');

    const { json } = await build(root, '--no-commit');
    expect(json.commit.status).toBe('disabled');
    expect(listFiles(root, 'vault/main/daily')).toHaveLength(3);
    expect(commitCount(root)).toBe(1);
  });

  it('--no-commit and `git.commit: false` write the files and commit nothing', async () => {
    for (const [config, flags] of [
      [gitConfig(), ['--no-commit']],
      [gitConfig().replace('git:\n', 'git:\n  commit: false\n'), []],
    ] as const) {
      const root = project({ ...MEMORIES }, config);
      initRepo(root);
      commitAll(root, 'memories');
      // The flag through the CLI; the config setting in-process.
      const json = flags.length > 0 ? (await build(root, ...flags)).json : await buildHere(root);
      expect(json.commit.status).toBe('disabled');
      expect(json.written.length).toBeGreaterThan(0);
      expect(commitCount(root)).toBe(1);
      expect(porcelain(root)).toContain('?? vault/main/daily/2026-02-10.md');
    }
  });

  it('builds a project outside any git repository and says in one line that nothing was committed', async () => {
    const root = project({ ...MEMORIES });
    const result = await cli(root, 'build', '--now', NOW);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "  not a git repository: files written, nothing committed (run `git init` to keep the vault's history)\n",
    );
    expect(result.stderr).toBe('');
    expect(existsSync(path.join(root, '.git'))).toBe(false);
    expect(listFiles(root, 'vault/main/daily')).toHaveLength(3);
  });

  it('commits on top of a packed history (after git gc), and git fsck accepts the result', async () => {
    const root = project({ ...MEMORIES, '.gitignore': '.memvault/\n' });
    initRepo(root);
    await buildHere(root);
    git(root, 'gc', '-q', '--aggressive');
    expect(git(root, 'count-objects', '-v')).toMatch(/^count: 0$/m);
    const head = git(root, 'rev-parse', 'HEAD').trim();
    writeFileSync(
      path.join(root, 'vault/main/memories/2026-02-11-billing.md'),
      memory({
        date: '2026-02-11T10:30:00Z',
        title: 'Billing retries',
        body: 'Moved billing retries into the queue; the error rate dropped to 0.05%.',
      }),
    );
    const json = await buildHere(root, LATER);
    expect(json.commit?.status).toBe('committed');
    expect(git(root, 'rev-parse', 'HEAD~1').trim()).toBe(head);
    const changed = changedIn(root).map(([status, file]) => `${status} ${file}`);
    expect(changed).toContain('M vault/main/memories/2026-02-11-billing.md');
    expect(changed).toContain('M vault/main/daily/2026-02-11.md');
    expect(changed.some((line) => line.startsWith('A vault/main/history/daily/2026-02-11-'))).toBe(true);
    expect(porcelain(root).filter((line) => line.includes('vault/'))).toEqual([]);
    expect(gitStatus(root, 'fsck', '--strict').code).toBe(0);
  });

  it('commits only its own folder when the vault lives in a sub-folder of the repository', async () => {
    const root = project({
      'README.md': 'monorepo\n',
      '.gitignore': '.memvault/\n',
      'tools/memory/memory.config.yaml': gitConfig(),
      ...Object.fromEntries(Object.entries(MEMORIES).map(([file, text]) => [`tools/memory/${file}`, text])),
    });
    initRepo(root);
    writeFileSync(path.join(root, 'README.md'), 'monorepo, edited\n');
    const json = await buildHere(path.join(root, 'tools', 'memory'));
    expect(json.commit?.status).toBe('committed');
    const files = changedIn(root).map(([, file]) => file!);
    expect(files.length).toBe(json.written.length + MEMORY_PATHS.length);
    expect(files.every((file) => file.startsWith('tools/memory/vault/'))).toBe(true);
    // Everything outside the vault folder stays untracked, as the person left it.
    expect(porcelain(root)).toEqual(['?? .gitignore', '?? README.md', '?? memory.config.yaml', '?? tools/memory/memory.config.yaml']);
  });

  it("commits a waterfall stream's CONTEXT.md with every memory it was built from", async () => {
    const agent = Object.fromEntries(
      [1, 2, 3, 4].map((i) => [
        `vault/agent/memories/step-${i}.md`,
        memory({ date: `2026-02-1${i}T10:00:00Z`, body: `Agent step ${i}: ran the migration check.` }),
      ]),
    );
    const root = project(
      { ...agent, '.gitignore': '.memvault/\n' },
      gitConfig('streams:\n  agent: { calendar: false, waterfall: true }\n'),
    );
    initRepo(root);
    const json = await buildHere(root);
    expect(json.written).toContain('agent/CONTEXT.md');
    expect(json.commit?.status === 'committed' && json.commit.message.split('\n')[0]).toBe('memvault: update CONTEXT.md, index');
    expect(
      changedIn(root)
        .map(([, file]) => file)
        .sort(),
    ).toEqual([...Object.keys(agent), 'vault/INDEX.md', 'vault/agent/CONTEXT.md', 'vault/index.json'].sort());
    expect(porcelain(root)).toEqual(['?? .gitignore', '?? memory.config.yaml']);
  });

  it("takes the author from the repository's git config when memory.config.yaml names none", async () => {
    const root = project({ ...MEMORIES }, 'timezone: UTC\n');
    initRepo(root);
    await buildHere(root);
    expect(git(root, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe(
      'Repo User <repo-user@example.org>|Repo User <repo-user@example.org>',
    );
  });
});

describe('build commits: history copies and hand edits', () => {
  let root: string;
  beforeAll(async () => {
    root = personRepo();
    await buildHere(root);
  });
  afterAll(() => removeProject(root));

  it('commits the previous version of a regenerated summary under history/, and memvault diff shows the change', async () => {
    const before = readText(root, 'vault/main/daily/2026-02-11.md');
    writeFileSync(
      path.join(root, 'vault/main/memories/2026-02-11-billing.md'),
      `${MEMORIES['vault/main/memories/2026-02-11-billing.md']}\nFollow-up: alert when the retry queue passes 500 jobs.\n`,
    );
    const json = await buildHere(root, LATER);
    const copy = `main/history/daily/2026-02-11-${STAMP_LATER}.md`;
    expect(json.historyCopies).toContain(copy);
    expect(readText(root, `vault/${copy}`)).toBe(before);
    expect(git(root, 'show', `HEAD:vault/${copy}`)).toBe(before);
    const changed = changedIn(root);
    expect(changed).toContainEqual(['A', `vault/${copy}`]);
    expect(changed).toContainEqual(['M', 'vault/main/memories/2026-02-11-billing.md']);
    expect(changed).toContainEqual(['M', 'vault/main/daily/2026-02-11.md']);
    expect(porcelain(root).filter((line) => line.includes('vault/'))).toEqual([]);

    const diff = await runCli(['diff', 'vault/main/daily/2026-02-11.md'], { cwd: root });
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('--- a/vault/main/daily/2026-02-11.md\t');
    expect(diff.stdout).toContain('+Follow-up: alert when the retry queue passes 500 jobs.');
    expect(diff.stdout).toMatch(/^-input_hash: [0-9a-f]{64}$/m);
  });

  it('keeps a hand-edited summary out of its commits, and --regenerate replaces it, keeping the edit in history/', async () => {
    const daily = 'vault/main/daily/2026-02-12.md';
    const edited = `${readText(root, daily).trimEnd()}\n\nHand note: the speed-up came from the GIN index, not tsvector.\n`;
    writeFileSync(path.join(root, daily), edited);
    const head = git(root, 'rev-parse', 'HEAD').trim();

    const kept = await buildHere(root, LATER);
    expect(kept.streams[0]!.held).toEqual([{ path: 'main/daily/2026-02-12.md', status: 'edited' }]);
    expect(readText(root, daily)).toBe(edited);
    if (kept.commit?.status === 'committed') expect(changedIn(root).map(([, file]) => file)).not.toContain(daily);
    else expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(porcelain(root)).toContain(` M ${daily}`);

    const { json } = await runCliJson(['build', '--now', LATER, '--json', '--regenerate', daily], { cwd: root });
    expect(json.streams[0].held).toEqual([]);
    expect(json.written).toContain('main/daily/2026-02-12.md');
    expect(readText(root, daily)).not.toContain('Hand note');
    const copy = json.history_copies.find((file: string) => file.startsWith('main/history/daily/2026-02-12-'));
    expect(readText(root, `vault/${copy}`)).toBe(edited);
    expect(changedIn(root)).toContainEqual(['A', `vault/${copy}`]);
    // The edit was never committed: HEAD's daily is the generated one again, as is the file.
    expect(git(root, 'show', `HEAD:${daily}`)).toBe(readText(root, daily));
    expect(porcelain(root).filter((line) => line.includes('vault/'))).toEqual([]);
  });

  it('--regenerate with a path that is not a summary exits 1 with a hint and changes nothing', async () => {
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const before = snapshotTree(path.join(root, 'vault'));
    const result = await runCli(['build', '--now', LATER, '--regenerate', 'vault/main/memories/2026-02-10-auth.md'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        /^memvault: --regenerate `.*vault\/main\/memories\/2026-02-10-auth\.md` is not a generated summary of the vault\n {2}/.source +
          /hint: name a daily, weekly, monthly or long-term summary file/.source,
      ),
    );
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(before);
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(path.join(root, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });
});
