import { afterEach, describe, expect, it } from 'vitest';
import { findCitations } from '../../src/vault/citation-find.js';
import { locateQuote } from '../../src/citations/quote.js';
import { memory, removeProject, runCli, writeFiles } from '../helpers/project.js';
import { checkCitations, citedProject, commitAll, PATHS } from './repo.js';

const quoteOf = (body: string) => findCitations(body).find((c) => c.quote)?.quote;

describe('quoted snippets next to a line-ranged citation (find.ts)', () => {
  it('takes the fenced block right after the paragraph, without blank and `...` lines', () => {
    expect(
      quoteOf('The loop in `src/net/retry.ts:3-6`:\n\n```ts\nfor (let i = 0;  i < max; i++) {\n\n  // ...\n  await  wait(i);\n```\n'),
    ).toEqual({
      kind: 'block',
      text: ['for (let i = 0; i < max; i++) {', 'await wait(i);'],
      height: 4,
    });
    // In a list item, the block indented under it.
    expect(quoteOf('- `src/a.ts#L2-L3` does it:\n  ```\n  const a = 1;\n  ```\n')?.text).toEqual(['const a = 1;']);
  });

  it('else the inline code spans of the paragraph that are not citations and not too short', () => {
    const found = findCitations('Retries: `maxRetries = 5` and `retryWithBackoff()` at `src/net/retry.ts:40`\n(commit `3f2a1c0`, `ok`).');
    expect(found.find((c) => c.kind === 'path')).toMatchObject({
      lines: [40, 40],
      quote: { kind: 'spans', text: ['maxRetries = 5', 'retryWithBackoff'], height: 1 },
    });
  });

  it('quotes nothing for a path without lines, two line-ranged paths in one paragraph, or a block two blank lines away', () => {
    expect(quoteOf('The loop in `src/net/retry.ts`:\n\n```\nfor (;;) {}\n```')).toBeUndefined();
    expect(quoteOf('`src/a.ts:1` and `src/b.ts:2` hold `const answer = 42`.')).toBeUndefined();
    expect(quoteOf('See `src/a.ts:1`.\n\n\n```\nconst a = 1;\n```')).toBeUndefined();
    // The next paragraph's spans are not this citation's.
    expect(quoteOf('See `src/a.ts:1`.\n\nThen `const a = 1` elsewhere.')).toBeUndefined();
  });
});

describe('locateQuote', () => {
  const file = ['line one', 'function retry() {', '  for (;;) {', '    wait();', '  }', '}', ''].join('\n');
  const block = { kind: 'block' as const, text: ['for (;;) {', 'wait();'], height: 2 };

  it('holds at the cited lines (read as far as the quote is high), moved elsewhere, or nowhere', () => {
    expect(locateQuote(file, [3, 3], block)).toEqual({ held: true });
    expect(locateQuote(`// a header\n// more\n${file}`, [3, 4], block)).toEqual({ held: false, at: [5, 6] });
    expect(locateQuote(file.replace('wait()', 'sleep()'), [3, 4], block)).toEqual({ held: false });
    // A range past the end of the file does not hold.
    expect(locateQuote(file, [40, 41], { kind: 'spans', text: ['wait();'], height: 1 })).toEqual({ held: false, at: [4, 4] });
  });
});

let root: string | undefined;
afterEach(() => {
  removeProject(root);
  root = undefined;
});

const check = (at: string) => checkCitations(root!, at);

const QUOTED = 'main/memories/2026/01/2026-01-06-queue.md';
const SPANS = 'main/memories/2026/01/2026-01-06-limits.md';
const queueFile = (header: string[], body: string) =>
  [...header, 'export function drain(queue: Queue): void {', `  ${body}`, '  queue.clear();', '}', 'export const LIMIT = 50;', ''].join(
    '\n',
  );

/** The history of repo.ts, then a queue file and two memories quoting it (2026-01-06). */
function quotedProject() {
  const project = citedProject();
  root = project.root;
  writeFiles(root, {
    'src/queue.ts': queueFile([], 'while (queue.size > 0) queue.pop();'),
    [`vault/${QUOTED}`]: memory({
      date: '2026-01-06T10:00:00Z',
      title: 'Queue drain',
      body: 'The queue drains in a loop, `src/queue.ts:1-3`:\n\n```ts\nexport function drain(queue: Queue): void {\n  while (queue.size > 0) queue.pop();\n```',
    }),
    [`vault/${SPANS}`]: memory({
      date: '2026-01-06T11:00:00Z',
      title: 'Queue limit',
      body: 'The limit is `LIMIT = 50` (`src/queue.ts#L5`).',
    }),
  });
  commitAll(root, 'the queue and its memories', '2026-01-06');
  return project;
}

describe('quoted snippets checked against the file at HEAD, through the history', () => {
  it('verified while the quote is at its lines; changed when it moved in the file; stale when it is gone from it', async () => {
    quotedProject();
    const first = await check('2026-01-07T00:00:00Z');
    expect(first.step.report).toMatchObject({ quotes: 3, recheckedQuotes: 3 });
    expect(first.memory(QUOTED)).toMatchObject({ state: 'verified', stale: false });
    expect(first.memory(SPANS)).toMatchObject({ state: 'verified', stale: false });
    // The session memory quotes `expireSession` at src/auth/session.ts:10-20, where it still is (only line 1 changed).
    expect(first.memory(PATHS.session).citations[0]).toMatchObject({ state: 'changed', since: 1 });
    expect(first.memory(PATHS.session).citations[0]!.quote).toBeUndefined();

    // Two lines inserted above: the quotes are further down, not at the cited lines.
    writeFiles(root!, { 'src/queue.ts': queueFile(['// Queue helpers.', ''], 'while (queue.size > 0) queue.pop();') });
    commitAll(root!, 'a header', '2026-01-08');
    const moved = await check('2026-01-09T00:00:00Z');
    expect(moved.step.report).toMatchObject({ recheckedPaths: 1, recheckedQuotes: 2 });
    expect(moved.memory(QUOTED)).toMatchObject({
      state: 'changed',
      stale: false,
      citations: [
        {
          target: 'src/queue.ts',
          state: 'changed',
          since: 1,
          quote: 'moved',
          detail: '1 commit since; quoted text not at lines 1-3, now at lines 3-4',
        },
      ],
    });
    expect(moved.memory(SPANS).citations[0]).toMatchObject({
      quote: 'moved',
      detail: '1 commit since; quoted text not at line 5, now at line 7',
    });

    // The quoted loop rewritten: nowhere in the file. The memory is stale, the build names it.
    writeFiles(root!, { 'src/queue.ts': queueFile(['// Queue helpers.', ''], 'for (const item of queue) queue.pop();') });
    commitAll(root!, 'rewrite the loop', '2026-01-10');
    const gone = await check('2026-01-11T00:00:00Z');
    expect(gone.memory(QUOTED)).toMatchObject({
      state: 'changed',
      stale: true,
      citations: [{ quote: 'missing', detail: '2 commits since; quoted text not at lines 1-3, no longer in the file' }],
    });
    expect(gone.step.report!.newlyStale.map((s) => s.path)).toEqual([QUOTED]);
    expect(gone.step.notes.get(QUOTED)).toBe('cites `src/queue.ts`, 2 commits since; quoted text not at lines 1-3, no longer in the file');

    // A commit that does not touch the quoted file: no quote looked for again, the answers kept.
    writeFiles(root!, { 'src/stable.ts': 'export const stable = 3;\n' });
    commitAll(root!, 'edit stable', '2026-01-12');
    const other = await check('2026-01-13T00:00:00Z');
    expect(other.step.report).toMatchObject({ recheckedPaths: 1, quotes: 3, recheckedQuotes: 0 });
    expect(other.memory(QUOTED).citations[0]).toMatchObject({ quote: 'missing' });
  });

  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'memvault verify --json lists a memory whose quote is gone from its file, with the fix',
    async () => {
      quotedProject();
      writeFiles(root!, { 'src/queue.ts': queueFile([], 'queue.drainAll();') });
      commitAll(root!, 'drain at once', '2026-01-07');
      const result = await runCli(['verify', '--json', '--now', '2026-01-08T00:00:00Z'], { cwd: root! });
      expect(result.code, result.stderr).toBe(0);
      const listed = JSON.parse(result.stdout) as {
        memories: { path: string; stale: boolean; fix?: string; citations: { quote?: string }[] }[];
      };
      const queue = listed.memories.find((m) => m.path === QUOTED)!;
      expect(queue).toMatchObject({ stale: true, citations: [{ quote: 'missing' }] });
      expect(queue.fix).toContain(`re-read ${QUOTED}`);
    },
  );
});
