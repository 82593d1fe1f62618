import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IgnoreRules } from '../../src/git/ignore.js';
import { ObjectReader } from '../../src/git/objects.js';
import { applyDelta } from '../../src/git/pack.js';
import { commitAll, git, gitStatus, initRepo } from './helpers.js';

/**
 * memvault's own object reader (loose objects and packfiles, deltas by
 * offset and by id) and ignore rules, checked object by object and path by
 * path against the real git CLI.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-pack-'));
  initRepo(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A history where the same files change a little in each commit, so git stores most versions as deltas. */
function growHistory(commits: number): void {
  let log = '';
  for (let i = 0; i < commits; i++) {
    log += `Day ${i}: ${'the queue drained and the p99 latency stayed under 250ms; '.repeat(1 + (i % 5))}\n`;
    const month = String(1 + (i % 3)).padStart(2, '0');
    mkdirSync(path.join(dir, 'vault', 'main', 'memories', month), { recursive: true });
    writeFileSync(path.join(dir, 'vault', 'main', 'memories', month, `note-${i}.md`), `---\ndate: 2026-${month}-0${1 + (i % 9)}\n---\nNote ${i}, Zoë's café.\n`);
    writeFileSync(path.join(dir, 'vault', 'main', 'log.md'), log);
    // A file over 64 KiB, so delta copies of the largest size are used too.
    writeFileSync(path.join(dir, 'big.txt'), `${'0123456789abcdef'.repeat(5000)}${i}\n`);
    if (i === 0) writeFileSync(path.join(dir, 'binary.bin'), Buffer.from([0, 255, 1, 254, 0, 0, 7]));
    commitAll(dir, `commit ${i}`);
  }
}

/** Every object id in the repository with its type, and its content as `git cat-file` gives it. */
function allObjects(): { oid: string; type: string; content: Buffer }[] {
  const ids = git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)').trim().split('\n');
  return ids.map((line) => {
    const [oid, type] = line.split(' ') as [string, string];
    return { oid, type, content: execFileSync('git', ['cat-file', type, oid], { cwd: dir, maxBuffer: 1 << 26 }) };
  });
}

function expectSameAsGit(): number {
  const reader = new ObjectReader(path.join(dir, '.git'));
  const objects = allObjects();
  for (const expected of objects) {
    const object = reader.read(expected.oid);
    expect(object.type, expected.oid).toBe(expected.type);
    expect(object.content.equals(expected.content), `${expected.type} ${expected.oid}`).toBe(true);
  }
  reader.packs.close();
  return objects.length;
}

function packedCount(): number {
  return Number(/in-pack: (\d+)/.exec(git(dir, 'count-objects', '-v'))![1]);
}

describe('ObjectReader reads every object as git does', () => {
  it('from loose objects', () => {
    growHistory(4);
    expect(packedCount()).toBe(0);
    expect(expectSameAsGit()).toBeGreaterThan(20);
  });

  it('from a packfile with deltas against earlier offsets (git gc)', () => {
    growHistory(30);
    git(dir, 'gc', '-q', '--aggressive');
    expect(git(dir, 'count-objects', '-v')).toMatch(/^count: 0$/m);
    // The pack really holds deltas: `git verify-pack` lists objects with a delta depth.
    const pack = git(dir, 'rev-parse', '--git-path', 'objects/pack').trim();
    const idx = execFileSync('sh', ['-c', `ls ${pack}/*.idx`], { cwd: dir, encoding: 'utf8' }).trim();
    expect(git(dir, 'verify-pack', '-v', idx)).toMatch(/ [1-9]\d* [0-9a-f]{40}\n/);
    expect(expectSameAsGit()).toBeGreaterThan(100);
  });

  it('from a packfile with deltas naming their base by id, alongside newer loose objects', () => {
    growHistory(20);
    git(dir, '-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f');
    growHistory(2); // loose objects on top of the pack
    expect(packedCount()).toBeGreaterThan(50);
    expect(expectSameAsGit()).toBeGreaterThan(100);
  });

  it('from several packs', () => {
    growHistory(8);
    git(dir, 'repack', '-q', '-d');
    growHistory(8);
    git(dir, 'repack', '-q', '-d');
    const packs = git(dir, 'count-objects', '-v');
    expect(Number(/packs: (\d+)/.exec(packs)![1])).toBe(2);
    expectSameAsGit();
  });

  it.runIf(existsSync('/proc/self/fd'))('holds a pack open only until close() (watch mode commits for hours in one process)', () => {
    growHistory(3);
    git(dir, 'gc', '-q');
    const openPacks = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).endsWith('.pack');
      } catch {
        return false;
      }
    }).length;
    const before = openPacks();
    const reader = new ObjectReader(path.join(dir, '.git'));
    reader.read(git(dir, 'rev-parse', 'HEAD').trim());
    expect(openPacks()).toBe(before + 1);
    reader.close();
    expect(openPacks()).toBe(before);
    // Reading again reopens it.
    reader.read(git(dir, 'rev-parse', 'HEAD~1').trim());
    reader.close();
  });

  it('says which object is missing, and which repository it looked in', () => {
    growHistory(1);
    git(dir, 'gc', '-q');
    const reader = new ObjectReader(path.join(dir, '.git'));
    expect(() => reader.read('0123456789abcdef0123456789abcdef01234567')).toThrow(/git object 0123456789abcdef0123456789abcdef01234567 is missing from .*\.git/);
  });
});

describe('applyDelta', () => {
  it('rejects a delta made for a base of another size', () => {
    // source size 3, target size 1, insert 1 byte
    expect(() => applyDelta(Buffer.from('ab'), Buffer.from([3, 1, 1, 0x41]))).toThrow(/base of 3 bytes/);
  });
});

describe('IgnoreRules agrees with git check-ignore', () => {
  it('on root and nested .gitignore files, negations, folders and info/exclude', () => {
    mkdirSync(path.join(dir, 'vault', 'main', 'history'), { recursive: true });
    mkdirSync(path.join(dir, 'vault', 'scratch'), { recursive: true });
    mkdirSync(path.join(dir, '.git', 'info'), { recursive: true });
    writeFileSync(path.join(dir, '.gitignore'), '*.tmp\n/build/\nvault/scratch/\n!keep.tmp\n');
    writeFileSync(path.join(dir, 'vault', '.gitignore'), 'main/history/\n*.bak\n!important.bak\n');
    writeFileSync(path.join(dir, 'vault', 'main', '.gitignore'), 'drafts/\n');
    writeFileSync(path.join(dir, '.git', 'info', 'exclude'), 'vault/main/private-*.md\n');
    const paths = [
      'vault/main/daily/2026-02-10.md',
      'vault/main/history/daily/2026-02-10-20260217-060000.md',
      'vault/scratch/notes.md',
      'vault/main/notes.tmp',
      'vault/main/keep.tmp',
      'vault/main/old.bak',
      'vault/main/important.bak',
      'vault/main/drafts/idea.md',
      'vault/main/private-diary.md',
      'vault/main/public.md',
      'build/out.md',
      'vault/build/out.md',
      'README.md',
    ];
    const rules = new IgnoreRules(dir, path.join(dir, '.git'));
    for (const file of paths) {
      // Exit status 0: ignored; 1: not ignored.
      const gitSays = gitStatus(dir, 'check-ignore', '-q', '--no-index', file).code === 0;
      expect(rules.isIgnored(file), file).toBe(gitSays);
    }
  });
});
