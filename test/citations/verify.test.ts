import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCitationStep } from '../../src/citations/build-step.js';
import { type CitedEntry, openCitationStore } from '../../src/citations/store.js';
import { loadValidConfig } from '../../src/config/load.js';
import { vaultLoadOptions } from '../../src/pipeline/workers/build-pool.js';
import { loadVault } from '../../src/load/load.js';
import { removeProject, writeFiles } from '../helpers/project.js';
import { checkCitations, citedProject, commitAll, git, PATHS } from './repo.js';

let root: string | undefined;
afterEach(() => {
  removeProject(root);
  root = undefined;
});

const check = (at: string) => checkCitations(root!, at);

describe('citations verified against a repository with a history', () => {
  it('gives every citation its state: deleted, renamed (followed), edited, unchanged, missing commit and branch', async () => {
    const project = citedProject();
    root = project.root;
    const { step, memory } = await check('2026-01-06T00:00:00Z');
    expect(step.report).toMatchObject({ head: project.deleted, paths: 4, recheckedPaths: 4, stale: 3 });

    const retry = memory(PATHS.retry);
    expect(retry).toMatchObject({ state: 'gone', stale: true, checked: { commit: project.deleted } });
    expect(retry.citations[0]).toEqual({
      kind: 'path',
      target: 'src/net/retry.ts',
      state: 'gone',
      detail: `deleted in ${project.deleted.slice(0, 7)} on 2026-01-05`,
    });
    expect(memory(PATHS.legacy).citations[0]).toMatchObject({
      target: 'src/net/legacy.ts',
      state: 'moved',
      to: 'src/net/backoff.ts',
      detail: `renamed to src/net/backoff.ts in ${project.renamed.slice(0, 7)} on 2026-01-04`,
    });
    // Edited once after the memory's date: changed, not stale (fewer than HEAVY_CHANGES commits).
    expect(memory(PATHS.session)).toMatchObject({
      state: 'changed',
      stale: false,
      citations: [{ target: 'src/auth/session.ts', since: 1 }],
    });
    expect(memory(PATHS.stable)).toMatchObject({ state: 'verified', stale: false });
    expect(memory(PATHS.stable).citations.map((c) => [c.kind, c.state])).toEqual([
      ['path', 'verified'],
      ['commit', 'verified'],
    ]);
    expect(memory(PATHS.refs).citations.map((c) => [c.kind, c.target, c.state])).toEqual([
      ['branch', 'feature/nope', 'gone'],
      ['commit', 'deadbeef1234', 'gone'],
    ]);
    expect(step.report!.newlyStale.map((s) => s.path).sort()).toEqual([PATHS.legacy, PATHS.refs, PATHS.retry].sort());
    expect(step.notes.get(PATHS.retry)).toBe(`cites \`src/net/retry.ts\`, deleted in ${project.deleted.slice(0, 7)} on 2026-01-05`);
  });

  it('after one more commit asks git again only about the citations of the changed files; with nothing new, about none', async () => {
    const project = citedProject();
    root = project.root;
    await check('2026-01-06T00:00:00Z');
    writeFiles(root, { 'src/stable.ts': 'export const stable = 2;\n' });
    const head = commitAll(root, 'edit stable', '2026-01-07');
    const again = await check('2026-01-08T00:00:00Z');
    // One cited path changed (src/stable.ts): one path asked about, one path citation re-checked (and the branch: refs may move with HEAD).
    expect(again.step.report).toMatchObject({
      head,
      from: project.deleted,
      paths: 4,
      recheckedPaths: 1,
      rechecked: 2,
      recheckedCitations: 2,
    });
    expect(again.memory(PATHS.stable).citations[0]).toMatchObject({ target: 'src/stable.ts', state: 'changed', since: 1 });
    // The other facts were kept, not asked again: still right.
    expect(again.memory(PATHS.retry).state).toBe('gone');
    expect(again.memory(PATHS.legacy).citations[0]!.to).toBe('src/net/backoff.ts');
    expect(again.step.report!.newlyStale).toEqual([]);

    const store = openCitationStore(path.join(root, '.memvault'));
    const before = store.stamp();
    const idle = await check('2026-01-09T00:00:00Z');
    expect(idle.step.report).toMatchObject({ head, recheckedPaths: 0, rechecked: 0, recheckedCitations: 0 });
    // Nothing written: the store's stamp changes with every write.
    expect(store.stamp()).toBe(before);
  });

  it('follows a file renamed twice, re-checking the citation whose new name changed', async () => {
    const project = citedProject();
    root = project.root;
    await check('2026-01-06T00:00:00Z');
    git(root, ['mv', 'src/net/backoff.ts', 'src/net/retry-backoff.ts'], '2026-01-07');
    git(root, ['commit', '-qm', 'rename again'], '2026-01-07');
    const again = await check('2026-01-08T00:00:00Z');
    expect(again.step.report).toMatchObject({ recheckedPaths: 1 });
    expect(again.memory(PATHS.legacy).citations[0]).toMatchObject({ state: 'moved', to: 'src/net/retry-backoff.ts' });
    // The hook finds the memory under the file's name now, no longer under the name it had in between.
    const index = openCitationStore(path.join(root, '.memvault')).readCitedBy(() => ['src/net/backoff.ts', 'src/net/retry-backoff.ts'])!;
    expect(index.found.get('src/net/retry-backoff.ts')!.map((e) => e.m)).toEqual([PATHS.legacy]);
    expect(index.found.has('src/net/backoff.ts')).toBe(false);
  });

  it('starts over when the recorded commit is gone (a rewritten history)', async () => {
    const project = citedProject();
    root = project.root;
    const first = await check('2026-01-06T00:00:00Z');
    git(root, ['reset', '-q', '--hard', 'HEAD~1']);
    git(root, ['reflog', 'expire', '--expire=now', '--all']);
    git(root, ['gc', '-q', '--prune=now']);
    const again = await check('2026-01-07T00:00:00Z');
    expect(first.step.report!.head).not.toBe(again.step.report!.head);
    expect(again.step.report).toMatchObject({ recheckedPaths: 4 });
    expect(again.step.report!.from).toBeUndefined();
    // Before the deletion: the retry file is there again.
    expect(again.memory(PATHS.retry).state).toBe('verified');
  });
});

describe('citations of another repository', () => {
  it('a path never in the history is unchecked, not gone: a vault kept apart from its code is not all stale', async () => {
    const project = citedProject();
    root = project.root;
    writeFiles(root, {
      'vault/main/memories/2026/01/2026-01-02-elsewhere.md':
        '---\ndate: 2026-01-02\n---\nThe worker is `services/queue/worker.go` in the infra repository.\n',
    });
    const { memory } = await check('2026-01-06T00:00:00Z');
    expect(memory('main/memories/2026/01/2026-01-02-elsewhere.md')).toMatchObject({
      state: 'unchecked',
      stale: false,
      citations: [{ target: 'services/queue/worker.go', state: 'unchecked', detail: "not in this repository's history" }],
    });
  });
});

describe('a check that works out only some memories again', () => {
  /** What the store holds: every memory's states, the cited-by index of every cited path, the stale memories and their notes. */
  function snapshot() {
    const store = openCitationStore(path.join(root!, '.memvault'));
    const verification = store.readVerification()!;
    const memories = store.readMemories()!.all();
    // Paths no memory cites any more too: their entries must be gone.
    const cited = [...new Set([...Object.keys(verification.paths), 'src/stable.ts', 'src/net/retry.ts', 'src/net/legacy.ts'])];
    const index = store.readCitedBy(() => cited)!;
    const byPath: Record<string, CitedEntry[]> = Object.fromEntries(
      [...index.found]
        .map(([key, entries]) => [key, [...entries].sort((a, b) => (a.m < b.m ? -1 : 1))])
        .sort(([a], [b]) => (a! < b! ? -1 : 1)),
    );
    const states = Object.fromEntries(
      Object.entries(memories).map(([p, m]) => [p, { state: m.state, stale: m.stale, citations: m.citations }]),
    );
    return { states, byPath, stale: [...verification.stale].sort(), notes: verification.notes };
  }

  it('leaves the store as a full check does, after edits, a new memory, a deleted one and commits', async () => {
    const project = citedProject();
    root = project.root;
    await check('2026-01-06T00:00:00Z');
    // A memory edited to cite another file, one added, one deleted; a cited file edited and one renamed.
    writeFiles(root, {
      [`vault/${PATHS.stable}`]: '---\ndate: 2026-01-01T12:00:00Z\ntitle: Stable timeouts\n---\nNow about `src/auth/session.ts` only.\n',
      'vault/main/memories/2026/01/2026-01-06-new.md': '---\ndate: 2026-01-06\n---\nThe backoff moved to `src/net/backoff.ts`.\n',
      'src/auth/session.ts': 'export const session = 3;\n',
    });
    rmSync(path.join(root, 'vault', PATHS.refs));
    commitAll(root, 'edit, add, delete', '2026-01-07');
    git(root, ['mv', 'src/net/backoff.ts', 'src/net/jitter.ts'], '2026-01-08');
    git(root, ['commit', '-qm', 'rename backoff'], '2026-01-08');
    const partial = await check('2026-01-09T00:00:00Z');
    // Not every citing memory was worked out again.
    expect(partial.step.report!.recomputed).toBeGreaterThan(0);
    expect(partial.step.report!.recomputed).toBeLessThan(5);
    const patched = snapshot();
    // The full check from an empty store: one over the patched store would keep rows a partial write wrongly left.
    openCitationStore(path.join(root, '.memvault')).clear();
    await runCitationStep({
      root,
      vaultDir: path.join(root, 'vault'),
      streams: (await loadVault(vaultLoadOptions(root, await loadValidConfig(root)))).state.streams.values(),
      now: new Date('2026-01-09T00:00:00Z'),
      full: true,
    });
    expect(patched).toEqual(snapshot());
    expect(patched.byPath['src/net/jitter.ts']!.map((e) => e.m).sort()).toEqual([PATHS.legacy, 'main/memories/2026/01/2026-01-06-new.md']);
    expect(patched.byPath['src/stable.ts']).toBeUndefined();
  });
});
