import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/pipeline/build.js';
import type { BuildPool as BuildPoolType, coreToSpare as coreToSpareType } from '../../../src/pipeline/workers/build-pool.js';
import { nearDuplicateWarnings } from '../../../src/maintain/build-check.js';
import { scanStreams } from '../../../src/vault/scan.js';
import { copyProject, createProject, memory, removeProject, runCliJson, snapshotTree } from '../../helpers/project.js';
import { memoryAt } from '../../helpers/memory-object.js';
import { padStateStore } from '../../helpers/state-store.js';

/**
 * The scan thread of a large vault's build (pipeline/build-pool.ts, `scanRoot`), as the CLI runs it: from the
 * compiled build (the worker file exists only there). Its walk must be exactly what the main thread's would be.
 * Tokens are counted on the main thread: nothing waits synchronously for another thread.
 */

const { BuildPool, LARGE_CACHE_BYTES, coreToSpare } = (await import(path.resolve('dist/src/pipeline/workers/build-pool.js'))) as {
  BuildPool: typeof BuildPoolType;
  LARGE_CACHE_BYTES: number;
  coreToSpare: typeof coreToSpareType;
};

let root: string;
let vault: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'memvault-scan-'));
  vault = path.join(root, 'vault');
  const files = [
    'main/memories/2026/01/2026-01-02-a.md',
    'main/daily/2026-01-02.md',
    'main/history/daily/x.md',
    'agent/memories/0001.md',
    'main/notes.txt',
  ];
  for (const file of files) {
    mkdirSync(path.join(vault, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(vault, file), `content of ${file}\n`);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The scan thread starts only for a large parse cache; its content does not matter for starting. */
function withLargeCache(): void {
  padStateStore(root, LARGE_CACHE_BYTES);
}

describe('the scan thread', () => {
  it('does not start for a small vault (no parse cache, or a small one)', () => {
    const scanRoot = mkdtempSync(path.join(os.tmpdir(), 'memvault-scan-'));
    try {
      const none = BuildPool.create({ scanRoot })!;
      expect(none.scans).toBe(false);
      expect(none.scan(vault, ['main'])).toBeUndefined();
      none.close();
      padStateStore(scanRoot, 0);
      const small = BuildPool.create({ scanRoot })!;
      expect(small.scans).toBe(false);
      small.close();
    } finally {
      rmSync(scanRoot, { recursive: true, force: true });
    }
  });

  it('walks and stats exactly as the main thread does, once', async () => {
    withLargeCache();
    const pool = BuildPool.create({ scanRoot: root })!;
    try {
      expect(pool.scans).toBe(true);
      expect(await pool.scan(vault, ['agent', 'main', 'missing'])).toEqual(scanStreams(vault, ['agent', 'main', 'missing']));
      // One walk; the thread is kept for the build's near-duplicate look; the build threads were never started for it.
      expect(pool.scan(vault, ['main'])).toBeUndefined();
      expect(pool.looksBeside).toBe(true);
      expect(pool.started).toBe(false);
    } finally {
      pool.close();
    }
  });

  it("looks for near-duplicates after its walk as the main thread does (an edit's build, when a core is free)", async () => {
    withLargeCache();
    const pool = BuildPool.create({ scanRoot: root })!;
    try {
      const days = ['2026-02-09', '2026-02-10', '2026-02-11'];
      const memories = days.map((day) => ({ ...memoryAt('main', `${day}-note`), day, path: `main/memories/${day}-note.md` }));
      for (const [i, m] of memories.entries())
        writeFileSync(path.join(vault, m.path), memory({ date: `${m.day}T10:00:00Z`, body: i === 1 ? 'Deployed.' : LONG_NOTE }));
      expect(pool.looksBeside).toBe(false); // not before its walk
      await pool.scan(vault, ['main']);
      const changed = new Set(['2026-02-11']);
      const beside = await pool.nearDuplicatesBeside(vault, 'main', memories, changed);
      expect(beside).toEqual(nearDuplicateWarnings(vault, 'main', memories, changed));
      expect(beside.map((d) => d.path)).toEqual(['main/memories/2026-02-11-note.md']);
      pool.stopScanThread();
      expect(pool.looksBeside).toBe(false);
    } finally {
      pool.close();
    }
  });

  it('is given work beside the main thread only when the load average leaves half a core free', () => {
    expect([coreToSpare(0.9, 2), coreToSpare(1.5, 2), coreToSpare(1.6, 2), coreToSpare(3.2, 4)]).toEqual([true, true, false, true]);
  });

  it('never keeps a process alive: a script that starts one and does nothing else exits', () => {
    withLargeCache();
    const compiled = JSON.stringify(path.resolve('dist/src/pipeline/workers/build-pool.js'));
    const script =
      `import { BuildPool } from ${compiled}; const pool = BuildPool.create({ scanRoot: ${JSON.stringify(root)} });\n` +
      `console.log(pool?.scans ? 'started' : 'none');`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 }).trim()).toBe(
      'started',
    );
  });
});

/** A memory long enough for the build's near-duplicate look (eight shingles or more). */
const LONG_NOTE =
  'Reworked the billing queue consumer so retries back off exponentially, capped the batch size, ' +
  'added structured logging around every failed charge, and documented the operational runbook for the on-call rotation.';

describe('memvault build with the scan thread', () => {
  it('writes exactly what a build without it writes, after an edit', async () => {
    const files: Record<string, string> = {};
    for (let day = 2; day <= 12; day++) {
      const date = `2026-02-${String(day).padStart(2, '0')}`;
      const body = `Worked on the billing queue; the p99 latency is ${day * 10}ms. Decision: keep retries at ${day}.`;
      files[`vault/main/memories/${date}-notes.md`] = memory({ date: `${date}T10:00:00Z`, title: `Notes ${day}`, body });
    }
    files['vault/main/memories/2026-02-09-design.md'] = memory({ date: '2026-02-09T15:00:00Z', title: 'Design', body: LONG_NOTE });
    const withThread = createProject(files);
    let without: string | undefined;
    try {
      // The first build only makes the parse cache: in-process. The two compared below run the CLI (the thread is its own).
      await build({ root: withThread, now: new Date('2026-02-13T06:00:00Z'), commit: false });
      without = copyProject(withThread);
      // A padding row makes the state store "large": the next build walks the vault on a thread.
      padStateStore(withThread, LARGE_CACHE_BYTES);
      // A copy of another memory of the look's window: the look (on the scan thread for the large vault) warns of it.
      const copy = `${LONG_NOTE} The staging rollout waits for review.`;
      const edited = {
        'vault/main/memories/2026-02-11-notes.md': memory({ date: '2026-02-11T10:00:00Z', title: 'Notes 11', body: copy }),
      };
      const builds = [];
      for (const project of [withThread, without]) {
        for (const [file, text] of Object.entries(edited)) writeFileSync(path.join(project, file), text);
        builds.push((await runCliJson(['build', '--now', '2026-02-16T06:00:00Z', '--json', '--no-commit'], { cwd: project })).json);
      }
      expect(builds.map((report) => report.stats.helper)).toEqual([true, false]);
      const nearDuplicates = (report: { diagnostics: { rule: string; path: string }[] }) =>
        report.diagnostics.filter((d) => d.rule === 'memory/near-duplicate');
      expect(nearDuplicates(builds[0])).toEqual(nearDuplicates(builds[1]));
      expect(nearDuplicates(builds[0]).map((d) => d.path)).toEqual(['main/memories/2026-02-11-notes.md']);
      expect(builds[0].written).toEqual(builds[1].written);
      expect(builds[0].written).toContain('main/daily/2026-02-11.md');
      const outputs = (project: string) => [...snapshotTree(path.join(project, 'vault'))].map(([file, state]) => [file, state.sha256]);
      expect(outputs(withThread)).toEqual(outputs(without));
    } finally {
      removeProject(withThread);
      removeProject(without);
    }
  });
});
