import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, memory, readText, removeProject, runCli } from '../helpers/project.js';
import { commitAll, filesAt, git, gitConfig, gitStatus, initRepo } from './helpers.js';

/**
 * Two clones of one vault. `memvault add` of the same title on the same day used to name both files
 * `YYYY-MM-DD-<slug>.md`: the merge was an add/add conflict inside the memory, and the documented procedure committed
 * git's markers, after which the memory silently left every summary, the package and search. Now the names differ, and
 * a memory that does hold markers is a named error no summary and no memvault commit takes.
 */

const ATTRIBUTES = readFileSync(fileURLToPath(new URL('../../.gitattributes', import.meta.url)), 'utf8');
const ENV = { MEMVAULT_GIT_BACKEND: process.env.MEMVAULT_GIT_BACKEND ?? 'cli' };
const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

/** A vault repository with one memory, and a clone of it with its own identity. */
function twoClones(): { laptop: string; server: string } {
  const laptop = createProject(
    {
      '.gitignore': '.memvault/\n',
      '.gitattributes': ATTRIBUTES,
      'vault/main/memories/2026-02-10-plan.md': memory({
        date: '2026-02-10T09:00:00Z',
        title: 'Plan',
        body: 'Planned the billing rewrite.',
      }),
    },
    gitConfig(),
  );
  initRepo(laptop);
  commitAll(laptop, 'setup');
  const server = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
  execFileSync('git', ['clone', '-q', laptop, server]);
  git(server, 'config', 'user.name', 'Server');
  git(server, 'config', 'user.email', 'server@example.org');
  roots.push(laptop, server);
  return { laptop, server };
}

const add = (cwd: string, text: string, now: string) =>
  runCli(['add', text, '--title', 'Deploy notes'], { cwd, env: { ...ENV, MEMVAULT_NOW: now } });

describe('two clones', () => {
  it('add the same title on the same day: the merge has no conflict and keeps both memories', async () => {
    const { laptop, server } = twoClones();
    const a = await add(laptop, 'The laptop found that deploys need the walrus flag.', '2026-02-13T10:00:00Z');
    const b = await add(server, 'The server found that deploys need the narwhal flag.', '2026-02-13T11:00:00Z');
    expect([a.code, b.code]).toEqual([0, 0]);
    commitAll(laptop, 'laptop memory');
    commitAll(server, 'server memory');

    git(server, 'fetch', '-q', laptop, 'main');
    expect(gitStatus(server, 'merge', '--no-edit', 'FETCH_HEAD').code).toBe(0);
    expect(a.stdout).toMatch(/^vault\/main\/memories\/2026\/02\/2026-02-13-deploy-notes-[0-9a-f]{6}\.md\n$/);
    expect(a.stdout).not.toBe(b.stdout);
    const merged = filesAt(server);
    expect(merged).toEqual(expect.arrayContaining([`${a.stdout.trim()}`, `${b.stdout.trim()}`]));
    const build = await runCli(['build', '--now', '2026-02-14T06:00:00Z'], { cwd: server, env: ENV });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).not.toContain('error');
    const daily = readText(server, 'vault/main/daily/2026-02-13.md');
    expect(daily).toContain('walrus flag');
    expect(daily).toContain('narwhal flag');
  });

  it('a memory both clones edited holds conflict markers after the merge: reported with path:line, in no summary or search, never committed', async () => {
    const { laptop, server } = twoClones();
    const file = 'vault/main/memories/2026-02-10-plan.md';
    writeFileSync(
      path.join(laptop, file),
      memory({ date: '2026-02-10T09:00:00Z', title: 'Plan', body: 'Planned the billing rewrite with the walrus team.' }),
    );
    writeFileSync(
      path.join(server, file),
      memory({ date: '2026-02-10T09:00:00Z', title: 'Plan', body: 'Planned the billing rewrite with the narwhal team.' }),
    );
    commitAll(laptop, 'laptop edit');
    commitAll(server, 'server edit');
    git(server, 'fetch', '-q', laptop, 'main');
    expect(gitStatus(server, 'merge', '--no-edit', 'FETCH_HEAD').code).not.toBe(0);
    const text = readText(server, file);
    const line = text.split('\n').findIndex((l) => l.startsWith('<<<<<<< ')) + 1;
    expect(line).toBeGreaterThan(4); // in the body: the frontmatter is the same on both sides

    // The documented procedure: the build names the file, and git's own check lists the markers.
    const build = await runCli(['build', '--no-commit', '--now', '2026-02-14T06:00:00Z'], { cwd: server, env: ENV });
    expect(build.code).toBe(0);
    expect(build.stderr).toContain(`main/memories/2026-02-10-plan.md:${line}:1 error git conflict markers`);
    expect(build.stderr).toContain('[memory/conflict-markers]');
    expect(build.stdout).toContain('1 invalid file(s) skipped');
    expect(readText(server, 'vault/main/UPLOAD_PACKAGE.md')).not.toMatch(/walrus|narwhal|<<<<<<<|>>>>>>>/);
    const check = gitStatus(server, 'diff', '--check');
    expect(check.code).not.toBe(0);
    expect(check.stdout).toContain(`${file}:${line}: leftover conflict marker`);
    const search = await runCli(['search', 'walrus', '--json'], { cwd: server, env: ENV });
    expect(JSON.parse(search.stdout).hits ?? []).toEqual([]);

    // Finish the merge without this memory (as a person who has not resolved it yet), then let a build crash after
    // writing so the next one runs the recovery scan, which commits every changed markdown file under the vault.
    git(server, 'checkout', '--ours', '--', file);
    git(server, 'add', 'vault');
    git(server, 'commit', '-q', '--no-edit');
    writeFileSync(path.join(server, file), text);
    writeFileSync(
      path.join(server, 'vault/main/memories/2026-02-13-fresh.md'),
      memory({ date: '2026-02-13T09:00:00Z', body: 'A fresh memory, so the build writes a daily.' }),
    );
    const crashed = await runCli(['build', '--now', '2026-02-14T06:00:00Z'], {
      cwd: server,
      env: { ...ENV, MEMVAULT_TEST_CRASH_AFTER: 'write' },
    });
    expect(crashed.code).toBe(128);
    const recovered = await runCli(['build', '--now', '2026-02-14T06:00:00Z'], { cwd: server, env: ENV });
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stdout).toContain('committed');
    expect(git(server, 'show', `HEAD:${file}`)).not.toContain('<<<<<<<');
    expect(readText(server, file)).toBe(text); // left for the person to resolve
  });
});
