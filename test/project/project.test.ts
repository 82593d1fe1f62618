import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { validateConfig } from '../../src/config/load.js';
import { findProjectRoot, findRoot } from '../../src/config/file.js';
import type { ArchiveMove } from '../../src/pipeline/calendar/archive.js';
import { detectInstallSource, gitUrlSpec, sourceFromResolved, unreachableFromGitHub } from '../../src/project/install-source.js';
import {
  addBuild,
  pendingCommit,
  pendingPaths,
  pinPending,
  readPending,
  settlePending,
  withPending,
  type PendingWork,
} from '../../src/pipeline/pending.js';
import { checkDeclaredStream, declareStream } from '../../src/project/streams.js';
import { renderUncommitted } from '../../src/cli/render/uncommitted.js';
import { classifyChanges } from '../../src/project/uncommitted.js';
import { removeProject } from '../helpers/project.js';

/** The project layer in process: discovery, streams, install source, the record of uncommitted work. */

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-project-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach(removeProject));

describe('project discovery', () => {
  it('finds the config here or above; refuses a folder without one and a missing folder', () => {
    const root = tempDir();
    writeFileSync(path.join(root, 'memory.config.yaml'), 'timezone: UTC\n');
    mkdirSync(path.join(root, 'vault/main/memories'), { recursive: true });
    expect(findRoot(path.join(root, 'vault/main/memories'))).toBe(root);
    expect(findProjectRoot(root)).toBe(root);

    const outside = tempDir();
    expect(findProjectRoot(outside)).toBeUndefined();
    expect(() => findRoot(outside)).toThrow(/not a memvault project \(no memory\.config\.yaml here or above\): run `memvault init`/);
    expect(() => findRoot(path.join(outside, 'typo'))).toThrow(expect.objectContaining({ rule: 'project/folder' }));
  });

  it('refuses a project whose .memvault is a file, naming it and what to do', () => {
    const root = tempDir();
    writeFileSync(path.join(root, 'memory.config.yaml'), 'timezone: UTC\n');
    expect(findRoot(root)).toBe(root);
    writeFileSync(path.join(root, '.memvault'), 'not a folder\n');
    expect(() => findRoot(root)).toThrow(
      expect.objectContaining({
        rule: 'project/state',
        message: `\`${path.join(root, '.memvault')}\` is a file, not a folder`,
        hint: expect.stringContaining('move or rename'),
      }),
    );
  });
});

describe('streams', () => {
  const config = validateConfig('streams:\n  main: { calendar: true }\n  agent: { calendar: false, waterfall: true }\n', 'm').config;

  it('accepts a declared stream, refuses another and names the declared ones, allows it when asked', () => {
    expect(checkDeclaredStream(config, 'agent', false)).toBe(true);
    expect(() => checkDeclaredStream(config, 'nope', false)).toThrow(
      expect.objectContaining({ rule: 'add/stream', message: expect.stringContaining('streams: main, agent') }),
    );
    expect(checkDeclaredStream(config, 'nope', true)).toBe(false);
    expect(() => checkDeclaredStream(config, 'No Pe', true)).toThrow(expect.objectContaining({ rule: 'cli/stream' }));
  });

  it('declares a stream in the config file, keeping its comments; a config without streams keeps its default stream', () => {
    const root = tempDir();
    const text = '# my vault\ntimezone: UTC # where I live\nstreams:\n  main: { calendar: true } # the default\n';
    writeFileSync(path.join(root, 'memory.config.yaml'), text);
    declareStream(root, validateConfig(text, 'm').config, 'research');
    const after = readFileSync(path.join(root, 'memory.config.yaml'), 'utf8');
    expect(after).toContain('# my vault');
    expect(after).toContain('# where I live');
    expect(after).toContain('# the default');
    expect(Object.keys(validateConfig(after, 'm').config.streams)).toEqual(['main', 'research']);

    const bare = tempDir();
    writeFileSync(path.join(bare, 'memory.config.yaml'), 'timezone: UTC\n');
    declareStream(bare, validateConfig('timezone: UTC\n', 'm').config, 'research');
    const streams = parseYaml(readFileSync(path.join(bare, 'memory.config.yaml'), 'utf8')).streams;
    expect(Object.keys(streams)).toEqual(['main', 'research']);
  });
});

describe('install source', () => {
  const SHA = 'a'.repeat(40);

  it('turns git remotes into npm specs', () => {
    expect(gitUrlSpec('https://github.com/ana/memvault.git')).toBe('github:ana/memvault');
    expect(gitUrlSpec('git@github.com:ana/memvault.git')).toBe('github:ana/memvault');
    expect(gitUrlSpec('git+ssh://git@github.com/ana/memvault.git')).toBe('github:ana/memvault');
    expect(gitUrlSpec('https://gitlab.com/ana/memvault.git')).toBe('git+https://gitlab.com/ana/memvault.git');
    expect(gitUrlSpec('git@gitlab.com:ana/memvault.git')).toBe('git+ssh://git@gitlab.com/ana/memvault.git');
    expect(gitUrlSpec('/srv/git/memvault.git')).toBe('git+file:///srv/git/memvault.git');
    expect(gitUrlSpec('../memvault', '/home/ana/work')).toBe('git+file:///home/ana/memvault');
  });

  it('reads what npm resolved: a git commit, a registry version, a local tarball (with a note)', () => {
    expect(sourceFromResolved(`git+ssh://git@github.com/ana/memvault.git#${SHA}`, '0.1.0')).toEqual({
      spec: `github:ana/memvault#${SHA}`,
      kind: 'git',
    });
    expect(sourceFromResolved(`git+file:///srv/memvault#${SHA}`, '0.1.0')).toEqual({
      spec: `git+file:///srv/memvault#${SHA}`,
      kind: 'git',
    });
    expect(sourceFromResolved('https://registry.npmjs.org/memvault/-/memvault-0.3.1.tgz', '0.3.1')).toEqual({
      spec: 'memvault@0.3.1',
      kind: 'registry',
    });
    const tarball = sourceFromResolved('file:/tmp/memvault-0.1.0.tgz', '0.1.0');
    expect(tarball).toMatchObject({ spec: '/tmp/memvault-0.1.0.tgz', kind: 'tarball' });
    expect(tarball.note).toMatch(/--install-from/);
  });

  it('an installed package: from the hidden lockfile next to it', () => {
    const prefix = tempDir();
    const dir = path.join(prefix, 'lib/node_modules/memvault');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memvault', version: '0.1.0' }));
    expect(detectInstallSource(dir)).toMatchObject({ spec: 'memvault@0.1.0', kind: 'unknown' });
    writeFileSync(
      path.join(prefix, 'lib/node_modules/.package-lock.json'),
      JSON.stringify({
        packages: { 'node_modules/memvault': { version: '0.1.0', resolved: `git+https://github.com/ana/memvault.git#${SHA}` } },
      }),
    );
    expect(detectInstallSource(dir)).toEqual({ spec: `github:ana/memvault#${SHA}`, kind: 'git' });
  });

  it('a stamped install-source.json counts only where npm recorded no better source: a registry install stays registry', () => {
    const STAMPED = 'b'.repeat(40);
    const prefix = tempDir();
    const dir = path.join(prefix, 'lib/node_modules/memvault');
    mkdirSync(path.join(dir, 'dist'), { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memvault', version: '0.3.1' }));
    // The registry's tarball was packed from a checkout, so it carries the stamp of that checkout's commit.
    writeFileSync(
      path.join(dir, 'dist/install-source.json'),
      JSON.stringify({ url: 'https://github.com/ana/memvault.git', commit: STAMPED, dirty: false }),
    );
    const lock = (resolved: string) =>
      writeFileSync(
        path.join(prefix, 'lib/node_modules/.package-lock.json'),
        JSON.stringify({ packages: { 'node_modules/memvault': { version: '0.3.1', resolved } } }),
      );
    lock('https://registry.npmjs.org/memvault/-/memvault-0.3.1.tgz');
    expect(detectInstallSource(dir)).toEqual({ spec: 'memvault@0.3.1', kind: 'registry' });
    // A git install: what npm resolved, not the stamp.
    lock(`git+ssh://git@github.com/ana/memvault.git#${SHA}`);
    expect(detectInstallSource(dir)).toEqual({ spec: `github:ana/memvault#${SHA}`, kind: 'git' });
    // A local tarball, which npm records only as a file: the stamp names its git source.
    lock('file:/tmp/memvault-0.3.1.tgz');
    expect(detectInstallSource(dir)).toMatchObject({ spec: `github:ana/memvault#${STAMPED}`, kind: 'git' });
  });

  it('a release install: the release URL stamped into the tarball (scripts/pack-release.mjs --release-url), over its git source', () => {
    const prefix = tempDir();
    const dir = path.join(prefix, 'lib/node_modules/memvault');
    mkdirSync(path.join(dir, 'dist'), { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memvault', version: '0.2.0' }));
    const release = 'https://github.com/ana/memvault/releases/download/v0.2.0/memvault-0.2.0.tgz';
    writeFileSync(
      path.join(dir, 'dist/install-source.json'),
      JSON.stringify({ url: 'https://github.com/ana/memvault.git', commit: SHA, dirty: false, release }),
    );
    // Installed from the URL itself, or from the downloaded file: npm records a tarball either way.
    for (const resolved of [release, 'file:/home/ana/Downloads/memvault-0.2.0.tgz']) {
      writeFileSync(
        path.join(prefix, 'lib/node_modules/.package-lock.json'),
        JSON.stringify({ packages: { 'node_modules/memvault': { version: '0.2.0', resolved } } }),
      );
      expect(detectInstallSource(dir)).toMatchObject({ spec: release, kind: 'release' });
    }
    expect(unreachableFromGitHub(release)).toBeUndefined();
  });

  it('tells the sources a GitHub-hosted runner cannot reach: paths, file and git+file URLs, loopback', () => {
    for (const spec of [
      `git+file:///home/ana/memvault#${SHA}`,
      'file:/tmp/memvault-0.1.0.tgz',
      '/tmp/memvault-0.1.0.tgz',
      './memvault-0.1.0.tgz',
      '../memvault',
      'memvault-0.1.0.tgz',
      'C:\\Users\\ana\\memvault-0.1.0.tgz',
      'http://127.0.0.1:8080/memvault-0.1.0.tgz',
      'http://localhost/memvault-0.1.0.tgz',
    ])
      expect(unreachableFromGitHub(spec), spec).toMatch(/on this machine/);
    for (const spec of [
      'https://github.com/ana/memvault/releases/download/v0.2.0/memvault-0.2.0.tgz',
      `github:ana/memvault#${SHA}`,
      `git+https://gitlab.com/ana/memvault.git#${SHA}`,
      'git+ssh://git@gitlab.com/ana/memvault.git',
      'memvault@0.3.1',
      'memvault',
    ])
      expect(unreachableFromGitHub(spec), spec).toBeUndefined();
  });

  it('a checkout: its origin and HEAD commit, with a note about uncommitted changes', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'memvault', version: '0.1.0' }));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x');
    const head = git('rev-parse', 'HEAD');
    expect(detectInstallSource(dir)).toMatchObject({
      spec: `git+file://${dir}#${head}`,
      kind: 'checkout',
      note: expect.stringMatching(/no remote/),
    });
    git('remote', 'add', 'origin', 'https://github.com/ana/memvault.git');
    git('add', 'package.json');
    const source = detectInstallSource(dir);
    expect(source).toMatchObject({ spec: `github:ana/memvault#${head}`, kind: 'checkout' });
    expect(source.note).toMatch(/uncommitted changes/);
  });
});

describe('the record of uncommitted work', () => {
  const move = (from: string, to: string): ArchiveMove => ({ stream: 'main', kind: 'memory', id: from, from, to, quarter: '2026-Q1' });
  const hashes: Record<string, string> = { 'main/daily/2026-01-05.md': 'h1', 'index.json': 'h2', 'main/history/daily/x.md': 'h3' };

  it('adds builds (newest hash wins, moves once per source), pins written files, leaves own writes to the build', () => {
    let work: PendingWork = { written: [], historyCopies: [], archived: [] };
    work = addBuild(work, { written: ['main/daily/2026-01-05.md', 'index.json'], historyCopies: [], archived: [] }, (p) => hashes[p]);
    hashes['index.json'] = 'h2b';
    work = addBuild(
      work,
      {
        written: ['index.json'],
        historyCopies: ['main/history/daily/x.md'],
        archived: [move('main/memories/a.md', 'main/archive/2026-Q1/a.md')],
      },
      (p) => hashes[p],
    );
    expect(work.written).toEqual([
      { path: 'index.json', sha256: 'h2b' },
      { path: 'main/daily/2026-01-05.md', sha256: 'h1' },
    ]);
    expect(pendingPaths(work)).toEqual([
      'index.json',
      'main/archive/2026-Q1/a.md',
      'main/daily/2026-01-05.md',
      'main/history/daily/x.md',
      'main/memories/a.md',
    ]);

    // The next committing build rewrote index.json itself: that one is its own, the daily stays pinned to what memvault wrote.
    const commit = pendingCommit(work, ['index.json'])!;
    expect([...commit.pinned]).toEqual([['main/daily/2026-01-05.md', 'h1']]);
    const report = { written: ['index.json'], historyCopies: [] as string[], archived: [] as ArchiveMove[] };
    const all = withPending(report, commit);
    expect(all.written).toEqual(['index.json', 'main/daily/2026-01-05.md']);
    expect(all.archived).toEqual([move('main/memories/a.md', 'main/archive/2026-Q1/a.md')]);
    const selected = pinPending({ paths: ['index.json', 'main/daily/2026-01-05.md', 'main/memories/a.md'], pinned: new Map() }, commit);
    expect(selected.paths).toEqual(['index.json', 'main/memories/a.md']);
    expect(selected.pinned.get('main/daily/2026-01-05.md')).toBe('h1');
    expect(pendingCommit({ written: [], historyCopies: [], archived: [] }, [])).toBeUndefined();
  });

  it('is written by a build with commits off and cleared by one that committed; untouched otherwise', () => {
    const root = tempDir();
    const state = path.join(root, '.memvault');
    mkdirSync(path.join(root, 'vault/main/daily'), { recursive: true });
    writeFileSync(path.join(root, 'vault/main/daily/2026-01-05.md'), 'x');
    const outputs = { written: ['main/daily/2026-01-05.md'], historyCopies: [], archived: [] };
    settlePending(state, path.join(root, 'vault'), outputs, { status: 'not-a-repo' });
    expect(readPending(state).written).toEqual([]);
    settlePending(state, path.join(root, 'vault'), outputs, { status: 'disabled' });
    expect(readPending(state).written).toEqual([
      { path: 'main/daily/2026-01-05.md', sha256: '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881' },
    ]);
    settlePending(state, path.join(root, 'vault'), outputs, null);
    expect(readPending(state).written).toHaveLength(1);
    settlePending(state, path.join(root, 'vault'), { written: [], historyCopies: [], archived: [] }, { status: 'unchanged' });
    expect(readPending(state).written).toEqual([]);
  });

  it("status splits changes into memvault's and the others, with the command for each", () => {
    const changes = classifyChanges(['main/daily/a.md', 'main/memories/b.md'], ['main/daily/a.md'], { vault: 'vault', commits: true });
    expect(changes).toMatchObject({ memvault: ['main/daily/a.md'], other: ['main/memories/b.md'], fix: 'memvault build' });
    expect(classifyChanges([], [], { vault: 'vault', commits: false }).fix).toBe('git add vault && git commit -m "memvault: rollup"');
    const lines = renderUncommitted(changes);
    expect(lines[1]).toContain('commit them with `memvault build`');
    expect(renderUncommitted({ ...changes, memvault: [], other: [] })).toEqual([]);
  });
});
