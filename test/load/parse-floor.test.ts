import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/** The benchmark's remark floor (scripts/parse-floor.ts), compiled: it must parse every file, on one thread or several. */
const SCRIPT = fileURLToPath(new URL('../../dist/scripts/parse-floor.js', import.meta.url));

describe('parse-floor (benchmark floor: gray-matter + remark-parse alone)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function run(dir: string, threads: number): { files: number; threads: number; nodes: number } {
    const result = spawnSync(process.execPath, [SCRIPT, dir, '--threads', String(threads)], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout) as { files: number; threads: number; nodes: number };
  }

  it('parses every markdown file under the folder, with the same trees on one thread and on three', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-floor-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, '2026', '02'), { recursive: true });
    // 2 + 3 + 1 top-level nodes (the frontmatter is split off first); the .txt file is not markdown.
    writeFileSync(path.join(dir, '2026', '02', 'a.md'), '---\ndate: 2026-02-13\n---\n# Title\n\nA paragraph.\n');
    writeFileSync(path.join(dir, '2026', '02', 'b.md'), '- one\n- two\n\n```js\ncode()\n```\n\n> quote\n');
    writeFileSync(path.join(dir, 'c.md'), 'Just text.\n');
    writeFileSync(path.join(dir, 'notes.txt'), '# not parsed\n');
    expect(run(dir, 1)).toEqual({ files: 3, threads: 1, nodes: 6 });
    expect(run(dir, 3)).toEqual({ files: 3, threads: 3, nodes: 6 });
  });

  it('refuses a missing folder argument with a usage line and exit code 2', () => {
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: node dist/scripts/parse-floor.js <folder>');
  });
});
