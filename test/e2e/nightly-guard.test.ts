import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { commitAll, git, initRepo, porcelain } from '../git/helpers.js';
import { createProject, memory, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';
import { readPending } from '../../src/pipeline/pending.js';

/**
 * The CLI end to end around the nightly job: commands outside a project,
 * `add --stream`, and work left uncommitted by a build with commits off,
 * reported by `status` and committed by the next build (renames included).
 * Those two builds are checked by their report and the repository: they run
 * in-process (`commit: false` is what `--no-commit` passes), `status` runs the CLI.
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeProject));

describe('outside a project', () => {
  it('every command but init stops with "not a memvault project", writes nothing and creates no folder', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
    dirs.push(dir);
    initRepo(dir);
    for (const args of [['build'], ['status'], ['add', 'hello'], ['zoom', '2026-02-13'], ['search', 'x'], ['compact']]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(
        'memvault: not a memvault project (no memory.config.yaml here or above): run `memvault init`',
      );
    }
    expect(readdirSync(dir)).toEqual(['.git']);
    const typo = path.join(dir, 'typo');
    const result = await runCli(['-C', typo, 'build'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not a folder');
    expect(existsSync(typo)).toBe(false);
    expect((await runCli(['--version'], { cwd: dir })).code).toBe(0);
  });
});

describe('add --stream', () => {
  it('refuses an undeclared stream and lists the declared ones; --create-stream declares it', async () => {
    const root = createProject({}, 'timezone: UTC\nstreams:\n  main: { calendar: true }\n');
    dirs.push(root);
    const refused = await runCli(['add', 'hello', '--stream', 'nope'], { cwd: root });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stream `nope` is not declared in memory.config.yaml (streams: main)');
    expect(existsSync(path.join(root, 'vault/nope'))).toBe(false);
    const created = await runCliJson(['add', 'hello', '--stream', 'nope', '--create-stream', '--json'], { cwd: root });
    expect(created.json.stream).toBe('nope');
    expect(readText(root, 'memory.config.yaml')).toContain('nope: { calendar: true, waterfall: false }');
  });

  it('a .memvault that is a file: a one-line error with the rule and a hint, not an internal error', async () => {
    const root = createProject({ '.memvault': 'a file, not the state folder\n' });
    dirs.push(root);
    const searched = await runCli(['search', 'auth'], { cwd: root });
    expect(searched.code).toBe(1);
    expect(searched.stderr).toContain(`\`${path.join(root, '.memvault')}\` is a file, not a folder`);
    expect(searched.stderr).toContain('[project/state]');
    expect(searched.stderr).not.toContain('internal error');
  });
});

describe('work left uncommitted', () => {
  let root: string;
  const now = '2026-02-10T06:00:00Z';
  beforeAll(() => {
    const files: Record<string, string> = { '.gitignore': '.memvault/\n' };
    for (let day = 1; day <= 12; day++) {
      const d = String(day).padStart(2, '0');
      files[`vault/main/memories/2026-01-${d}.md`] = memory({
        date: `2026-01-${d}T10:00:00Z`,
        body: `Worked on step ${day} of the billing rewrite.`,
      });
    }
    root = createProject(files, 'timezone: UTC\ncalendar:\n  retention: { memories_days: 3, daily_days: 7, weekly_weeks: 2 }\n');
    dirs.push(root);
    initRepo(root);
    commitAll(root, 'memories');
  });

  it('status names what a --no-commit build left and the command; the next build commits exactly it, moves as renames', async () => {
    const first = await build({ root, now: new Date(now), commit: false });
    expect(first.archived.length).toBeGreaterThan(0);
    expect(porcelain(root).length).toBeGreaterThan(0);

    const status = await runCliJson(['status', '--json', '--now', now], { cwd: root });
    expect(status.json.uncommitted.fix).toBe('memvault build');
    expect(status.json.uncommitted.other).toEqual([]);
    expect(status.json.uncommitted.memvault).toEqual(
      expect.arrayContaining(['main/memories/2026-01-01.md', 'main/archive/2026-Q1/2026-01-01.md']),
    );
    const text = await runCli(['status', '--now', now], { cwd: root });
    expect(text.stdout).toMatch(/uncommitted in the vault:\n {2}\d+ file\(s\) memvault wrote or moved; commit them with `memvault build`/);

    // Nothing new to build, but the record's paths are committed: git is clean, and the archive moves are renames.
    const second = await build({ root, now: new Date(now) });
    expect(second.written).toEqual([]);
    expect(second.commit?.status).toBe('committed');
    expect(porcelain(root)).toEqual([]);
    const renames = git(root, 'show', '--name-status', '-M', '--format=', 'HEAD')
      .split('\n')
      .filter((line) => line.startsWith('R'));
    expect(renames).toContainEqual(
      expect.stringMatching(/^R100\tvault\/main\/memories\/2026-01-01\.md\tvault\/main\/archive\/2026-Q1\/2026-01-01\.md$/),
    );
    expect(readPending(path.join(root, '.memvault'))).toEqual({ written: [], historyCopies: [], archived: [] });
    const after = await runCliJson(['status', '--json', '--now', now], { cwd: root });
    expect(after.json.uncommitted).toMatchObject({ memvault: [], other: [] });
  });
});
