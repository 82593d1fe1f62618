import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { type CliResult, createProject, memory, readText, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { git, gitConfig, initRepo } from './helpers.js';

/**
 * `memvault log`, `diff` and `show` on a repository built over three
 * nights, checked against what the real git CLI says about the same commits.
 * The three nightly builds run in-process (test/git/commit.test.ts covers
 * the build through the CLI); the read commands run through the CLI, the
 * independent runs of a test side by side.
 */

/** Runs independent read-only commands at once (each waits on its own process). */
const runAll = (runs: string[][], cwd: string): Promise<CliResult[]> => Promise.all(runs.map((args) => runCli(args, { cwd })));

const NIGHTS = ['2026-02-16T06:00:00Z', '2026-02-17T06:00:00Z', '2026-02-18T06:00:00Z'];
const PACKAGE = 'vault/main/UPLOAD_PACKAGE.md';
const DAILY = 'vault/main/daily/2026-02-16.md';

describe('history commands', () => {
  let root: string;
  const commits: string[] = [];

  beforeAll(async () => {
    root = createProject(
      {
        '.gitignore': '.memvault/\n',
        'vault/main/memories/2026-02-12-kickoff.md': memory({
          date: '2026-02-12T09:00:00Z',
          title: 'Kickoff',
          body: 'Agreed on the scope of the billing rewrite.',
        }),
        'vault/main/memories/2026-02-13-queue.md': memory({
          date: '2026-02-13T11:00:00Z',
          title: 'Queue',
          body: 'Decision: retries move into the queue.',
        }),
      },
      gitConfig(),
    );
    initRepo(root);
    for (const [i, now] of NIGHTS.entries()) {
      if (i === 1)
        writeFiles(root, {
          'vault/main/memories/2026-02-16-outage.md': memory({
            date: '2026-02-16T14:00:00Z',
            title: 'Outage',
            body: 'The EU region lost its database for 12 minutes.',
          }),
        });
      if (i === 2) {
        const file = path.join(root, 'vault/main/memories/2026-02-16-outage.md');
        writeFileSync(
          file,
          `${readText(root, 'vault/main/memories/2026-02-16-outage.md')}\nRoot cause: an expired TLS certificate on the replica.\n`,
        );
      }
      expect((await build({ root, now: new Date(now) })).commit?.status).toBe('committed');
      commits.push(git(root, 'rev-parse', 'HEAD').trim());
    }
  });
  afterAll(() => removeProject(root));

  it('log lists the commits that changed a file, newest first, with date, message and the generator of each version', async () => {
    const [{ json }, text] = await Promise.all([
      runCliJson(['log', DAILY, '--json'], { cwd: root }),
      runCli(['log', DAILY], { cwd: root }),
    ]);
    expect(json.path).toBe(DAILY);
    expect(json.versions.map((v: any) => [v.commit, v.change, v.date])).toEqual([
      [commits[2], 'modified', '2026-02-18T06:00:00Z'],
      [commits[1], 'added', '2026-02-17T06:00:00Z'],
    ]);
    expect(json.versions[0].subject).toBe(git(root, 'log', '-1', '--format=%s', commits[2]!).trim());
    expect(json.versions[0].generator).toEqual({
      provider: expect.any(String),
      model: expect.any(String),
      prompt: expect.stringMatching(/^daily@/),
    });
    // The same list as git's own history of the file.
    expect(git(root, 'log', '--format=%H', '--', DAILY).trim().split('\n')).toEqual([commits[2], commits[1]]);

    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`${DAILY}: 2 version(s), newest first`);
    expect(text.stdout).toContain(`${commits[2]!.slice(0, 7)}  2026-02-18 06:00 +00:00  modified memvault: rollup 2026-02-16 — 1 daily`);
  });

  it('log takes paths relative to the vault too, and --limit', async () => {
    const { json } = await runCliJson(['log', 'main/UPLOAD_PACKAGE.md', '--json', '--limit', '2'], { cwd: root });
    expect(json.path).toBe(PACKAGE);
    expect(json.versions.map((v: any) => v.commit)).toEqual([commits[2], commits[1]]);
    expect(json.versions[0].generator).toBeNull();
  });

  it('show --at a date prints the file as committed then (the package an agent saw that day)', async () => {
    const days = ['2026-02-16', '2026-02-17', '2026-02-18'];
    const [byRevision, byId, ...byDay] = await runAll(
      [['HEAD~1'], [commits[0]!.slice(0, 8)], ...days.map((day) => [day])].map((at) => ['show', PACKAGE, '--at', ...at]),
      root,
    );
    for (const [i, result] of byDay.entries()) {
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(git(root, 'show', `${commits[i]}:${PACKAGE}`));
    }
    expect(byRevision!.stdout).toBe(git(root, 'show', `${commits[1]}:${PACKAGE}`));
    expect(byId!.stdout).toBe(git(root, 'show', `${commits[0]}:${PACKAGE}`));
  });

  it('diff shows the last change by default, and any two versions by date or revision', async () => {
    const [last, range] = await runAll(
      [
        ['diff', DAILY],
        ['diff', PACKAGE, '--from', '2026-02-16', '--to', 'HEAD~1'],
      ],
      root,
    );
    expect(last!.code).toBe(0);
    expect(last!.stdout).toContain(`--- a/${DAILY}\t${commits[1]!.slice(0, 7)} 2026-02-17 06:00 +00:00`);
    expect(last!.stdout).toContain(`+++ b/${DAILY}\t${commits[2]!.slice(0, 7)} 2026-02-18 06:00 +00:00`);
    expect(last!.stdout).toContain('+Root cause: an expired TLS certificate on the replica.');
    expect(last!.stdout).not.toContain('\x1b['); // no colour when not a terminal

    expect(range!.code).toBe(0);
    expect(range!.stdout).toContain(`--- a/${PACKAGE}\t${commits[0]!.slice(0, 7)}`);
    expect(range!.stdout).toContain(`+++ b/${PACKAGE}\t${commits[1]!.slice(0, 7)}`);
    expect(range!.stdout).toContain('+The EU region lost its database for 12 minutes.');
  });

  it('exits 1 with a hint for an unknown path, an unknown revision, a date before the history, or a single version', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['log', 'vault/main/daily/2030-01-01.md'],
        /^memvault: `vault\/main\/daily\/2030-01-01\.md` has no committed version\n {2}hint: check the path/,
      ],
      [['diff', DAILY, '--from', 'no-such-branch'], /^memvault: unknown revision `no-such-branch`\n {2}hint: use a commit id/],
      [['show', PACKAGE, '--at', 'HEAD~9'], /^memvault: unknown revision `HEAD~9` \(`[0-9a-f]{7}` is the first commit\)\n/],
      [
        ['show', PACKAGE, '--at', '2026-01-01'],
        /^memvault: there is no commit on or before 2026-01-01\n {2}hint: the branch's history starts at 2026-02-16T06:00:00Z/,
      ],
      [
        ['show', DAILY, '--at', '2026-02-16'],
        new RegExp(
          /^memvault: `vault\/main\/daily\/2026-02-16\.md` did not exist at [0-9a-f]{7} \(2026-02-16 06:00 \+00:00\)\n {2}/.source +
            /hint: its first version is [0-9a-f]{7} from 2026-02-17/.source,
        ),
      ],
      [['diff', 'vault/main/daily/2026-02-13.md'], /^memvault: `vault\/main\/daily\/2026-02-13\.md` has only one committed version/],
    ];
    const results = await runAll(
      cases.map(([args]) => args),
      root,
    );
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
  });

  it('has --help with examples for each command', async () => {
    const commands = ['log', 'diff', 'show'];
    const helps = await runAll(
      commands.map((command) => [command, '--help']),
      root,
    );
    for (const [i, command] of commands.entries()) {
      const help = helps[i]!;
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: memvault ${command} [options] <path>`);
      expect(help.stdout).toMatch(new RegExp(`Examples:\\n {2}memvault ${command} vault/main/`));
    }
  });
});
