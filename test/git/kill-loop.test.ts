import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, copyProject, createProject, memory, removeProject, runCliJson, writeFiles } from '../helpers/project.js';
import { commitAll, filesAt, git, gitConfig, gitStatus, initRepo, memoryNames, porcelain, shortHistory } from './helpers.js';

/**
 * Random SIGKILLs during committing builds (slow: MEMVAULT_SLOW=1). Each
 * round adds a memory and starts `memvault build` (the real CLI), then kills
 * it after a random delay within one build's duration; a final build runs
 * uninterrupted. Afterwards: `git fsck` is clean, every memory is in HEAD, no
 * temporary file is left anywhere in the vault, git status is clean, and the
 * vault equals the one an uninterrupted build of the same memories makes,
 * except `history/`: each killed build that had regenerated a summary copied
 * its previous version there (named by the build's `now` plus `-2`, `-3` …),
 * which an uninterrupted build never had to do.
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const ROUNDS = 25;
const NOW = '2026-02-16T06:00:00Z';
const history = shortHistory('2026-02-02', '2026-02-13');
const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

/** One extra memory per round, on the days the vault already has, so each build has summaries to rewrite. */
const extra = (round: number): Record<string, string> => {
  const day = `2026-02-${String(9 + (round % 5)).padStart(2, '0')}`;
  const text = memory({
    date: `${day}T18:${String(round).padStart(2, '0')}:00Z`,
    title: `Round ${round}`,
    body: `Round ${round}: keep the retry budget at ${round}.`,
  });
  return { [`vault/main/memories/2026-02/${day}-kill-${round}.md`]: text };
};

/** Every file under `dir` (dotfiles included), relative, `history/` kept apart. */
function files(dir: string, relative = ''): string[] {
  return readdirSync(path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    return entry.isDirectory() ? files(dir, child) : [child];
  });
}

function killedBuild(root: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const key of Object.keys(env)) if (key.startsWith('MEMVAULT_')) delete env[key];
    const child = spawn(process.execPath, [CLI, 'build', '--now', NOW], { cwd: root, env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('kill -9 loop', () => {
  it.skipIf(!SLOW)(
    `${ROUNDS} builds killed at random moments, then one uninterrupted build, equal an uninterrupted build`,
    async () => {
      const base = createProject({ '.gitignore': '.memvault/\n' }, gitConfig());
      roots.push(base);
      initRepo(base);
      commitAll(base, 'setup');
      writeFiles(base, history.files);
      await runCliJson(['build', '--now', NOW, '--json'], { cwd: base });

      const reference = copyProject(base);
      roots.push(reference);
      for (let round = 0; round < ROUNDS; round++) writeFiles(reference, extra(round));
      const started = performance.now();
      expect((await runCliJson(['build', '--now', NOW, '--json'], { cwd: reference })).json.commit.status).toBe('committed');
      const buildMs = performance.now() - started;

      const root = copyProject(base);
      roots.push(root);
      for (let round = 0; round < ROUNDS; round++) {
        writeFiles(root, extra(round));
        await killedBuild(root, Math.random() * buildMs);
      }
      const final = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
      expect(final.result.code, final.result.stderr).toBe(0);

      const fsck = gitStatus(root, 'fsck', '--strict', '--no-dangling');
      expect(fsck.code, fsck.stderr).toBe(0);
      const added = Array.from({ length: ROUNDS }, (_, i) => Object.keys(extra(i))).flat();
      expect(memoryNames(filesAt(root))).toEqual(memoryNames([...Object.keys(history.files), ...added]));
      const all = files(path.join(root, 'vault'));
      expect(all.filter((file) => file.endsWith('.tmp'))).toEqual([]);
      expect(porcelain(root)).toEqual([]);
      const outside = (list: string[]) => list.filter((file) => !file.includes('/history/')).sort();
      const expected = outside(files(path.join(reference, 'vault')));
      expect(outside(all)).toEqual(expected);
      for (const file of expected) {
        expect(readFileSync(path.join(root, 'vault', file), 'utf8'), file).toBe(readFileSync(path.join(reference, 'vault', file), 'utf8'));
      }
      const tree = (dir: string) =>
        outside(git(dir, 'ls-tree', '-r', 'HEAD', 'vault').trim().split('\n')).filter((line) => !line.includes('/history/'));
      expect(tree(root)).toEqual(tree(reference));
    },
    900_000,
  );
});
