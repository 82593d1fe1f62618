import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { commitAll, git, gitConfig, initRepo, porcelain } from '../git/helpers.js';
import { CLI, createProject, memory, removeProject } from '../helpers/project.js';

/**
 * `watch --commit-every` commits the committed record (vault/.memvault-record/)
 * that its rebuilds keep current, as `memvault build` does: after an edit,
 * the batch's commit holds the shard naming the memory's new blob and the
 * work tree is clean. The real CLI in a child process, stopped with Ctrl-C.
 */

const NOW = '2026-03-04T06:00:00Z';
const EDITED = 'vault/main/memories/2026-03-02-kickoff.md';
const TIMEOUT = 30_000;

const kickoff = (extra = ''): string =>
  memory({ date: '2026-03-02T09:00:00Z', title: 'Kickoff', body: `Kicked off the billing rewrite with Farah.${extra}` });

/** The blob the record at `rev` gives a vault path, or undefined. */
function recordedBlob(root: string, vaultPath: string, rev = 'HEAD'): string | undefined {
  const shards = git(root, 'ls-tree', '-r', '--name-only', rev, 'vault/.memvault-record/').split('\n').filter(Boolean);
  for (const shard of shards) {
    for (const line of git(root, 'show', `${rev}:${shard}`).split('\n').slice(1).filter(Boolean)) {
      const { p, b } = JSON.parse(line) as { p: string; b: string };
      if (p === vaultPath) return b;
    }
  }
  return undefined;
}

describe('watch --commit-every and the committed record', () => {
  let root: string;
  beforeAll(async () => {
    root = createProject(
      {
        '.gitignore': '.memvault/\n',
        [EDITED]: kickoff(),
        'vault/main/memories/2026-03-03-lock-fix.md': memory({
          date: '2026-03-03T11:00:00Z',
          title: 'Lock fix',
          body: 'Fixed the lock race.',
        }),
      },
      gitConfig(),
    );
    initRepo(root);
    commitAll(root, 'init');
    // Built and committed, record included, before watch starts.
    await build({ root, now: new Date(NOW) });
  }, 60_000);
  afterAll(() => removeProject(root));

  it('commits the shards its rebuilds rewrote: clean work tree, the edited memory recorded with its committed blob', async () => {
    const before = recordedBlob(root, 'main/memories/2026-03-02-kickoff.md');
    expect(before).toBe(git(root, 'rev-parse', `HEAD:${EDITED}`).trim());
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
    const child = spawn(process.execPath, [CLI, 'watch', '--now', NOW, '--commit-every', '1s'], {
      cwd: root,
      env: { ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = async (test: () => boolean, what: string): Promise<void> => {
      for (const deadline = Date.now() + TIMEOUT; !test(); await new Promise((resolve) => setTimeout(resolve, 20))) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      }
    };
    try {
      await until(() => stdout.includes(' watching vault/'), 'ready line');
      writeFileSync(path.join(root, EDITED), kickoff(' Decision: invoice totals are summed in cents.'));
      // The batch of the edit's rebuild (it names the daily it rewrote), not one the start might have made.
      await until(() => /committed .*daily 2026-03-02/.test(stderr), 'batched commit');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(git(root, 'log', '-1', '--format=%s')).toMatch(/^memvault: watch — \d+ rebuilds? \(daily 2026-03-02/);
    expect(porcelain(root)).toEqual([]);
    const after = recordedBlob(root, 'main/memories/2026-03-02-kickoff.md');
    expect(after).not.toBe(before);
    expect(after).toBe(git(root, 'rev-parse', `HEAD:${EDITED}`).trim());
  }, 60_000);
});
