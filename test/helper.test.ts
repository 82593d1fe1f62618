import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scanStreams } from '../src/vault/scan.js';
import { countTokens } from '../src/util/tokens.js';
import type { BuildHelper as BuildHelperType } from '../src/vault/helper.js';
import { copyProject, createProject, memory, removeProject, runCliJson, snapshotTree } from './helpers/project.js';

/**
 * The build helper thread (vault/helper.ts), as the CLI runs it: from the
 * compiled build (the worker file exists only there). Its answers must be
 * exactly what the main thread would compute itself.
 */

const { BuildHelper, LARGE_CACHE_BYTES } = (await import(path.resolve('dist/src/vault/helper.js'))) as { BuildHelper: typeof BuildHelperType; LARGE_CACHE_BYTES: number };

let root: string;
let vault: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'memvault-helper-'));
  vault = path.join(root, 'vault');
  for (const file of ['main/memories/2026/01/2026-01-02-a.md', 'main/daily/2026-01-02.md', 'main/history/daily/x.md', 'agent/memories/0001.md']) {
    mkdirSync(path.join(vault, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(vault, file), `content of ${file}\n`);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The helper starts only for a large parse cache; its content does not matter for starting. */
function withLargeCache(): void {
  mkdirSync(path.join(root, '.memvault', 'cache'), { recursive: true });
  writeFileSync(path.join(root, '.memvault', 'cache', 'files.json'), Buffer.alloc(LARGE_CACHE_BYTES, 0x20));
}

describe('the build helper thread', () => {
  it('does not start for a small vault (no parse cache, or a small one)', () => {
    expect(BuildHelper.start(root)).toBeUndefined();
    mkdirSync(path.join(root, '.memvault', 'cache'), { recursive: true });
    writeFileSync(path.join(root, '.memvault', 'cache', 'files.json'), '{}');
    expect(BuildHelper.start(root)).toBeUndefined();
  });

  it('scans as the main thread does, and counts tokens exactly as the main thread does, in both encodings', async () => {
    withLargeCache();
    const helper = BuildHelper.start(root)!;
    expect(helper).toBeDefined();
    try {
      expect(await helper.scan(vault, ['agent', 'main', 'missing'])).toEqual(scanStreams(vault, ['agent', 'main', 'missing']));
      helper.warmTokenizer();
      const texts = ['Replaced JWT with server sessions.', 'Zoë’s café — 東京 🚀 `ADR-012`\n\n## Decisions\n- p99 < 250ms', 'x'.repeat(5000), ' \n\t '];
      for (const text of texts) {
        expect(helper.countTokens(text, 'o200k_base')).toBe(countTokens(text, 'o200k_base'));
        expect(helper.countTokens(text, 'cl100k_base')).toBe(countTokens(text, 'cl100k_base'));
      }
    } finally {
      helper.close();
    }
  });

  it('answers undefined once closed, so callers count in-process', () => {
    withLargeCache();
    const helper = BuildHelper.start(root)!;
    helper.close();
    expect(helper.countTokens('hello', 'o200k_base')).toBeUndefined();
    return expect(helper.scan(vault, ['main'])).rejects.toThrow(/not available/);
  });

  it('never keeps a process alive: a script that starts one and does nothing else exits', () => {
    withLargeCache();
    const script = `import { BuildHelper } from ${JSON.stringify(path.resolve('dist/src/vault/helper.js'))}; const helper = BuildHelper.start(${JSON.stringify(root)}); console.log(helper ? 'started' : 'none');`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 }).trim()).toBe('started');
  });
});

describe('countTokens with a remote counter', () => {
  it('uses the remote answer, and counts in-process for good once the remote cannot answer', async () => {
    // A fresh module: no encoding loaded in-process yet (a loaded one is used first).
    vi.resetModules();
    const { countTokens, setRemoteCounter } = await import('../src/util/tokens.js');
    const asked: string[] = [];
    try {
      setRemoteCounter((text) => {
        asked.push(text);
        return text === 'first' ? 42 : undefined;
      });
      expect(countTokens('first', 'cl100k_base')).toBe(42);
      expect(countTokens('second', 'cl100k_base')).toBe(1);
      expect(countTokens('third', 'cl100k_base')).toBe(1);
      expect(asked).toEqual(['first', 'second']);
    } finally {
      setRemoteCounter(undefined);
    }
  });
});

describe('memvault build with the helper thread', () => {
  it('writes exactly what a build without it writes, after an edit', async () => {
    const files: Record<string, string> = {};
    for (let day = 2; day <= 12; day++) {
      const date = `2026-02-${String(day).padStart(2, '0')}`;
      files[`vault/main/memories/${date}-notes.md`] = memory({ date: `${date}T10:00:00Z`, title: `Notes ${day}`, body: `Worked on the billing queue; the p99 latency is ${day * 10}ms. Decision: keep retries at ${day}.` });
    }
    const withHelper = createProject(files);
    let without: string | undefined;
    try {
      await runCliJson(['build', '--now', '2026-02-13T06:00:00Z', '--json', '--no-commit'], { cwd: withHelper });
      without = copyProject(withHelper);
      // Trailing spaces keep files.json valid JSON while making it "large": the next build starts a helper.
      appendFileSync(path.join(withHelper, '.memvault', 'cache', 'files.json'), Buffer.alloc(LARGE_CACHE_BYTES, 0x20));
      const edited = { 'vault/main/memories/2026-02-11-notes.md': memory({ date: '2026-02-11T10:00:00Z', title: 'Notes 11', body: 'Moved billing retries into the queue; the error rate dropped to 0.1%.' }) };
      const builds = [];
      for (const root of [withHelper, without]) {
        for (const [file, text] of Object.entries(edited)) writeFileSync(path.join(root, file), text);
        builds.push((await runCliJson(['build', '--now', '2026-02-16T06:00:00Z', '--json', '--no-commit'], { cwd: root })).json);
      }
      expect(builds.map((report) => report.stats.helper)).toEqual([true, false]);
      expect(builds[0].written).toEqual(builds[1].written);
      expect(builds[0].written).toContain('main/daily/2026-02-11.md');
      const outputs = (root: string) => [...snapshotTree(path.join(root, 'vault'))].map(([file, state]) => [file, state.sha256]);
      expect(outputs(withHelper)).toEqual(outputs(without));
    } finally {
      removeProject(withHelper);
      removeProject(without);
    }
  });
});
