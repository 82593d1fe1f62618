import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, memory, removeProject, runCli } from '../helpers/project.js';
import { citedProject, git } from './repo.js';

/**
 * `verify.repo`: a vault kept apart from the code it remembers checks its
 * citations against that repository's history (repo.ts's: retry.ts deleted,
 * legacy.ts renamed), not against the repository holding the vault.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeProject(root);
});

function notesVault(config: string): string {
  const root = createProject(
    {
      'vault/main/memories/2026/01/2026-01-02-retry.md': memory({
        date: '2026-01-02T10:00:00Z',
        title: 'Retry with jitter',
        body: 'Retries live in `src/net/retry.ts`; the table is in `src/net/legacy.ts`.',
      }),
    },
    `timezone: UTC\n${config}`,
  );
  roots.push(root);
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A'], '2026-01-02');
  git(root, ['commit', '-qm', 'notes'], '2026-01-02');
  return root;
}

describe('verify.repo', () => {
  it('checks the citations against the configured repository', async () => {
    const code = citedProject();
    roots.push(code.root);
    const configured = notesVault(`verify:\n  repo: ${path.join('..', path.basename(code.root))}\n`);
    const result = await runCli(['verify', '--json', '--now', '2026-01-06T00:00:00Z'], { cwd: configured });
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      repo: string;
      head: string;
      memories: { citations: { target: string; state: string; to?: string }[] }[];
    };
    expect(json.repo).toBe(code.root);
    expect(json.head).toBe(code.deleted);
    expect(json.memories[0]!.citations).toMatchObject([
      { target: 'src/net/retry.ts', state: 'gone' },
      { target: 'src/net/legacy.ts', state: 'moved', to: 'src/net/backoff.ts' },
    ]);
  });

  it('stops with what to do when the folder is not a git repository', async () => {
    const root = notesVault('verify:\n  repo: ../no-such-clone\n');
    const missing = await runCli(['verify'], { cwd: root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`verify.repo in memory.config.yaml: ${path.resolve(root, '../no-such-clone')} does not exist`);
    expect(missing.stderr).toContain('set `verify.repo` in memory.config.yaml to the folder of a git clone');

    // The file system's root: a folder in no repository.
    const outside = notesVault(`verify:\n  repo: ${path.relative(root, '/')}\n`);
    const build = await runCli(['build', '--now', '2026-01-06T00:00:00Z'], { cwd: outside });
    expect(build.code).toBe(1);
    expect(build.stderr).toContain('is not in a git repository');
  });
});
