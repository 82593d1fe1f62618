import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commitPaths, openCommitSession } from '../src/git/commit.js';

/**
 * The commit step of a build alone, on a repository of 20,000 memory files
 * (packed, as a nightly repository is): each round edits 10 files, then opens
 * a commit session and commits exactly those paths, as `memvault build` does.
 * Prints the median, min and max of the rounds. The full `npm run bench`
 * (build + commit at 20k) needs minutes of both cores; this isolates the git
 * part in seconds.
 *
 *   npx tsc -p tsconfig.build.json && node dist/scripts/bench-commit.js [files] [rounds]
 *   MEMVAULT_GIT_BACKEND=isomorphic node dist/scripts/bench-commit.js
 */

const FILES = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 15);
const EDITS = 10;

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-bench-commit-'));
  try {
    const vault = path.join(root, 'vault');
    const paths: string[] = [];
    for (let i = 0; i < FILES; i++) {
      const day = `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
      const rel = `main/memories/${day.slice(0, 7)}/${day}-${i}.md`;
      mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
      writeFileSync(path.join(vault, rel), `---\ndate: ${day}T09:00:00Z\n---\nMemory ${i}: a decision about topic ${i % 97}.\n`);
      paths.push(rel);
    }
    writeFileSync(path.join(root, '.gitignore'), '.memvault/\n');
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'config', 'user.name', 'bench');
    git(root, 'config', 'user.email', 'bench@example.org');
    git(root, 'config', 'gc.auto', '0');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '--no-verify', '-m', 'synthetic vault');
    git(root, 'gc', '-q');
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const edited = paths.slice(round * EDITS, (round + 1) * EDITS);
      for (const rel of edited) writeFileSync(path.join(vault, rel), `---\ndate: 2026-01-01T09:00:00Z\n---\nEdited in round ${round}.\n`);
      const started = performance.now();
      const author = { name: 'bench', email: 'bench@example.org' };
      const session = await openCommitSession({ vaultDir: vault, stateDir: path.join(root, '.memvault'), enabled: true, author });
      if ('status' in session) throw new Error(session.note);
      const outcome = await commitPaths(session, {
        paths: edited,
        pinned: new Map(),
        keep: new Set(),
        message: `round ${round}\n`,
        now: new Date(),
      });
      samples.push(performance.now() - started);
      if (outcome.status !== 'committed' || outcome.files.length !== EDITS)
        throw new Error(`round ${round} did not commit its ${EDITS} files`);
    }
    if (git(root, 'status', '--porcelain') !== '') throw new Error('the work tree is not clean after the rounds');
    samples.sort((a, b) => a - b);
    const median = samples[Math.floor(samples.length / 2)]!;
    const backend = process.env.MEMVAULT_GIT_BACKEND ?? 'default backend';
    const range = `min ${samples[0]!.toFixed(1)} ms, max ${samples[samples.length - 1]!.toFixed(1)} ms`;
    console.log(
      `commit of ${EDITS} files in a ${FILES}-file repository, ${ROUNDS} rounds (${backend}): median ${median.toFixed(1)} ms, ${range}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
