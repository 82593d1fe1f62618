import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, createProject, memory, removeProject, runCli } from '../helpers/project.js';

/**
 * Nothing is written outside the repository. A vault is a shared repository,
 * so its folders can be symbolic links committed by anyone
 * (`vault/main/memories/2026 -> /tmp/elsewhere`): `add`, `ingest`, the MCP
 * `add_memory` tool and `build` must refuse to write through them, and
 * `vault:` in memory.config.yaml must stay inside the project. Each project
 * here is a fresh `git clone` of a repository where the link is committed,
 * run with the real CLI; the folder the link points to holds a canary file
 * and must be byte for byte as before.
 */

const NOW = '2026-11-27T10:00:00Z';
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach(removeProject));

const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** A folder outside every project, with one canary file: what the tests check nothing was written to. */
function outsideFolder(): string {
  const dir = tempDir('memvault-outside-');
  writeFileSync(path.join(dir, 'canary.txt'), 'untouched\n');
  return dir;
}

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });

/**
 * A project whose `links` (project-relative path -> where it points) are
 * committed to git, then cloned: the links come out of the repository the
 * way a teammate's pull request would bring them. Returns the clone.
 */
function clonedProject(files: Record<string, string>, links: Record<string, string>, config = 'timezone: UTC\n'): string {
  const source = createProject(files, config);
  dirs.push(source);
  for (const [link, to] of Object.entries(links)) {
    execFileSync('mkdir', ['-p', path.dirname(path.join(source, link))]);
    symlinkSync(to, path.join(source, link));
  }
  git(source, 'init', '-q', '-b', 'main');
  git(source, 'add', '-A');
  git(source, 'commit', '-q', '-m', 'a vault with a linked folder');
  const clone = tempDir('memvault-clone-');
  git(clone, 'clone', '-q', source, '.');
  for (const link of Object.keys(links)) expect(git(clone, 'ls-files', '-s', link)).toMatch(/^120000 /); // committed as a link
  return clone;
}

/** The real CLI in a child process, its clock pinned. */
const cli = (args: string[], options: { cwd: string }) => runCli(args, { ...options, env: { MEMVAULT_NOW: NOW } });

/** Every entry under `root` but `.git` and `.memvault` (path -> content, or where a link points); links are not followed. */
function tree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (child === '.git' || child === '.memvault') continue;
      const absolute = path.join(root, child);
      if (entry.isSymbolicLink()) out.set(child, `-> ${readlinkSync(absolute)}`);
      else if (entry.isDirectory()) {
        out.set(`${child}/`, '');
        walk(child);
      } else out.set(child, readFileSync(absolute, 'utf8'));
    }
  };
  walk('');
  return out;
}

function expectUntouched(outside: string): void {
  expect([...tree(outside).keys()]).toEqual(['canary.txt']);
  expect(readFileSync(path.join(outside, 'canary.txt'), 'utf8')).toBe('untouched\n');
}

describe('a committed link under memories/ that leads outside', () => {
  it('add refuses, naming the link and what to do; nothing is written outside or inside', async () => {
    const outside = outsideFolder();
    const root = clonedProject(
      { 'vault/main/memories/2026-01-02-old.md': memory({ date: '2026-01-02', body: 'Old.' }) },
      {
        'vault/main/memories/2026': outside,
      },
    );
    const before = tree(root);
    const result = await cli(['add', 'Deploys need a green staging run.'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`\`vault/main/memories/2026\` is a symbolic link to \`${outside}\`, outside the project`);
    expect(result.stderr).toMatch(/hint: memvault writes only inside the project folder: replace the link `vault\/main\/memories\/2026`/);
    expect(result.stderr).toContain('[project/outside]');
    expect(result.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    expectUntouched(outside);
    expect(tree(root)).toEqual(before);
  });

  it('ingest refuses the memory of a session dated into the linked year', async () => {
    const outside = outsideFolder();
    const root = clonedProject(
      { 'notes/standup.md': readFileSync(path.join(FIXTURES, 'ingest-markdown/2026-02-10-standup-notes.md'), 'utf8') },
      {
        'vault/main/memories/2026': outside,
      },
    );
    const result = await cli(['ingest', 'notes/standup.md'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`vault/main/memories/2026` is a symbolic link');
    expect(result.stderr).toContain('[project/outside]');
    expectUntouched(outside);
  });

  it('the MCP add_memory tool answers an error and writes nothing outside', async () => {
    const outside = outsideFolder();
    const root = clonedProject({}, { 'vault/main/memories/2026': outside });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('MEMVAULT_')) env[key] = value;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: root,
      env: { ...env, MEMVAULT_NOW: NOW, NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'memvault-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const answer = (await client.callTool({ name: 'add_memory', arguments: { text: 'The release train leaves on Tuesdays.' } })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect(answer.isError).toBe(true);
      expect(answer.content[0]!.text).toContain('`vault/main/memories/2026` is a symbolic link');
      expect(answer.content[0]!.text).not.toContain('internal error');
    } finally {
      await client.close();
    }
    expectUntouched(outside);
  });

  it('ingest refuses a transcripts folder linked outside (Claude Code sessions write their transcript there)', async () => {
    const outside = outsideFolder();
    const root = clonedProject(
      { 'session.jsonl': readFileSync(path.join(FIXTURES, 'ingest-claude-code/session.jsonl'), 'utf8') },
      {
        'vault/main/transcripts': outside,
      },
    );
    const result = await cli(['ingest', 'session.jsonl'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`vault/main/transcripts` is a symbolic link');
    expectUntouched(outside);
  });

  it('a link to another folder inside the repository is refused too: the build never reads through links, the memory would be lost', async () => {
    const root = clonedProject({ 'elsewhere/keep.md': 'kept\n' }, { 'vault/main/memories/2026': '../../../elsewhere' });
    const result = await cli(['add', 'Deploys need a green staging run.'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`vault/main/memories/2026` is a symbolic link (to ');
    expect(result.stderr).toContain('[vault/linked-folder]');
    expect(readdirSync(path.join(root, 'elsewhere'))).toEqual(['keep.md']);
  });

  it('without links, add writes as before (the check refuses only links)', async () => {
    const root = clonedProject({ 'vault/main/memories/2026-01-02-old.md': memory({ date: '2026-01-02', body: 'Old.' }) }, {});
    const result = await cli(['add', 'Deploys need a green staging run.'], { cwd: root });
    expect(result.code).toBe(0);
    // New names end with six hex digits of the file's hash (two clones never write the same name).
    expect(readdirSync(path.join(root, 'vault/main/memories/2026/11'))).toEqual([
      expect.stringMatching(/^2026-11-27-deploys-need-a-green-staging-run-[0-9a-f]{6}\.md$/),
    ]);
  });
});

describe('build with a stream folder linked outside', () => {
  const files = { 'notes.md': 'a project file\n' };

  it('a linked stream folder: refused before anything is written, outside or inside', async () => {
    const outside = outsideFolder();
    // The stream's memories live outside: the loader skips the linked folder, the build would still write its package there.
    const root = clonedProject(files, { 'vault/main': outside }, 'timezone: UTC\nstreams:\n  main: {}\n');
    const before = tree(root);
    const result = await cli(['build'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`\`vault/main\` is a symbolic link to \`${outside}\`, outside the project`);
    expect(result.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    expectUntouched(outside);
    expect(tree(root)).toEqual(before);
  });

  it('a linked folder the build writes into (daily/): refused, nothing written outside', async () => {
    const outside = outsideFolder();
    const root = clonedProject(
      { 'vault/main/memories/2026-11-20-deploy.md': memory({ date: '2026-11-20', body: 'We moved the deploy to Tuesdays.' }) },
      { 'vault/main/daily': outside },
    );
    const result = await cli(['build', '--no-commit'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('`vault/main/daily` is a symbolic link');
    expect(result.stderr).toContain('[project/outside]');
    expectUntouched(outside);
  });

  it('a vault folder linked outside: add and build refuse', async () => {
    const outside = outsideFolder();
    const root = clonedProject(files, { vault: outside });
    for (const args of [['add', 'hello there'], ['build']]) {
      const result = await cli(args, { cwd: root });
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(`\`vault\` is a symbolic link to \`${outside}\`, outside the project`);
    }
    expectUntouched(outside);
  });

  it('a .memvault state folder linked outside: every command refuses before its caches or locks are written', async () => {
    const outside = outsideFolder();
    const root = clonedProject(files, { '.memvault': outside });
    for (const args of [['build'], ['add', 'hello there']]) {
      const result = await cli(args, { cwd: root });
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain(`\`.memvault\` is a symbolic link to \`${outside}\``);
    }
    expectUntouched(outside);
  });
});

describe('vault: in memory.config.yaml stays inside the project', () => {
  const everyWriter = [['add', 'hello there'], ['build'], ['ingest', 'notes.md']];
  const cases = [
    { vault: '../x', reason: 'leads out of the project folder', commands: everyWriter },
    { vault: 'vault/../../x', reason: 'leads out of the project folder', commands: [['add', 'hello there']] },
    { vault: '__ABSOLUTE__', reason: 'is an absolute path', commands: everyWriter },
  ];
  for (const c of cases) {
    it(`\`vault: ${c.vault}\` is a config error at its line and column; ${c.commands.map((a) => a[0]).join(', ')} write nothing`, async () => {
      const parent = tempDir('memvault-parent-');
      const root = path.join(parent, 'project');
      const absolute = path.join(parent, 'abs');
      const vault = c.vault === '__ABSOLUTE__' ? absolute : c.vault;
      execFileSync('mkdir', ['-p', root]);
      writeFileSync(path.join(root, 'memory.config.yaml'), `timezone: UTC\nvault: ${vault}\n`);
      writeFileSync(path.join(root, 'notes.md'), '---\ndate: 2026-02-10\n---\nStandup notes.\n');
      git(root, 'init', '-q');
      for (const args of c.commands) {
        const result = await cli(args, { cwd: root });
        expect(result.code, args[0]).toBe(1);
        expect(result.stderr).toContain(`memory.config.yaml:2:8 error \`vault\`: \`${vault}\` ${c.reason} (hint: set \`vault:\``);
        expect(result.stderr).toContain('[config/vault]');
      }
      expect(readdirSync(parent).sort()).toEqual(['project']);
    });
  }

  it('a relative vault inside the project is fine, also written with ./ or a .. that stays inside', async () => {
    const root = createProject({}, 'timezone: UTC\nvault: ./data/../memory-vault\n');
    dirs.push(root);
    const result = await cli(['add', 'hello there'], { cwd: root });
    expect(result.code).toBe(0);
    expect(readdirSync(path.join(root, 'memory-vault/main/memories/2026/11'))).toHaveLength(1);
  });
});

describe('temporary files are created, never opened through a link at their name', () => {
  // The names are `.<name>.<pid>.<n>.tmp` and `.memvault-new.<pid>.<n>.tmp`, n counting from 0 in each process:
  // links planted at the first names of this process must be replaced, not written through.
  it('writeFileAtomic and the memory writer leave a file a planted link points to untouched', async () => {
    const { writeFileAtomic } = await import('../../src/util/atomic.js');
    const { writeNewMemory } = await import('../../src/ingest/writer.js');
    const outside = outsideFolder();
    const root = tempDir('memvault-temp-');
    const dir = path.join(root, 'vault/main/memories/2026/11');
    execFileSync('mkdir', ['-p', dir]);
    for (let n = 0; n < 4; n++) {
      symlinkSync(path.join(outside, 'canary.txt'), path.join(root, `.notes.md.${process.pid}.${n}.tmp`));
      symlinkSync(path.join(outside, 'canary.txt'), path.join(dir, `.memvault-new.${process.pid}.${n}.tmp`));
    }
    writeFileAtomic(path.join(root, 'notes.md'), 'mine\n');
    const written = writeNewMemory(path.join(root, 'vault'), 'main', '2026-11-27', 'note', '---\ndate: 2026-11-27\n---\nA note.\n');
    expect(readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('mine\n');
    expect(readFileSync(path.join(root, 'vault', written), 'utf8')).toContain('A note.');
    expectUntouched(outside);
  });
});

describe('which vault: values are inside the project', () => {
  it('refuses absolute (POSIX and Windows) and climbing paths at their place, accepts relative ones that stay inside', async () => {
    const { validateConfig } = await import('../../src/config/load.js');
    const refused = ['..', '../x', 'a/../../x', '/srv/vault', 'C:\\vault', 'C:/vault', '\\\\server\\share', '..\\x'];
    for (const vault of refused) {
      const { errors } = validateConfig(`timezone: UTC\nvault: '${vault}'\n`, 'memory.config.yaml');
      expect(
        errors.map((e) => `${e.rule} ${e.line}:${e.column}`),
        vault,
      ).toEqual(['config/vault 2:8']);
    }
    for (const vault of ['vault', './vault', 'a/../vault', '.', 'notes/memory', '..vault']) {
      const { config, errors } = validateConfig(`timezone: UTC\nvault: '${vault}'\n`, 'memory.config.yaml');
      expect(errors, vault).toEqual([]);
      expect(config.vault).toBe(vault);
    }
  });
});
