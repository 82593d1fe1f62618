import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run demo`: builds a copy of the sample vault offline, as of a fixed
 * moment, in `.demo/` (git-ignored), a git repository of its own, so the
 * rollup commit lands there and memvault's own repository keeps its history
 * and tracked files untouched. Prints where the package is and its size.
 *
 * Options: `--now <ISO datetime>` (default 2026-11-22T06:00:00Z, the
 * sample's "this morning"), `--out <folder>` (default `.demo`).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'memvault.js');
const SAMPLE = ['memory.config.yaml', 'memory.config.schema.json', 'vault', 'prompts', '.gitattributes'];
/** Who committed the sample in the demo repository, and when: fixed, so the demo's commits are the same on every machine. */
const SAMPLE_COMMIT = { name: 'memvault demo', email: 'demo@memvault.invalid', date: '2026-11-21T18:00:00Z' };

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

function hasGit(): boolean {
  return spawnSync('git', ['--version'], { stdio: 'ignore' }).status === 0;
}

function main(): void {
  const now = option('--now', '2026-11-22T06:00:00Z');
  const out = path.resolve(ROOT, option('--out', '.demo'));
  if (out === ROOT || !out.startsWith(`${ROOT}${path.sep}`) || path.relative(ROOT, out).split(path.sep).includes('vault')) {
    throw new Error(`--out \`${out}\` must be a folder inside ${ROOT}, not the repository itself or its vault`);
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const name of SAMPLE)
    if (existsSync(path.join(ROOT, name))) cpSync(path.join(ROOT, name), path.join(out, name), { recursive: true });

  if (hasGit()) {
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: SAMPLE_COMMIT.name,
      GIT_AUTHOR_EMAIL: SAMPLE_COMMIT.email,
      GIT_AUTHOR_DATE: SAMPLE_COMMIT.date,
      GIT_COMMITTER_NAME: SAMPLE_COMMIT.name,
      GIT_COMMITTER_EMAIL: SAMPLE_COMMIT.email,
      GIT_COMMITTER_DATE: SAMPLE_COMMIT.date,
    };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: out, env, stdio: ['ignore', 'ignore', 'inherit'] });
    git('init', '-q', '-b', 'main');
    // The demo's state folder stays out of the demo's history, as `memvault init` sets it up.
    writeFileSync(path.join(out, '.gitignore'), '.memvault/\n');
    git('add', '-A');
    git('commit', '-q', '--no-verify', '-m', 'The sample vault');
  }

  const result = spawnSync(process.execPath, [CLI, '-C', out, 'build', '--now', now], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);

  const relative = path.relative(process.cwd(), out) || '.';
  const packages = ['main'].map((stream) => path.join(out, 'vault', stream, 'UPLOAD_PACKAGE.md')).filter((file) => existsSync(file));
  process.stdout.write('\n');
  for (const file of packages) {
    const bytes = readFileSync(file).byteLength;
    process.stdout.write(`the package: ${path.relative(process.cwd(), file)} (${bytes.toLocaleString('en-US')} bytes)\n`);
  }
  process.stdout.write(
    `built in ${relative}/ (git-ignored${hasGit() ? `, a git repository of its own: \`git -C ${relative} log --stat -1\` shows the rollup commit` : ''});\n` +
      `the sample in vault/ is untouched. Look around: node dist/bin/memvault.js -C ${relative} status\n`,
  );
}

main();
