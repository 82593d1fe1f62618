import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromColumns, listMarkdownFiles, MAX_FILE_BYTES, readVaultFile, scanStreams, toColumns } from '../../src/vault/scan.js';

let vault: string;
beforeAll(() => {
  vault = mkdtempSync(path.join(os.tmpdir(), 'memvault-scan-'));
  const files = [
    'main/memories/2026/01/2026-01-02-a.md',
    'main/memories/2026-01-03-b.MD',
    'main/daily/2026-01-02.md',
    'main/history/daily/2026-01-02-20260103-060000.md',
    'main/waterfall/history/recent-1.md',
    'main/waterfall/recent.md',
    'main/.drafts/x.md',
    'main/memories/notes.txt',
    'agent/memories/0001.md',
  ];
  for (const file of files) {
    mkdirSync(path.join(vault, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(vault, file), `content of ${file}\n`);
  }
});
afterAll(() => rmSync(vault, { recursive: true, force: true }));

const expected = [
  'agent/memories/0001.md',
  'main/daily/2026-01-02.md',
  'main/memories/2026-01-03-b.MD',
  'main/memories/2026/01/2026-01-02-a.md',
  'main/waterfall/recent.md',
];

describe('scanning the vault', () => {
  it('lists the markdown files of each stream with size and mtime, skipping copies, dot folders and other files', () => {
    const files = scanStreams(vault, ['agent', 'main', 'missing']);
    expect(files.map((f) => f.vaultPath)).toEqual(expected);
    const daily = files.find((f) => f.vaultPath === 'main/daily/2026-01-02.md')!;
    expect(daily.size).toBe(Buffer.byteLength('content of main/daily/2026-01-02.md\n'));
    expect(daily.mtimeMs).toBeGreaterThan(0);
  });
});

describe('what the scan does not read (hostile input)', () => {
  let dir: string;
  let outsideDir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-scan-special-'));
    outsideDir = mkdtempSync(path.join(os.tmpdir(), 'memvault-scan-outside-'));
    writeFileSync(path.join(outsideDir, 'x.md'), 'outside\n');
    mkdirSync(path.join(dir, 'main/memories'), { recursive: true });
    writeFileSync(path.join(dir, 'main/memories/a.md'), 'a\n');
    writeFileSync(path.join(dir, 'main/memories/big.md'), Buffer.alloc(MAX_FILE_BYTES + 1, 'x'));
    writeFileSync(path.join(dir, 'main/memories/limit.md'), Buffer.alloc(MAX_FILE_BYTES, 'x'));
    symlinkSync('a.md', path.join(dir, 'main/memories/link.md'));
    symlinkSync(outsideDir, path.join(dir, 'main/memories/folder'));
    symlinkSync(outsideDir, path.join(dir, 'linked'));
    symlinkSync(path.join(outsideDir, 'x.md'), path.join(dir, 'main/memories/picture.png'));
    execFileSync('mkfifo', [path.join(dir, 'main/memories/fifo.md')]);
  });
  afterAll(() => [dir, outsideDir].forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('lists links and FIFOs as special, never walking into a linked folder', () => {
    const found = scanStreams(dir, ['linked', 'main']).map((f) => [f.vaultPath, f.special ?? 'file']);
    expect(found).toEqual([
      ['linked/', 'symlink'],
      ['main/memories/a.md', 'file'],
      ['main/memories/big.md', 'file'],
      ['main/memories/fifo.md', 'not-a-file'],
      ['main/memories/folder', 'symlink'],
      ['main/memories/limit.md', 'file'],
      ['main/memories/link.md', 'symlink'],
    ]);
    expect(listMarkdownFiles(path.join(dir, 'main'))).toEqual(['memories/a.md', 'memories/big.md', 'memories/limit.md']);
    // Columns (what the scan thread sends back) keep the marks.
    expect(
      fromColumns(toColumns(scanStreams(dir, ['main'])))
        .filter((f) => f.special)
        .map((f) => f.special),
    ).toEqual(['not-a-file', 'symlink', 'symlink']);
  });

  it('reads files up to the limit, and reports the rest without reading through links', () => {
    const read = (vaultPath: string): string => {
      const result = readVaultFile(dir, vaultPath);
      return result.ok ? `ok ${result.bytes.length}` : `${result.diagnostic.severity} ${result.diagnostic.rule}`;
    };
    expect(read('main/memories/a.md')).toBe('ok 2');
    expect(read('main/memories/limit.md')).toBe(`ok ${MAX_FILE_BYTES}`);
    expect(read('main/memories/big.md')).toBe('error memory/too-large');
    expect(read('main/memories/link.md')).toBe('info memory/symlink-skipped');
    expect(read('main/memories/folder/x.md')).toBe('info memory/symlink-skipped');
    expect(read('main/memories/fifo.md')).toBe('info memory/not-a-file');
    // A read that fails (here ENOTDIR: tests run as root, where chmod 000 still reads) is an error diagnostic, not a throw.
    expect(read('main/memories/a.md/b.md')).toBe('error memory/unreadable');
    expect(readVaultFile(dir, 'main/memories/a.md/b.md')).toMatchObject({
      ok: false,
      diagnostic: { reason: 'cannot read the file (ENOTDIR)' },
    });
  });
});
