import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import {
  createProject,
  listFiles,
  memory,
  readJsonFile,
  readText,
  removeProject,
  runCli,
  runCliJson,
  snapshotTree,
} from '../helpers/project.js';

/**
 * `memvault build` end to end on small vaults: bad input files, --dry-run,
 * --through and --force, configuration and clock errors, an empty vault and
 * the build lock. The ten-week vault: build.test.ts. An unknown config key
 * and the same config error from every command: test/messages/config-invalid.test.ts.
 * Builds that only set a scene or are checked by their files run in-process
 * (the same pipeline and lock, no CLI start each); flags, messages and exit codes
 * go through the CLI.
 */

/** Paths in reports are vault-relative (`main/daily/…`); accept project-relative ones (`vault/main/daily/…`) too. */
const inVault = (file: string): string => file.replace(/^vault\//, '');
const allInVault = (files: readonly string[]): string[] => files.map(inVault);
const names = (root: string, folder: string): string[] => listFiles(root, folder).map((file) => path.posix.basename(file, '.md'));

describe('build: bad input files', () => {
  const M = 'vault/main/memories';
  const BAD: { file: string; content: string | Buffer; rule: string; line: number; column?: number }[] = [
    { file: 'broken-yaml.md', content: '---\ndate: 2026-02-10\ntitle: [unclosed\n---\nBody.\n', rule: 'memory/frontmatter', line: 3 },
    { file: 'no-date.md', content: '---\ntitle: Nothing to date\n---\nA memory without any date.\n', rule: 'memory/no-date', line: 1 },
    {
      file: 'impossible-date.md',
      content: '---\ntitle: Leap\ndate: 2026-02-30\n---\nThere is no 30 February.\n',
      rule: 'memory/invalid-date',
      line: 3,
      column: 7,
    },
    {
      file: 'binary.md',
      content: Buffer.from('---\ndate: 2026-02-10\n---\nab\u0000cd\n', 'utf8'),
      rule: 'memory/binary',
      line: 4,
      column: 3,
    },
    {
      file: 'latin1.md',
      content: Buffer.concat([Buffer.from('---\ndate: 2026-02-10\n---\nCaf'), Buffer.from([0xe9]), Buffer.from(' au lait.\n')]),
      rule: 'memory/encoding',
      line: 4,
    },
    { file: 'empty.md', content: '', rule: 'memory/empty', line: 1, column: 1 },
  ];
  let root: string;
  let result: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    root = createProject({
      [`${M}/2026-02-10-good.md`]: memory({ date: '2026-02-10T10:00:00Z', title: 'Good one', body: 'Moved the cron job to 03:00.' }),
      [`${M}/2026-02-11-good.md`]: memory({ date: '2026-02-11T10:00:00Z', title: 'Good two', body: 'Renewed the TLS certificate.' }),
      ...Object.fromEntries(BAD.map((bad) => [`${M}/${bad.file}`, bad.content])),
    });
    result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
  });
  afterAll(() => removeProject(root));

  it('exits 0, prints one `path:line:col error … [rule]` line per bad file, and builds the rest', () => {
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(BAD.length);
    for (const bad of BAD) {
      const pattern = new RegExp(`^(?:vault/)?main/memories/${bad.file.replace('.', '\\.')}:(\\d+):(\\d+) error .+ \\[${bad.rule}\\]$`);
      const matching = lines.filter((line) => pattern.test(line));
      expect(matching, `${bad.file} in:\n${result.stderr}`).toHaveLength(1);
      const [, line, column] = pattern.exec(matching[0]!)!;
      expect(Number(line), bad.file).toBe(bad.line);
      if (bad.column !== undefined) expect(Number(column), bad.file).toBe(bad.column);
    }
    expect(lines.find((line) => line.includes('no-date.md'))).toContain('hint:');
    expect(result.stdout).toContain('6 invalid file(s) skipped');
    expect(names(root, 'vault/main/daily')).toEqual(['2026-02-10', '2026-02-11']);
    expect(readText(root, 'vault/main/UPLOAD_PACKAGE.md')).toContain('Renewed the TLS certificate.');
  });

  it('points an invalid UTF-8 error at the offending byte (line 4, column 4 for `Caf\\xE9`)', () => {
    const line = result.stderr.split('\n').find((l) => l.includes('latin1.md'));
    expect(line).toMatch(/latin1\.md:4:4 error/);
  });

  it('lists the bad files under `invalid` in `memvault status --json` and in index.json', async () => {
    const { json } = await runCliJson(['status', '--json'], { cwd: root });
    const invalid = json.invalid.map((d: { path: string; rule: string; line: number }) => [inVault(d.path), d.rule, d.line]);
    expect(invalid.sort()).toEqual(BAD.map((bad) => [`main/memories/${bad.file}`, bad.rule, bad.line]).sort());
    expect(json.streams[0].memories).toBe(2);
    const index = readJsonFile(root, 'vault/index.json');
    expect(index.invalid.map((d: { rule: string }) => d.rule).sort()).toEqual(BAD.map((bad) => bad.rule).sort());
  });
});

describe('build: --dry-run, --through and --force', () => {
  const M = 'vault/main/memories';
  // Wednesday of 2026-W08: W07 is complete, W08 is not.
  const now = '2026-02-18T15:00:00Z';
  const files: Record<string, string> = {};
  for (const day of ['2026-02-09', '2026-02-10', '2026-02-12', '2026-02-16', '2026-02-17', '2026-02-18']) {
    files[`${M}/${day}.md`] = memory({ date: `${day}T10:00:00Z`, title: `Work on ${day}`, body: `Shipped the change planned for ${day}.` });
  }
  const roots: string[] = [];
  const project = (): string => {
    const root = createProject(files);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach(removeProject));

  it('--dry-run writes nothing and lists the dailies it would create', async () => {
    const root = project();
    const before = snapshotTree(root);
    const text = await runCli(['build', '--now', now, '--dry-run'], { cwd: root });
    expect(text.code).toBe(0);
    for (const day of ['2026-02-09', '2026-02-10', '2026-02-12', '2026-02-16', '2026-02-17']) expect(text.stdout).toContain(`daily ${day}`);
    expect(text.stdout).not.toContain('daily 2026-02-18');
    const { json } = await runCliJson(['build', '--now', now, '--dry-run', '--json'], { cwd: root });
    expect(json.dry_run).toBe(true);
    expect(json.written).toEqual([]);
    expect(json.streams[0].planned.filter((p: { tier: string }) => p.tier === 'daily').map((p: { period: string }) => p.period)).toEqual([
      '2026-02-09',
      '2026-02-10',
      '2026-02-12',
      '2026-02-16',
      '2026-02-17',
    ]);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('--through makes the weekly of an incomplete week', async () => {
    const root = project();
    await build({ root, now: new Date(now) });
    expect(names(root, 'vault/main/weekly')).toEqual(['2026-W07']);
    const { json } = await runCliJson(['build', '--now', now, '--through', '2026-02-22', '--json'], { cwd: root });
    expect(allInVault(json.written)).toContain('main/weekly/2026-W08.md');
    expect(names(root, 'vault/main/weekly')).toEqual(['2026-W07', '2026-W08']);
    expect(names(root, 'vault/main/daily')).toContain('2026-02-18');
  });

  it('--force summarizes today', async () => {
    const root = project();
    const { json } = await runCliJson(['build', '--now', now, '--force', '--json'], { cwd: root });
    expect(allInVault(json.written)).toContain('main/daily/2026-02-18.md');
    expect(readText(root, 'vault/main/daily/2026-02-18.md')).toContain('Shipped the change planned for 2026-02-18.');
  });
});

describe('build: configuration and clock errors', () => {
  const files = { 'vault/main/memories/2026-02-10.md': memory({ date: '2026-02-10', body: 'Something happened.' }) };
  const roots: string[] = [];
  const project = (config?: string): string => {
    const root = createProject(files, config);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach(removeProject));

  it('an invalid memory.config.yaml exits 1 with the file, line and column, and a hint; nothing is written', async () => {
    const root = project('upload:\n  max_tokens: -1\n');
    const before = snapshotTree(root);
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^memory\.config\.yaml:2:15 error .*max_tokens/m);
    expect(result.stderr).toContain('hint:');
    expect(snapshotTree(root)).toEqual(before);
  });

  it('a bad --now (or MEMVAULT_NOW) exits 1 with a one-line reason and a hint', async () => {
    const root = project();
    for (const [args, env] of [
      [['--now', 'yesterday'], {}],
      [[], { MEMVAULT_NOW: '2026-13-45' }],
    ] as const) {
      const result = await runCli(['build', ...args], { cwd: root, env });
      expect(result.code).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^memvault: .*(yesterday|2026-13-45).* not an ISO 8601 datetime/);
      expect(lines.slice(1).join('\n')).toMatch(/^ {2}hint: /);
      expect(lines.length).toBeLessThanOrEqual(2);
    }
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });

  it('rejects an impossible --now date instead of rolling it over (2026-02-30 is not 2026-03-02)', async () => {
    const root = project();
    const result = await runCli(['build', '--now', '2026-02-30T10:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('2026-02-30');
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });
});

describe('build: an empty vault', () => {
  let root: string;
  afterAll(() => removeProject(root));

  it('builds a package that says how to add memories', async () => {
    root = createProject({});
    const report = await build({ root, now: new Date('2026-02-13T09:00:00Z') });
    expect(allInVault(report.written)).toContain('main/UPLOAD_PACKAGE.md');
    const text = readText(root, 'vault/main/UPLOAD_PACKAGE.md');
    expect(text).toContain('No memories yet');
    expect(text).toMatch(/memories\//);
    expect(text).toContain('memvault build');
    expect(readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json').items).toEqual([]);
  });
});

describe('build: the build lock', () => {
  const files = { 'vault/main/memories/2026-02-10.md': memory({ date: '2026-02-10T10:00:00Z', body: 'Locked out, then in.' }) };
  let root: string;
  let sleeper: ChildProcess | undefined;
  afterAll(() => {
    sleeper?.kill();
    removeProject(root);
  });

  /** Pretends a build by `pid` holds the lock right now. */
  function holdLock(pid: number): void {
    const state = path.join(root, '.memvault');
    mkdirSync(path.join(state, 'build.lock'), { recursive: true });
    writeFileSync(
      path.join(state, 'build.owner.json'),
      JSON.stringify({ pid, started: '2026-02-13T08:59:00.000Z', command: 'memvault build' }),
    );
    const now = new Date();
    utimesSync(path.join(state, 'build.lock'), now, now);
  }

  it('refuses to build while a live process holds the lock', async () => {
    root = createProject(files);
    sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    holdLock(sleeper.pid!);
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`another build is running (pid ${sleeper.pid}`);
    expect(result.stderr).toContain('hint:');
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });

  it('takes over the lock of a process that is gone, builds, and releases it', async () => {
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => dead.on('exit', resolve));
    holdLock(dead.pid!);
    await build({ root, now: new Date('2026-02-13T09:00:00Z') });
    expect(names(root, 'vault/main/daily')).toEqual(['2026-02-10']);
    expect(existsSync(path.join(root, '.memvault/build.lock'))).toBe(false);
    expect(existsSync(path.join(root, '.memvault/build.owner.json'))).toBe(false);
  });
});
