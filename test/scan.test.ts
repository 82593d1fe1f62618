import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanStreams } from '../src/vault/scan.js';

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

const expected = ['agent/memories/0001.md', 'main/daily/2026-01-02.md', 'main/memories/2026-01-03-b.MD', 'main/memories/2026/01/2026-01-02-a.md', 'main/waterfall/recent.md'];

describe('scanning the vault', () => {
  it('lists the markdown files of each stream with size and mtime, skipping copies, dot folders and other files', () => {
    const files = scanStreams(vault, ['agent', 'main', 'missing']);
    expect(files.map((f) => f.vaultPath)).toEqual(expected);
    const daily = files.find((f) => f.vaultPath === 'main/daily/2026-01-02.md')!;
    expect(daily.size).toBe(Buffer.byteLength('content of main/daily/2026-01-02.md\n'));
    expect(daily.mtimeMs).toBeGreaterThan(0);
  });
});
