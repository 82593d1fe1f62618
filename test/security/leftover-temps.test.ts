import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeLeftoverTemps } from '../../src/pipeline/housekeeping.js';
import { commitAll, git, gitConfig, initRepo, shortHistory } from '../git/helpers.js';
import { copyProject, createProject, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { stateRows } from '../helpers/state-store.js';

/**
 * Temporary files of killed writers: a build's (`writeFileAtomic`, also in
 * the committed record's folder), `add`'s (`.memvault-new.<pid>.<n>.tmp`),
 * `consolidate --apply`'s (beside a memory, at any depth) and the state
 * folder's caches'. The next command holding the build lock (a committing
 * build that also finishes a killed build's commit; `memvault redact`)
 * removes those of dead processes everywhere and commits none; a live
 * process's temporary file and a person's file with a similar name stay.
 */

const NOW = '2026-02-16T06:00:00Z';
const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

/** Every file under `dir` (dot files included, `.git` aside), relative. */
function files(dir: string, relative = ''): string[] {
  return readdirSync(path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (child === '.git') return [];
    return entry.isDirectory() ? files(dir, child) : [child];
  });
}

/** A built, committed project with the committed record (built once, copied per test). */
let base: string | undefined;
async function builtProject(): Promise<string> {
  if (!base) {
    base = createProject({ '.gitignore': '.memvault/\n' }, gitConfig());
    roots.push(base);
    initRepo(base);
    commitAll(base, 'setup');
    writeFiles(base, shortHistory('2026-02-09', '2026-02-13').files);
    commitAll(base, 'memories');
    await runCliJson(['build', '--now', NOW, '--json'], { cwd: base });
  }
  const root = copyProject(base);
  roots.push(root);
  return root;
}

/** The temporary files a writer of each kind leaves when killed, by dead pids. */
function plantDead(root: string): string[] {
  const shard = readdirSync(path.join(root, 'vault/.memvault-record/main')).find((name) => name.endsWith('.jsonl'))!;
  const memoryDir = 'vault/main/memories/2026-02';
  const memoryName = readdirSync(path.join(root, memoryDir)).find((name) => name.endsWith('.md'))!;
  const pid = (): number => deadPid();
  const planted: Record<string, string> = {
    // A build killed between creating a shard's temporary file and writing it: 0 bytes, beside the record's shards.
    [`vault/.memvault-record/main/.${shard}.${pid()}.0.tmp`]: '',
    [`vault/main/daily/.2026-02-13.md.${pid()}.1.tmp`]: '---\nmemvault: summary\n',
    [`vault/.index.json.${pid()}.2.tmp`]: '{',
    // `add` killed before linking its file to the memory's name.
    [`vault/main/memories/2026/02/.memvault-new.${pid()}.0.tmp`]: '---\ndate: 2026-02-14\n---\nHalf',
    // `consolidate --apply` killed before its rename, beside the memory it marks.
    [`${memoryDir}/.${memoryName}.${pid()}.3.tmp`]: '---\nduplicate_of: x\n',
    // The state folder's writers (of earlier versions: the state store writes none; `cache/` goes whole with the files
    // the store replaced, store/legacy.ts).
    [`.memvault/config-cache.json.${pid()}.tmp`]: '{',
    [`.memvault/hooks/session-start.json.${pid()}.tmp`]: '{',
  };
  writeFiles(root, planted);
  return Object.keys(planted);
}

describe('temporary files of killed writers', () => {
  it('are removed by the next build, which commits none of them, also when it finishes a killed build', async () => {
    const root = await builtProject();
    const dead = plantDead(root);
    // Still running (this test runner), or a person's files: left alone.
    const kept = [`vault/main/memories/2026-02/.draft.md.${process.pid}.0.tmp`, 'vault/main/memories/2026-02/notes.2024.tmp'];
    writeFiles(root, Object.fromEntries(kept.map((file) => [file, 'x'])));
    // A build killed after it opened its commit: the next one runs the recovery scan.
    writeFiles(root, {
      '.memvault/commit-pending.json': `${JSON.stringify({ pid: deadPid(), branch: 'main', parent: git(root, 'rev-parse', 'HEAD').trim() })}\n`,
      'vault/main/memories/2026-02/2026-02-14-new.md': '---\ndate: 2026-02-14T10:00:00Z\n---\nA new memory, so the build commits.\n',
    });

    const { json } = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
    expect(json.commit.status).toBe('committed');
    for (const file of dead) expect(existsSync(path.join(root, file)), file).toBe(false);
    for (const file of kept) expect(existsSync(path.join(root, file)), file).toBe(true);
    const reported = json.diagnostics.filter((d: any) => d.rule === 'build/leftover-temp').map((d: any) => d.path);
    expect(reported).toHaveLength(dead.length);

    const tracked = git(root, 'ls-files').split('\n');
    expect(tracked).toContain('vault/main/memories/2026-02/2026-02-14-new.md');
    expect(tracked.filter((file) => file.endsWith('.tmp'))).toEqual([]);
    expect(
      git(root, 'log', '--all', '--name-only', '--format=')
        .split('\n')
        .filter((file) => file.endsWith('.tmp')),
    ).toEqual([]);
    const left = files(root).filter((file) => file.endsWith('.tmp'));
    expect(left.sort()).toEqual([...kept].sort());
  }, 60_000);

  it('a temporary file beside the record is never committed, even when it is not removed (a live writer)', async () => {
    const root = await builtProject();
    const shard = readdirSync(path.join(root, 'vault/.memvault-record/main')).find((name) => name.endsWith('.jsonl'))!;
    const live = `vault/.memvault-record/main/.${shard}.${process.pid}.0.tmp`;
    writeFiles(root, { [live]: '', 'vault/main/memories/2026-02/2026-02-14-new.md': '---\ndate: 2026-02-14\n---\nNew.\n' });
    const { json } = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
    expect(json.commit.status).toBe('committed');
    expect(existsSync(path.join(root, live))).toBe(true);
    expect(
      git(root, 'ls-files', 'vault/.memvault-record')
        .split('\n')
        .filter((file) => file.endsWith('.tmp')),
    ).toEqual([]);
  }, 60_000);

  it('are removed by memvault redact, which holds the build lock', async () => {
    const root = await builtProject();
    const dead = plantDead(root);
    const result = await runCli(['redact', 'vault'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    for (const file of dead) expect(existsSync(path.join(root, file)), file).toBe(false);
  }, 60_000);
});

describe('the sweep skips folders unchanged since it listed them', () => {
  it('a temporary file created in such a folder moves its mtime: the next sweep lists it and removes the file', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-sweep-'));
    roots.push(root);
    const vaultDir = path.join(root, 'vault');
    const stateDir = path.join(root, '.memvault');
    const deep = path.join(vaultDir, 'main/memories/2026/02');
    mkdirSync(deep, { recursive: true });
    mkdirSync(stateDir);
    writeFileSync(path.join(deep, '2026-02-13-a.md'), 'x');
    // Folders last changed an hour ago: past the window in which a change may not move an mtime.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const dir of ['vault', 'vault/main', 'vault/main/memories', 'vault/main/memories/2026', 'vault/main/memories/2026/02'])
      utimesSync(path.join(root, dir), hourAgo, hourAgo);
    expect(removeLeftoverTemps(vaultDir, stateDir, ['main'])).toEqual([]);
    expect(Object.keys(stateRows(root, 'swept-folders'))).toContain(deep);

    const temp = path.join(deep, `.memvault-new.${deadPid()}.0.tmp`);
    writeFileSync(temp, 'half');
    const removed = removeLeftoverTemps(vaultDir, stateDir, ['main']);
    expect(removed.map((d) => d.path)).toEqual([`main/memories/2026/02/${path.basename(temp)}`]);
    expect(existsSync(temp)).toBe(false);
  });
});
