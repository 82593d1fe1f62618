import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVault, type LoadOptions } from '../../src/load/load.js';
import { LoadSession } from '../../src/load/load-session.js';
import { describeChanges, describeWritten, isEditorTempName, isIgnoredVaultPath, parseDuration } from '../../src/watch/paths.js';
import { watchCommitMessage } from '../../src/watch/watcher.js';

/**
 * The watch engine's pure parts and its loader: a `LoadSession` must see the
 * vault exactly as a fresh `loadVault` does after any sequence of changes it
 * was told about, while reading only those files.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function vault(files: Record<string, string>): {
  options: LoadOptions;
  write: (file: string, text: string) => void;
  remove: (file: string) => void;
} {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-session-'));
  dirs.push(root);
  const vaultDir = path.join(root, 'vault');
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(vaultDir, file)), { recursive: true });
    writeFileSync(path.join(vaultDir, file), text);
  };
  for (const [file, text] of Object.entries(files)) write(file, text);
  return {
    options: { vaultDir, stateDir: path.join(root, '.memvault'), timezone: 'UTC', configuredStreams: ['main'] },
    write,
    remove: (file) => rmSync(path.join(vaultDir, file)),
  };
}

const note = (date: string, body: string): string => `---\ndate: ${date}\n---\n${body}\n`;

/** What a fresh loader sees, without the cache object (compared as plain data). */
async function fresh(options: LoadOptions) {
  const loaded = await loadVault({ ...options, stateDir: `${options.stateDir}-fresh-${Math.random()}` });
  return loaded.state;
}

describe('LoadSession', () => {
  it('sees what a fresh load sees after adds, edits, deletes and moves, reading only what it was told about', async () => {
    const v = vault({
      'main/memories/a.md': note('2026-02-13', 'A.'),
      'main/memories/b.md': note('2026-02-14', 'B.'),
      'ops/memories/c.md': note('2026-02-12', 'C.'),
    });
    const session = new LoadSession();
    expect((await session.load(v.options)).state).toEqual(await fresh(v.options));

    v.write('main/memories/a.md', note('2026-02-13T10:00:00Z', 'A, edited.'));
    v.write('main/memories/new/d.md', note('2026-02-15', 'D.'));
    v.remove('main/memories/b.md');
    renameSync(path.join(v.options.vaultDir, 'ops/memories/c.md'), path.join(v.options.vaultDir, 'ops/memories/c2.md'));
    v.write('main/memories/broken.md', 'no frontmatter, no date');
    session.invalidate(['main/memories/a.md', 'main/memories/b.md', 'ops/memories/c.md', 'ops/memories/c2.md', 'main/memories/broken.md']);
    session.invalidate(session.filesUnder('main/memories/new'));
    const loaded = await session.load(v.options);
    expect(loaded.stats.read).toBe(4);
    // Three bodies: `broken.md` is read and reported, it has no body to parse.
    expect(loaded.stats.parsed).toBe(3);
    expect(loaded.state).toEqual(await fresh(v.options));
    expect(session.fileCount).toBe(4);
  });

  it('does not see changes it was not told about (it trusts the file watcher)', async () => {
    const v = vault({ 'main/memories/a.md': note('2026-02-13', 'A.') });
    const session = new LoadSession();
    await session.load(v.options);
    v.write('main/memories/a.md', note('2026-02-13', 'A, changed behind its back.'));
    expect((await session.load(v.options)).stats.parsed).toBe(0);
    expect(session.isUnchanged('main/memories/a.md')).toBe(false);
  });

  it('keeps the last good version of a file that became invalid, and reports it, until it is fixed', async () => {
    const v = vault({ 'main/memories/a.md': note('2026-02-13', 'Good.') });
    const session = new LoadSession({ keepLastGood: true });
    const before = (await session.load(v.options)).state.streams.get('main')!.memories;
    v.write('main/memories/a.md', '---\ndate: [oops\n---\nHalf-typed.\n');
    session.invalidate(['main/memories/a.md']);
    const held = await session.load(v.options);
    expect(held.state.streams.get('main')!.memories).toEqual(before);
    expect(held.state.diagnostics).toEqual([
      expect.objectContaining({
        path: 'main/memories/a.md',
        severity: 'error',
        reason: expect.stringContaining('the last good version is used until this is fixed'),
      }),
    ]);
    // Still reported on the next load, though nothing was invalidated.
    expect((await session.load(v.options)).state.diagnostics).toHaveLength(1);
    v.write('main/memories/a.md', note('2026-02-13', 'Fixed.'));
    session.invalidate(['main/memories/a.md']);
    const fixed = await session.load(v.options);
    expect(fixed.state.diagnostics).toEqual([]);
    expect(fixed.state).toEqual(await fresh(v.options));
  });

  it('without keepLastGood, an invalid file drops out as it does in a build', async () => {
    const v = vault({ 'main/memories/a.md': note('2026-02-13', 'Good.') });
    const session = new LoadSession();
    await session.load(v.options);
    v.write('main/memories/a.md', '');
    session.invalidate(['main/memories/a.md']);
    expect((await session.load(v.options)).state).toEqual(await fresh(v.options));
  });

  it('recognises saves that change nothing and its own writes', async () => {
    const v = vault({ 'main/memories/a.md': note('2026-02-13', 'A.') });
    const session = new LoadSession();
    await session.load(v.options);
    v.write('main/memories/a.md', note('2026-02-13', 'A.'));
    expect(session.isUnchanged('main/memories/a.md')).toBe(true);
    expect(session.isUnchanged('main/memories/never-there.md')).toBe(true);
    v.write('main/memories/b.md', note('2026-02-13', 'B.'));
    expect(session.isUnchanged('main/memories/b.md')).toBe(false);
    // A move the build made: the old path is gone on purpose.
    v.remove('main/memories/a.md');
    expect(session.isUnchanged('main/memories/a.md')).toBe(false);
    session.recordBuild([], ['main/memories/a.md']);
    expect(session.isUnchanged('main/memories/a.md')).toBe(true);
  });

  it('starts over when the load options change', async () => {
    const v = vault({ 'main/memories/a.md': note('2026-02-13T23:30:00Z', 'Late.') });
    const session = new LoadSession();
    await session.load(v.options);
    const berlin = await session.load({ ...v.options, timezone: 'Europe/Berlin' });
    expect(berlin.state.streams.get('main')!.memories[0]!.day).toBe('2026-02-14');
  });
});

describe('watch paths', () => {
  it('ignores editor temp files, dot folders, history copies and outputs, not memories and summaries', () => {
    for (const name of ['.a.md.swp', 'a.md~', '4913', '#a.md#', '.#a.md', 'a.md.tmp', 'a.md___jb_tmp___', '.a.md.1234.0.tmp'])
      expect(isEditorTempName(name), name).toBe(true);
    expect(isEditorTempName('2026-02-13-auth.md')).toBe(false);
    expect(isIgnoredVaultPath('.memvault', undefined)).toBe(true);
    expect(isIgnoredVaultPath('main/history', undefined)).toBe(true);
    expect(isIgnoredVaultPath('main/waterfall/history/recent-20260213-000000.md', true)).toBe(true);
    expect(isIgnoredVaultPath('main/waterfall/recent.md', true)).toBe(false);
    expect(isIgnoredVaultPath('main/UPLOAD_PACKAGE.md', true)).toBe(true);
    expect(isIgnoredVaultPath('INDEX.md', true)).toBe(true);
    expect(isIgnoredVaultPath('main/memories/notes.txt', true)).toBe(true);
    expect(isIgnoredVaultPath('main/memories/2026', undefined)).toBe(false);
    expect(isIgnoredVaultPath('main/memories/2026/02/a.md', true)).toBe(false);
    expect(isIgnoredVaultPath('main/daily/2026-02-13.md', true)).toBe(false);
  });

  it('describes a rebuild in one line', () => {
    expect(describeChanges(new Map([['main/memories/a.md', 'changed']]), false)).toBe('main/memories/a.md changed');
    expect(
      describeChanges(
        new Map([
          ['main/memories/a.md', 'added'],
          ['main/memories/b.md', 'deleted'],
          ['main/memories/c.md', 'changed'],
          ['main/memories/d.md', 'changed'],
        ]),
        true,
      ),
    ).toBe('memory.config.yaml changed, 4 files changed (a.md added, b.md deleted, c.md, …)');
    expect(
      describeWritten([
        'main/daily/2026-02-13.md',
        'main/history/daily/2026-02-13-20260214-060000.md',
        'main/weekly/2026-W07.md',
        'main/UPLOAD_PACKAGE.md',
        'main/UPLOAD_PACKAGE.manifest.json',
        'INDEX.md',
        'index.json',
      ]),
    ).toEqual(['daily 2026-02-13', 'weekly 2026-W07', 'package main', 'index']);
    expect(watchCommitMessage([['daily 2026-02-13', 'package main'], ['package main']])).toBe(
      'memvault: watch — 2 rebuilds (daily 2026-02-13, package main)\n\n- daily 2026-02-13, package main\n- package main',
    );
  });

  it('reads --commit-every durations', () => {
    expect([
      parseDuration('10m', '--commit-every'),
      parseDuration('90s', '-x'),
      parseDuration('1.5h', '-x'),
      parseDuration('500ms', '-x'),
      parseDuration('30', '-x'),
    ]).toEqual([600_000, 90_000, 5_400_000, 500, 30_000]);
    expect(() => parseDuration('soon', '--commit-every')).toThrow('--commit-every `soon` is not a duration');
    expect(() => parseDuration('0m', '--commit-every')).toThrow();
  });
});
