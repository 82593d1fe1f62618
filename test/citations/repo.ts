import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { runCitationStep } from '../../src/citations/build-step.js';
import { openCitationStore } from '../../src/citations/store.js';
import { loadValidConfig } from '../../src/config/load.js';
import { loadVault } from '../../src/load/load.js';
import { vaultLoadOptions } from '../../src/pipeline/workers/build-pool.js';
import { createProject, memory, writeFiles } from '../helpers/project.js';

/**
 * A project whose repository has a real history for citations to be checked
 * against: files added (2026-01-01), one edited (01-03), one renamed (01-04),
 * one deleted (01-05); memories written on 01-01 and 01-02 cite them, a commit,
 * a commit that does not exist and a branch that does not.
 */

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export function git(root: string, args: string[], day?: string): string {
  const at = day ? { GIT_AUTHOR_DATE: `${day}T00:00:00Z`, GIT_COMMITTER_DATE: `${day}T00:00:00Z` } : {};
  return execFileSync('git', args, { cwd: root, env: { ...process.env, ...GIT_ENV, ...at }, encoding: 'utf8' });
}

export function commitAll(root: string, message: string, day: string): string {
  git(root, ['add', '-A'], day);
  git(root, ['commit', '-qm', message], day);
  return git(root, ['rev-parse', 'HEAD']).trim();
}

const MEMORIES = 'vault/main/memories/2026/01';

export const PATHS = {
  retry: `main/memories/2026/01/2026-01-02-retry.md`,
  legacy: `main/memories/2026/01/2026-01-02-legacy.md`,
  session: `main/memories/2026/01/2026-01-02-session.md`,
  stable: `main/memories/2026/01/2026-01-01-stable.md`,
  refs: `main/memories/2026/01/2026-01-02-refs.md`,
};

/** The project, its history made; returns the root and the first commit's id. */
/** src/auth/session.ts: `expireSession` on lines 10-20 (where a memory quotes it), the first line edited on 01-03. */
export const sessionFile = (version: number): string =>
  [
    `export const session = ${version};`,
    ...Array.from({ length: 8 }, (_, i) => `// note ${i + 2}`),
    'export function expireSession(id: string): void {',
    ...Array.from({ length: 9 }, (_, i) => `  // step ${i + 1}`),
    '  sessions.delete(id);',
    '}',
    '',
  ].join('\n');

export function citedProject(options: { fillers?: number } = {}): { root: string; first: string; deleted: string; renamed: string } {
  const root = createProject({
    'src/net/retry.ts': 'export const retry = 1;\n',
    'src/net/legacy.ts': 'export const legacy = 1;\n',
    'src/auth/session.ts': sessionFile(1),
    'src/stable.ts': 'export const stable = 1;\n',
  });
  git(root, ['init', '-q', '-b', 'main']);
  const first = commitAll(root, 'add the sources', '2026-01-01');
  const fillers: Record<string, string> = {};
  // Memories that match nothing asked: BM25 needs a corpus for its weights to mean something.
  for (let i = 0; i < (options.fillers ?? 0); i++)
    fillers[`${MEMORIES}/2026-01-01-filler-${i}.md`] = memory({
      date: `2026-01-01T0${i % 10}:00:00Z`,
      title: `Filler ${i}`,
      body: `Unrelated note ${i} about lunch, the weather and the office plants.`,
    });
  writeFiles(root, {
    ...fillers,
    [`${MEMORIES}/2026-01-02-retry.md`]: memory({
      date: '2026-01-02T10:00:00Z',
      title: 'Retry with jitter',
      body: 'Timeout handling: timeout handling retries in `src/net/retry.ts`, timeout after 2 s.',
    }),
    [`${MEMORIES}/2026-01-02-legacy.md`]: memory({
      date: '2026-01-02T11:00:00Z',
      title: 'Legacy backoff',
      body: 'The backoff table is `BACKOFF` in src/net/legacy.ts.',
    }),
    [`${MEMORIES}/2026-01-02-session.md`]: memory({
      date: '2026-01-02T12:00:00Z',
      title: 'Session expiry',
      kind: 'convention',
      body: 'Sessions expire as `expireSession` in `src/auth/session.ts:10-20` says.',
    }),
    [`${MEMORIES}/2026-01-01-stable.md`]: memory({
      date: '2026-01-01T12:00:00Z',
      title: 'Stable timeouts',
      body: `Timeout handling is configured in \`src/stable.ts\` since commit ${first.slice(0, 7)}.`,
    }),
    [`${MEMORIES}/2026-01-02-refs.md`]: memory({
      date: '2026-01-02T13:00:00Z',
      title: 'Old references',
      body: 'Fixed in commit deadbeef1234 on branch `feature/nope`, see #12.',
    }),
  });
  writeFiles(root, { 'src/auth/session.ts': sessionFile(2) });
  git(root, ['add', 'src'], '2026-01-03');
  git(root, ['commit', '-qm', 'edit the session'], '2026-01-03');
  git(root, ['mv', 'src/net/legacy.ts', 'src/net/backoff.ts'], '2026-01-04');
  git(root, ['commit', '-qm', 'rename legacy to backoff'], '2026-01-04');
  const renamed = git(root, ['rev-parse', 'HEAD']).trim();
  rmSync(path.join(root, 'src/net/retry.ts'));
  git(root, ['add', '-A', 'src'], '2026-01-05');
  git(root, ['commit', '-qm', 'delete retry'], '2026-01-05');
  const deleted = git(root, ['rev-parse', 'HEAD']).trim();
  return { root, first, deleted, renamed };
}

/** Loads the vault of `root` (citations come from the parse), runs the build's citation step at `at`, reads the store back. */
export async function checkCitations(root: string, at: string) {
  const config = await loadValidConfig(root);
  const loaded = await loadVault(vaultLoadOptions(root, config));
  const step = await runCitationStep({
    root,
    vaultDir: path.join(root, 'vault'),
    streams: loaded.state.streams.values(),
    now: new Date(at),
  });
  const store = openCitationStore(path.join(root, '.memvault'));
  const verification = store.readVerification()!;
  const memories = store.readMemories()!;
  return { step, verification, memory: (p: string) => memories.get(p)! };
}
