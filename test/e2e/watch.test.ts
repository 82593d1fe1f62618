import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, createProject, listFiles, memory, readText, removeProject, runCli } from '../helpers/project.js';
import { readPending } from '../../src/pipeline/pending.js';

/**
 * `memvault watch` end to end: the real CLI in a child process on a
 * temporary vault, edited the ways editors save (in place, atomic rename,
 * backup-and-rename, delete and recreate). Each save must reach the daily
 * summary and UPLOAD_PACKAGE.md; an invalid edit is reported and changes
 * nothing; the watcher's own writes never trigger another rebuild; Ctrl-C
 * stops it cleanly.
 */

const NOW = '2026-03-04T06:00:00Z';
const KICKOFF = 'vault/main/memories/2026-03-02-kickoff.md';
const DAILY = 'vault/main/daily/2026-03-02.md';
const PACKAGE = 'vault/main/UPLOAD_PACKAGE.md';
const TIMEOUT = 30_000;

class Watcher {
  readonly stdout: string[] = [];
  stderr = '';
  private partial = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop() ?? '';
      this.stdout.push(...lines);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** Rebuild lines (`HH:MM:SS trigger → outputs (N ms)`). */
  get rebuilds(): string[] {
    return this.stdout.filter((line) => line.includes(' → '));
  }

  async until(test: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + TIMEOUT;
    while (!test()) {
      if (this.child.exitCode !== null)
        throw new Error(
          `watch exited (${this.child.exitCode}) while waiting for ${what}\nstdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr}`,
        );
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}\nstdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr}`);
      await sleep(20);
    }
  }

  /** Waits for the next rebuild line after `count` and returns it. */
  async nextRebuild(count: number, what: string): Promise<string> {
    await this.until(() => this.rebuilds.length > count, what);
    return this.rebuilds[count]!;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function start(root: string, args: string[] = []): Watcher {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
  env.NO_COLOR = '1';
  return new Watcher(spawn(process.execPath, [CLI, 'watch', '--now', NOW, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

const kickoff = (extra = ''): string =>
  memory({
    date: '2026-03-02T09:00:00Z',
    title: 'Kickoff',
    body: `Kicked off the billing rewrite with Farah.${extra ? `\n\n${extra}` : ''}`,
  });

describe('memvault watch', () => {
  let root: string;
  let watcher: Watcher;

  beforeAll(async () => {
    root = createProject({
      [KICKOFF]: kickoff(),
      'vault/main/memories/2026-03-02-deploy-rule.md': memory({
        date: '2026-03-02T15:30:00Z',
        title: 'Deploy rule',
        body: 'No deploys on Friday afternoons.',
      }),
      'vault/main/memories/2026-03-03-lock-fix.md': memory({
        date: '2026-03-03T11:00:00Z',
        title: 'Lock fix',
        body: 'Fixed the build lock race in CI.',
      }),
    });
    watcher = start(root);
    await watcher.until(
      () => watcher.stdout.some((line) => line.includes(' watching vault/ and memory.config.yaml')),
      'the watcher to be ready',
    );
  });

  afterAll(async () => {
    if (watcher?.child.exitCode === null) {
      watcher.child.kill('SIGKILL');
      await watcher.exited;
    }
    removeProject(root);
  });

  it('builds once at start and reports what it wrote', () => {
    expect(watcher.rebuilds).toHaveLength(1);
    expect(watcher.rebuilds[0]).toMatch(/^\d\d:\d\d:\d\d start → daily 2026-03-02, daily 2026-03-03, package main, index \(\d+ ms\)$/);
    expect(readText(root, DAILY)).toContain('Kicked off the billing rewrite');
    expect(readText(root, PACKAGE)).toContain('Kicked off the billing rewrite');
  });

  /** Saves with `save`, then expects one rebuild line naming the file, and `text` in the daily and the package. */
  async function expectRebuild(save: () => void, text: string, how: string): Promise<void> {
    const count = watcher.rebuilds.length;
    save();
    const line = await watcher.nextRebuild(count, `the rebuild after ${how}`);
    expect(line).toMatch(/ main\/memories\/2026-03-02-kickoff\.md changed → daily 2026-03-02, package main, index \(\d+ ms\)$/);
    expect(readText(root, DAILY)).toContain(text);
    expect(readText(root, PACKAGE)).toContain(text);
  }

  it('rebuilds the day and the package after an edit in place', async () => {
    await expectRebuild(
      () => writeFileSync(path.join(root, KICKOFF), kickoff('Decision: invoice totals are summed in cents.')),
      'summed in cents',
      'an edit in place',
    );
  });

  it('after an atomic save (temp file renamed over the memory)', async () => {
    await expectRebuild(
      () => {
        const temp = path.join(root, 'vault/main/memories/.2026-03-02-kickoff.md.tmp-4711');
        writeFileSync(temp, kickoff('Decision: totals use banker’s rounding per line.'));
        renameSync(temp, path.join(root, KICKOFF));
      },
      'banker’s rounding per line',
      'an atomic rename',
    );
  });

  it('after a vim-style save (backup by rename, new file, swap file)', async () => {
    await expectRebuild(
      () => {
        const file = path.join(root, KICKOFF);
        writeFileSync(path.join(root, 'vault/main/memories/.2026-03-02-kickoff.md.swp'), 'swap');
        writeFileSync(path.join(root, 'vault/main/memories/4913'), '');
        rmSync(path.join(root, 'vault/main/memories/4913'));
        renameSync(file, `${file}~`);
        writeFileSync(file, kickoff('Farah owns the invoice exporter from now on.'));
        rmSync(`${file}~`);
        rmSync(path.join(root, 'vault/main/memories/.2026-03-02-kickoff.md.swp'));
      },
      'owns the invoice exporter',
      'a vim-style save',
    );
  });

  it('after a delete and re-create', async () => {
    await expectRebuild(
      () => {
        rmSync(path.join(root, KICKOFF));
        writeFileSync(path.join(root, KICKOFF), kickoff('The rewrite ships behind the billing-v2 flag.'));
      },
      'billing-v2 flag',
      'a delete and re-create',
    );
  });

  it('reports an invalid edit with its place and keeps the previous package and daily', async () => {
    const packageBefore = readText(root, PACKAGE);
    const dailyBefore = readText(root, DAILY);
    const count = watcher.rebuilds.length;
    writeFileSync(path.join(root, KICKOFF), '---\ndate: [2026-03-02\ntitle: Kickoff\n---\nHalf-typed edit.\n');
    const line = await watcher.nextRebuild(count, 'the rebuild after an invalid edit');
    expect(line).toMatch(
      / main\/memories\/2026-03-02-kickoff\.md changed → index; 1 invalid file\(s\), listed above \(last good version kept\)/,
    );
    await watcher.until(() => watcher.stderr.includes('main/memories/2026-03-02-kickoff.md:'), 'the problem on stderr');
    expect(watcher.stderr).toMatch(
      /main\/memories\/2026-03-02-kickoff\.md:\d+:\d+ error invalid YAML frontmatter: .*the last good version is used until this is fixed/,
    );
    expect(readText(root, PACKAGE)).toBe(packageBefore);
    expect(readText(root, DAILY)).toBe(dailyBefore);
    expect(readText(root, 'vault/INDEX.md')).toContain('**invalid** [main/memories/2026-03-02-kickoff.md]');

    // Fixed: the new version goes through.
    await expectRebuild(
      () => writeFileSync(path.join(root, KICKOFF), kickoff('Fixed the frontmatter again.')),
      'Fixed the frontmatter again',
      'the fix',
    );
    expect(readText(root, 'vault/INDEX.md')).not.toContain('**invalid**');
  });

  it('picks up a memory added with `memvault add` and a new folder', async () => {
    const count = watcher.rebuilds.length;
    const added = await runCli(
      ['add', 'Moved the staging database to the new cluster.', '--title', 'Staging move', '--date', '2026-03-03T16:00:00Z'],
      { cwd: root },
    );
    expect(added.code).toBe(0);
    const line = await watcher.nextRebuild(count, 'the rebuild after add');
    expect(added.stdout).toMatch(/^vault\/main\/memories\/2026\/03\/2026-03-03-staging-move-[0-9a-f]{6}\.md\n$/);
    expect(line).toContain(`${added.stdout.trim().slice('vault/'.length)} added → daily 2026-03-03, package main, index`);
    expect(readText(root, PACKAGE)).toContain('Moved the staging database to the new cluster.');
  });

  it('does not react to its own writes, nor to saves that change nothing', async () => {
    await sleep(1500);
    const count = watcher.rebuilds.length;
    // Re-saving identical bytes and touching outputs and history are not changes.
    writeFileSync(path.join(root, KICKOFF), readText(root, KICKOFF));
    writeFileSync(path.join(root, DAILY), readText(root, DAILY));
    await sleep(1500);
    expect(watcher.rebuilds.slice(count)).toEqual([]);
    expect(watcher.rebuilds.every((line) => !/daily\/|UPLOAD_PACKAGE|INDEX/.test(line.split(' → ')[0]!))).toBe(true);
  });

  it('reports an invalid config and carries on once it is fixed', async () => {
    const config = path.join(root, 'memory.config.yaml');
    const before = readText(root, 'memory.config.yaml');
    writeFileSync(config, 'timezone: Mars/Olympus\n');
    await watcher.until(
      () => watcher.stderr.includes('memory.config.yaml is invalid; the last outputs stay until it is fixed'),
      'the config error',
    );
    expect(watcher.stderr).toMatch(/memory\.config\.yaml:1:11 error `timezone`: unknown time zone/);
    const count = watcher.rebuilds.length;
    writeFileSync(config, before);
    const line = await watcher.nextRebuild(count, 'the rebuild after the config fix');
    expect(line).toMatch(/ memory\.config\.yaml changed → /);
  });

  it('stops cleanly on SIGINT: exit 0, lock released, no temp files left', async () => {
    watcher.child.kill('SIGINT');
    expect(await watcher.exited).toBe(0);
    expect(watcher.stderr).toMatch(/stopped after \d+ rebuild\(s\)\n$/);
    expect(existsSync(path.join(root, '.memvault', 'build.lock'))).toBe(false);
    expect(listFiles(root, 'vault').filter((file) => /\.tmp$|~$/.test(file))).toEqual([]);
    // The parse cache was saved on the way out: a build right after reads nothing again.
    const build = await runCli(['build', '--now', NOW, '--no-commit', '--json'], { cwd: root });
    expect(JSON.parse(build.stdout)).toMatchObject({ stats: { parsed: 0 }, written: [] });
  });
});

describe('memvault watch and git', () => {
  function repo(): string {
    const root = createProject({ [KICKOFF]: kickoff(), '.gitignore': '.memvault/\n' });
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'init');
    return root;
  }
  const git = (root: string, ...args: string[]): string =>
    spawnSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'T',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'T',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    }).stdout;

  it('commits nothing by default; after Ctrl-C, status names what is uncommitted and `memvault build` commits it all', async () => {
    const root = repo();
    const watcher = start(root);
    try {
      await watcher.until(() => watcher.stdout.some((line) => line.includes(' watching ')), 'ready');
      writeFileSync(path.join(root, KICKOFF), kickoff('An edit while watching.'));
      await watcher.nextRebuild(1, 'the rebuild');
      watcher.child.kill('SIGINT');
      expect(await watcher.exited).toBe(0);
      expect(git(root, 'log', '--format=%s').trim().split('\n')).toEqual(['init']);

      // What the watcher wrote is on its record and uncommitted; status says so, with the command that commits it.
      expect(readPending(path.join(root, '.memvault')).written.length).toBeGreaterThan(0);
      const status = await runCli(['status', '--json'], { cwd: root });
      expect(status.code, status.stderr).toBe(0);
      const { uncommitted } = JSON.parse(status.stdout);
      expect(uncommitted.fix).toBe('memvault build');
      expect(uncommitted.memvault).toEqual(expect.arrayContaining([DAILY.replace(/^vault\//, ''), PACKAGE.replace(/^vault\//, '')]));
      const text = await runCli(['status'], { cwd: root });
      expect(text.stdout).toMatch(/file\(s\) memvault wrote or moved; commit them with `memvault build`/);

      // The fix: one committing build takes everything the watcher left.
      const build = await runCli(['build', '--now', NOW, '--json'], { cwd: root });
      expect(build.code, build.stderr).toBe(0);
      expect(JSON.parse(build.stdout).commit.status).toBe('committed');
      expect(git(root, 'status', '--porcelain').trim()).toBe('');
      expect(readPending(path.join(root, '.memvault')).written).toEqual([]);
      expect(git(root, 'show', `HEAD:${PACKAGE}`)).toContain('An edit while watching.');
    } finally {
      removeProject(root);
    }
  });

  it('--commit-every batches what the rebuilds wrote into one commit per interval, and commits the rest on exit', async () => {
    const root = repo();
    const watcher = start(root, ['--commit-every', '1s']);
    try {
      await watcher.until(() => watcher.stderr.includes(' committed '), 'the first batched commit');
      writeFileSync(path.join(root, KICKOFF), kickoff('Edit one.'));
      await watcher.nextRebuild(1, 'rebuild one');
      watcher.child.kill('SIGINT');
      expect(await watcher.exited).toBe(0);
      const subjects = git(root, 'log', '--format=%s').trim().split('\n');
      expect(subjects.at(-1)).toBe('init');
      expect(subjects.slice(0, -1).every((subject) => subject.startsWith('memvault: watch — 1 rebuild'))).toBe(true);
      // Everything the rebuilds wrote, and the edited memory, is committed: the work tree is clean.
      expect(git(root, 'status', '--porcelain').trim()).toBe('');
      expect(git(root, 'show', 'HEAD:vault/main/memories/2026-03-02-kickoff.md')).toContain('Edit one.');
    } finally {
      removeProject(root);
    }
  });
});

describe('memvault watch --json', () => {
  it('prints one JSON object per event', async () => {
    const root = createProject({ [KICKOFF]: kickoff() });
    const watcher = start(root, ['--json', '--debounce', '30']);
    try {
      await watcher.until(() => watcher.stdout.some((line) => line.includes('"type":"ready"')), 'ready');
      const events = watcher.stdout.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(events.map((e) => e.type)).toEqual(['rebuild', 'ready']);
      expect(events[0]).toMatchObject({ trigger: 'start', outputs: ['daily 2026-03-02', 'package main', 'index'], diagnostics: [] });
      writeFileSync(path.join(root, KICKOFF), kickoff('One more line.'));
      await watcher.until(() => watcher.stdout.length > 2, 'the second rebuild');
      expect(JSON.parse(watcher.stdout[2]!)).toMatchObject({
        type: 'rebuild',
        changes: [{ path: 'main/memories/2026-03-02-kickoff.md', change: 'changed' }],
        written: ['main/daily/2026-03-02.md', 'main/UPLOAD_PACKAGE.md', 'main/UPLOAD_PACKAGE.manifest.json', 'INDEX.md', 'index.json'],
      });
    } finally {
      watcher.child.kill('SIGTERM');
      expect(await watcher.exited).toBe(0);
      removeProject(root);
    }
  });

  it('refuses to start on an invalid config, with the place of the problem', async () => {
    const root = createProject({}, 'upload:\n  max_tokens: -5\n');
    try {
      const result = await runCli(['watch', '--now', NOW], { cwd: root });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^memory\.config\.yaml:2:15 error `upload\.max_tokens`/);
    } finally {
      removeProject(root);
    }
  });
});
