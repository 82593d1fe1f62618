import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memory, removeProject, writeFiles } from '../helpers/project.js';

/**
 * The README's set-up in a clone of memvault: `npm run demo` (dist/scripts/demo.js) and then the README's commands
 * that write, pointed at the demo copy (`-C .demo`), must leave memvault's own repository as it was: same HEAD,
 * nothing modified or untracked. One clone (`git clone` of this checkout: committed files only, ~1,000 files), the
 * compiled demo script and CLI copied in (dist/ is ignored), node_modules found through a link one folder up
 * (inside the clone a link named node_modules would be untracked: `.gitignore` says `node_modules/`, a folder).
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** git without the test runner's author settings; the demo and memvault set their own identities. */
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The environment of a person at a terminal: none of the runner's memvault or git settings. */
function personEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' };
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('MEMVAULT_') && !key.startsWith('GIT_')) env[key] = value;
  }
  return env;
}

describe('npm run demo in a clone of memvault', () => {
  let work: string;
  let clone: string;
  let head: string;
  let commits: string;
  let demoOut: string;
  const cli = (...args: string[]): string =>
    execFileSync(process.execPath, [path.join(clone, 'dist/bin/memvault.js'), ...args], {
      cwd: clone,
      env: personEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  beforeAll(() => {
    work = mkdtempSync(path.join(os.tmpdir(), 'memvault-demo-'));
    clone = path.join(work, 'memvault');
    git(work, 'clone', '-q', REPO, clone);
    symlinkSync(path.join(REPO, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    mkdirSync(path.join(clone, 'dist/scripts'), { recursive: true });
    cpSync(path.join(REPO, 'dist/bin'), path.join(clone, 'dist/bin'), { recursive: true });
    cpSync(path.join(REPO, 'dist/scripts/demo.js'), path.join(clone, 'dist/scripts/demo.js'));
    head = git(clone, 'rev-parse', 'HEAD');
    commits = git(clone, 'rev-list', '--count', 'HEAD');
    expect(git(clone, 'status', '--porcelain')).toBe('');
    // What `npm run demo` runs (package.json "demo"), from the clone's root.
    demoOut = execFileSync(process.execPath, ['dist/scripts/demo.js'], {
      cwd: clone,
      env: personEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }, 120_000);
  afterAll(() => removeProject(work));

  it("builds and commits the rollup in .demo/, a repository of its own; memvault's HEAD and files are untouched", () => {
    expect(demoOut).toMatch(/the package: \.demo\/vault\/main\/UPLOAD_PACKAGE\.md \([\d,]+ bytes\)/);
    expect(existsSync(path.join(clone, '.demo/vault/main/UPLOAD_PACKAGE.md'))).toBe(true);
    expect(git(path.join(clone, '.demo'), 'rev-parse', '--show-toplevel')).toBe(path.join(clone, '.demo'));
    expect(git(path.join(clone, '.demo'), 'log', '--format=%s').split('\n')).toEqual([
      expect.stringMatching(/^memvault: rollup /),
      'The sample vault',
    ]);
    expect(git(path.join(clone, '.demo'), 'status', '--porcelain')).toBe('');

    expect(git(clone, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(clone, 'rev-list', '--count', 'HEAD')).toBe(commits);
    expect(git(clone, 'status', '--porcelain')).toBe('');
    expect(git(clone, 'check-ignore', '.demo')).toBe('.demo');
  });

  it("the README's write commands, pointed at .demo as it says, commit there and leave memvault's repository clean", () => {
    // Every command of the README's first CLI block that writes names the demo copy.
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const start = readme.indexOf('After `npm ci`, the CLI is');
    const open = readme.indexOf('```sh\n', start) + 6;
    const block = readme.slice(open, readme.indexOf('\n```', open));
    const commands = block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim());
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) {
      if (command.endsWith('--help')) continue;
      expect(command, command).toMatch(/^npx memvault -C (\.demo|\.\.\/\S+) /);
    }

    const demo = path.join(clone, '.demo');
    const before = git(demo, 'rev-parse', 'HEAD');
    cli('-C', '.demo', 'add', 'Tried the demo from the README.', '--date', '2026-11-22T05:00:00Z');
    writeFiles(demo, {
      'vault/main/memories/readme-try.md': memory({ date: '2026-11-21T09:00:00+01:00', body: 'Edited by hand in the demo.' }),
    });
    const report = JSON.parse(cli('-C', '.demo', 'build', '--now', '2026-11-23T06:00:00Z', '--json'));
    expect(report.commit.status).toBe('committed');
    expect(git(demo, 'rev-parse', 'HEAD')).not.toBe(before);
    expect(git(demo, 'status', '--porcelain')).toBe('');

    expect(git(clone, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(clone, 'status', '--porcelain')).toBe('');
  });
});
