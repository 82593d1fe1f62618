import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usageFactor, usageBoost } from '../../src/usage/boost.js';
import { formatUsageFile, parseUsageFile, usageTotals, type UsageFile } from '../../src/usage/codec.js';
import { foldUsage, usageKey } from '../../src/usage/fold.js';
import { readUsageLog, recordSources, recordUsage } from '../../src/usage/log.js';
import { rankUsage } from '../../src/usage/rank.js';
import { readUsage } from '../../src/usage/read.js';
import type { Memory, StreamState } from '../../src/vault/model.js';
import { memoryAt } from '../helpers/memory-object.js';

/**
 * Usage counts: the log, the fold into `usage.json`, the file's format read
 * back, and two clones whose usage files merge in a real git repository
 * without a conflict and without losing or double-counting a use.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-usage-'));
  dirs.push(dir);
  return dir;
}

const streamOf = (name: string, memories: Memory[]): StreamState => ({ name, memories, summaries: new Map() });

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.org',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.org',
    },
  });
}

describe('usage.json format', () => {
  const file: UsageFile = new Map([
    ['2026/02/auth', new Map([['aaaa1111', { count: 7, last: '2026-11-20T10:00:00.000Z' }]])],
    [
      'daily/2026-02-13.md',
      new Map([
        ['bbbb2222', { count: 1, last: '2026-11-22T09:30:00.000Z' }],
        ['aaaa1111', { count: 2, last: '2026-11-21T08:00:00.000Z' }],
      ]),
    ],
  ]);

  it('is valid JSON, one line per id, sorted, and reads back equal', () => {
    const text = formatUsageFile(file);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('{');
    expect(lines.at(-1)).toBe('}');
    expect(lines).toHaveLength(2 + 2 + 1);
    expect(lines[1]).toMatch(/^"2026\/02\/auth": /);
    expect(lines[2]).toBe(
      '"daily/2026-02-13.md": {"aaaa1111": [2, "2026-11-21T08:00:00.000Z"], "bbbb2222": [1, "2026-11-22T09:30:00.000Z"]},',
    );
    expect(() => JSON.parse(text)).not.toThrow();
    expect(parseUsageFile(text)).toEqual(file);
    expect(formatUsageFile(parseUsageFile(text))).toBe(text);
  });

  it('reads a file a union merge left with one id twice: per clone the higher count, then summed', () => {
    const text = formatUsageFile(file);
    const [head, ...rest] = text.split('\n');
    const merged = [
      head,
      '"2026/02/auth": {"aaaa1111": [5, "2026-11-19T00:00:00.000Z"], "cccc3333": [4, "2026-11-23T00:00:00.000Z"]},',
      ...rest,
    ].join('\n');
    expect(() => JSON.parse(merged)).not.toThrow();
    const totals = usageTotals(parseUsageFile(merged));
    expect(totals.get('2026/02/auth')).toEqual({ count: 7 + 4, lastUsed: '2026-11-23T00:00:00.000Z' });
    expect(totals.get('daily/2026-02-13.md')).toEqual({ count: 3, lastUsed: '2026-11-22T09:30:00.000Z' });
  });

  it('skips damaged lines instead of failing', () => {
    expect(usageTotals(parseUsageFile('{\n"a": {"r": [2, "t"]},\n"b": {oops},\n"c": [1],\n}\n'))).toEqual(
      new Map([['a', { count: 2, lastUsed: 't' }]]),
    );
  });
});

describe('log and fold', () => {
  it('keys memories by id and summaries by their path in the stream', () => {
    expect(usageKey('main/memories/2026/02/x.md')).toBe('2026/02/x');
    expect(usageKey('main/archive/2026-Q1/2026/02/x.md')).toBe('2026/02/x');
    expect(usageKey('main/weekly/2026-W07.md')).toBe('weekly/2026-W07.md');
    expect(usageKey('main/memories/custom.md', new Map([['main/memories/custom.md', 'my-id']]))).toBe('my-id');
  });

  it('folds each use once, however often the fold runs, and reads the unfolded tail too', () => {
    const root = tempDir();
    const vaultDir = path.join(root, 'vault');
    mkdirSync(path.join(vaultDir, 'main'), { recursive: true });
    const streams = [streamOf('main', [memoryAt('main', 'a'), memoryAt('main', 'b'), memoryAt('main', 'c', 'main/memories/custom.md')])];
    recordSources(
      root,
      'main',
      ['main/memories/a.md', 'main/memories/b.md', 'main/memories/a.md'],
      'cli:search',
      new Date('2026-11-20T10:00:00Z'),
    );
    recordUsage(root, [{ stream: 'main', path: 'main/memories/custom.md' }], 'mcp:zoom', new Date('2026-11-20T11:00:00Z'));
    recordSources(
      root,
      'main',
      ['main/memories/a.md', 'main/daily/2026-02-13.md', 'not-a-file'],
      'cli:context',
      new Date('2026-11-21T10:00:00Z'),
    );
    expect(readUsageLog(root).events).toHaveLength(5);
    // Before any fold, readUsage already sees the log.
    expect(readUsage(root, 'main', vaultDir).get('a')).toEqual({ count: 2, lastUsed: '2026-11-21T10:00:00.000Z' });

    expect(foldUsage(root, vaultDir, streams)).toEqual(['main/usage.json']);
    const first = readFileSync(path.join(vaultDir, 'main/usage.json'), 'utf8');
    expect(foldUsage(root, vaultDir, streams)).toEqual([]);
    expect(readFileSync(path.join(vaultDir, 'main/usage.json'), 'utf8')).toBe(first);
    const counts = readUsage(root, 'main', vaultDir);
    expect(Object.fromEntries([...counts].map(([id, u]) => [id, u.count]))).toEqual({ a: 2, b: 1, c: 1, 'daily/2026-02-13.md': 1 });

    // Served after a fold: counted by the next one, once; the fold empties the log.
    recordSources(root, 'main', ['main/memories/b.md'], 'cli:zoom', new Date('2026-11-22T00:00:00Z'));
    expect(foldUsage(root, vaultDir, streams)).toEqual(['main/usage.json']);
    expect(readUsageLog(root).events).toEqual([]);
    expect(readUsage(root, 'main', vaultDir).get('b')).toEqual({ count: 2, lastUsed: '2026-11-22T00:00:00.000Z' });
  });

  it('ranks most and least used, and boosts used documents a little, at most ×1.25', () => {
    const usage = new Map([
      ['a', { count: 7, lastUsed: '2026-11-20' }],
      ['b', { count: 1, lastUsed: '2026-11-21' }],
      ['weekly/2026-W07.md', { count: 3, lastUsed: '2026-11-19' }],
    ]);
    const ranked = rankUsage(usage, ['a', 'b', 'c', 'd'], 2);
    expect(ranked.most_used.map((u) => u.id)).toEqual(['a', 'weekly/2026-W07.md']);
    expect(ranked.least_used.map((u) => [u.id, u.count])).toEqual([
      ['c', 0],
      ['d', 0],
    ]);
    expect(usageFactor(0)).toBe(1);
    expect(usageFactor(1)).toBeCloseTo(1.05);
    expect(usageFactor(7)).toBeCloseTo(1.15);
    expect(usageFactor(10_000)).toBe(1.25);
    const boost = usageBoost(new Map([['main', usage]]))!;
    expect(boost('main/memories/a.md')).toBeCloseTo(1.15);
    expect(boost('main/memories/zzz.md')).toBe(1);
    expect(boost('other/memories/a.md')).toBe(1);
    expect(usageBoost(new Map([['main', new Map()]]))).toBeUndefined();
  });
});

describe('two clones', () => {
  it("merge their usage files with git's union driver: no conflict, every use counted once", () => {
    const origin = tempDir();
    git(origin, 'init', '-q', '--bare', '-b', 'main');
    const seed = tempDir();
    git(seed, 'init', '-q', '-b', 'main');
    git(seed, 'config', 'commit.gpgsign', 'false');
    writeFileSync(path.join(seed, '.gitattributes'), 'vault/*/usage.json merge=union\n');
    writeFileSync(path.join(seed, '.gitignore'), '.memvault/\n');
    mkdirSync(path.join(seed, 'vault/main'), { recursive: true });
    writeFileSync(path.join(seed, 'vault/main/.keep'), '');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'init');
    git(seed, 'push', '-q', origin, 'main');
    const streams = [
      streamOf(
        'main',
        ['a', 'b', 'c', 'd'].map((id) => memoryAt('main', id)),
      ),
    ];
    const clone = (name: string): string => {
      const dir = path.join(tempDir(), name);
      git(path.dirname(dir), 'clone', '-q', origin, name);
      git(dir, 'config', 'commit.gpgsign', 'false');
      return dir;
    };
    const use = (dir: string, ids: string[], at: string): void =>
      recordSources(
        dir,
        'main',
        ids.map((id) => `main/memories/${id}.md`),
        'cli:search',
        new Date(at),
      );
    const foldAndCommit = (dir: string, message: string): void => {
      foldUsage(dir, path.join(dir, 'vault'), streams);
      git(dir, 'add', 'vault/main/usage.json');
      git(dir, 'commit', '-q', '-m', message);
    };

    // A shared history first: clone A counts, pushes; B pulls it.
    const a = clone('a');
    const b = clone('b');
    use(a, ['a', 'b'], '2026-11-20T10:00:00Z');
    foldAndCommit(a, 'usage a1');
    git(a, 'push', '-q', 'origin', 'main');
    git(b, 'pull', '-q', '--no-rebase', 'origin', 'main');
    // Then both count, on the same ids and on different ones, and both commit.
    use(a, ['a', 'c'], '2026-11-21T10:00:00Z');
    use(a, ['a'], '2026-11-21T11:00:00Z');
    foldAndCommit(a, 'usage a2');
    use(b, ['a', 'b', 'd'], '2026-11-22T10:00:00Z');
    foldAndCommit(b, 'usage b1');
    git(a, 'push', '-q', 'origin', 'main');
    git(b, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');

    expect(git(b, 'status', '--porcelain')).toBe('');
    const merged = readFileSync(path.join(b, 'vault/main/usage.json'), 'utf8');
    expect(merged).not.toMatch(/^(<<<<<<<|>>>>>>>|=======)/m);
    expect(() => JSON.parse(merged)).not.toThrow();
    const counts = (dir: string) =>
      Object.fromEntries([...readUsage(dir, 'main', path.join(dir, 'vault'))].map(([id, u]) => [id, u.count]));
    // a: 1 + 2 (clone A) + 1 (clone B); b: 1 (A) + 1 (B); c: 1 (A); d: 1 (B).
    expect(counts(b)).toEqual({ a: 4, b: 2, c: 1, d: 1 });
    // The next fold writes the merged file back one line per id, with the same totals.
    foldUsage(b, path.join(b, 'vault'), streams);
    const tidy = readFileSync(path.join(b, 'vault/main/usage.json'), 'utf8');
    expect(tidy.split('\n').filter((line) => line.startsWith('"a"'))).toHaveLength(1);
    expect(counts(b)).toEqual({ a: 4, b: 2, c: 1, d: 1 });
  });
});
