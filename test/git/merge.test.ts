import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { copyProject, createProject, memory, readText, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { commitAll, filesAt, git, gitConfig, gitStatus, initRepo, porcelain } from './helpers.js';

/**
 * Two machines rolled up the same day and their histories meet: with the
 * repository's `.gitattributes`, generated files never get conflict markers,
 * the build refuses to commit in the middle of the merge, and the documented
 * procedure (rebuild with --no-commit, add, commit) ends with a vault that
 * holds both machines' memories and is consistent.
 */

const ATTRIBUTES = readFileSync(fileURLToPath(new URL('../../.gitattributes', import.meta.url)), 'utf8');
const NOW1 = '2026-02-12T06:00:00Z';
const NOW2 = '2026-02-13T06:00:00Z';
const GENERATED = /^vault\/(INDEX\.md|index\.json|main\/(daily|weekly|monthly)\/|main\/UPLOAD_PACKAGE|\.memvault-record\/)/;

describe('merging two machines that rolled up concurrently', () => {
  let laptop: string;
  let server: string;
  let plain: string;

  beforeAll(async () => {
    laptop = createProject(
      {
        '.gitignore': '.memvault/\n',
        '.gitattributes': ATTRIBUTES,
        'vault/main/memories/2026-02-10-plan.md': memory({
          date: '2026-02-10T09:00:00Z',
          title: 'Plan',
          body: 'Planned the billing rewrite with Dana.',
        }),
        'vault/main/memories/2026-02-11-spike.md': memory({
          date: '2026-02-11T09:00:00Z',
          title: 'Spike',
          body: 'Spiked the queue-based retries.',
        }),
      },
      gitConfig(),
    );
    initRepo(laptop);
    commitAll(laptop, 'setup');
    // The set-up builds run in-process (no CLI start each); the tests below run the CLI.
    await build({ root: laptop, now: new Date(NOW1) });

    server = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
    execFileSync('git', ['clone', '-q', laptop, server]);
    git(server, 'config', 'user.name', 'Server');
    git(server, 'config', 'user.email', 'server@example.org');

    // Both machines write a memory for 2026-02-12 and roll up the next morning.
    writeFiles(laptop, {
      'vault/main/memories/2026-02-12-laptop.md': memory({
        date: '2026-02-12T10:00:00Z',
        title: 'From the laptop',
        body: 'Fixed the invoice rounding bug.',
      }),
    });
    await build({ root: laptop, now: new Date(NOW2) });
    writeFiles(server, {
      'vault/main/memories/2026-02-12-server.md': memory({
        date: '2026-02-12T15:00:00Z',
        title: 'From the server',
        body: 'Nightly export finished in 4 minutes.',
      }),
    });
    await build({ root: server, now: new Date(NOW2) });

    // The same merge without the attributes, for contrast.
    plain = copyProject(laptop);
    writeFileSync(path.join(plain, '.git', 'info', 'attributes'), '* merge\n');
  });
  afterAll(() => [laptop, server, plain].forEach(removeProject));

  it('without the attributes, generated files get conflict markers', () => {
    git(plain, 'fetch', '-q', server, 'main');
    expect(gitStatus(plain, 'merge', '--no-edit', 'FETCH_HEAD').code).not.toBe(0);
    expect(readText(plain, 'vault/main/daily/2026-02-12.md')).toContain('<<<<<<<');
  });

  it('with them, only generated files conflict, with our version kept whole and no markers', () => {
    git(laptop, 'fetch', '-q', server, 'main');
    expect(gitStatus(laptop, 'merge', '--no-edit', 'FETCH_HEAD').code).not.toBe(0);
    const conflicted = git(laptop, 'diff', '--name-only', '--diff-filter=U').trim().split('\n');
    expect(conflicted).toContain('vault/main/daily/2026-02-12.md');
    expect(conflicted.every((file) => GENERATED.test(file))).toBe(true);
    for (const file of conflicted) expect(readText(laptop, file)).not.toMatch(/^(<<<<<<<|>>>>>>>)/m);
    // Memories are ordinary files: both machines' are there.
    expect(readText(laptop, 'vault/main/memories/2026-02-12-server.md')).toContain('Nightly export');
    expect(readText(laptop, 'vault/main/memories/2026-02-12-laptop.md')).toContain('invoice rounding');
  });

  it('memvault build refuses to commit in the middle of the merge and says how to resolve it', async () => {
    const result = await runCli(['build', '--now', NOW2], { cwd: laptop });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('memvault: a merge is in progress');
    expect(result.stderr).toContain('run `memvault build --no-commit`, then `git add` them (see docs/git.md)');
  });

  it('the documented procedure resolves it by rebuilding: build --no-commit, git add, git commit', async () => {
    const { json } = await runCliJson(['build', '--now', NOW2, '--json', '--no-commit'], { cwd: laptop });
    expect(json.written).toContain('main/daily/2026-02-12.md');
    const daily = readText(laptop, 'vault/main/daily/2026-02-12.md');
    expect(daily).toContain('From the laptop');
    expect(daily).toContain('From the server');
    git(laptop, 'add', 'vault');
    git(laptop, 'commit', '-q', '--no-edit');
    expect(git(laptop, 'log', '-1', '--format=%P').trim().split(' ')).toHaveLength(2);

    const after = await runCliJson(['build', '--now', NOW2, '--json'], { cwd: laptop });
    expect(after.json.written).toEqual([]);
    expect(after.json.commit.status).toBe('unchanged');
    expect(porcelain(laptop)).toEqual([]);
    expect(gitStatus(laptop, 'fsck', '--strict', '--no-dangling').code).toBe(0);
    expect(filesAt(laptop)).toEqual(
      expect.arrayContaining(['vault/main/memories/2026-02-12-laptop.md', 'vault/main/memories/2026-02-12-server.md']),
    );
  });
});
