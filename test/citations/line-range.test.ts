import { afterEach, describe, expect, it } from 'vitest';
import { memory, removeProject, writeFiles } from '../helpers/project.js';
import { checkCitations, citedProject, commitAll, git } from './repo.js';

let root: string | undefined;
afterEach(() => {
  removeProject(root);
  root = undefined;
});

const check = (at: string) => checkCitations(root!, at);

const PAST = 'main/memories/2026/01/2026-01-06-handler.md';
const RANGE = 'main/memories/2026/01/2026-01-06-table.md';
const INSIDE = 'main/memories/2026/01/2026-01-06-setup.md';
/** `lines` lines of code, with or without a newline after the last one. */
const lines = (count: number, last = '\n') =>
  Array.from({ length: count }, (_, i) => `export const v${i + 1} = ${i + 1};`).join('\n') + last;

/** The history of repo.ts, then a 60-line file and three memories citing its lines without quoting them (2026-01-06). */
function rangedProject(): void {
  root = citedProject().root;
  writeFiles(root, {
    'src/big.ts': lines(60),
    [`vault/${PAST}`]: memory({ date: '2026-01-06T10:00:00Z', title: 'Handler', body: 'The handler is at `src/big.ts:50`.' }),
    [`vault/${RANGE}`]: memory({ date: '2026-01-06T11:00:00Z', title: 'Table', body: 'The table is src/big.ts#L30-L45 and no more.' }),
    [`vault/${INSIDE}`]: memory({ date: '2026-01-06T12:00:00Z', title: 'Setup', body: 'Setup starts at `src/big.ts:10`.' }),
  });
  commitAll(root, 'a big file and memories citing its lines', '2026-01-06');
}

describe('a cited line range past the end of the file, nothing quoted', () => {
  it('is changed with the line and the file’s length, from the build and from the store’s readers, after a commit only', async () => {
    rangedProject();
    const first = await check('2026-01-07T00:00:00Z');
    for (const p of [PAST, RANGE, INSIDE]) expect(first.memory(p)).toMatchObject({ state: 'verified', stale: false });

    // Cut to 40 lines, the last without a newline: line 50 and lines 30-45 are not all there any more, line 10 is.
    writeFiles(root!, { 'src/big.ts': lines(40, '') });
    commitAll(root!, 'cut the big file', '2026-01-08');
    const cut = await check('2026-01-09T00:00:00Z');
    expect(cut.step.report).toMatchObject({ recheckedPaths: 1 });
    expect(cut.memory(PAST)).toMatchObject({
      state: 'changed',
      stale: false,
      citations: [{ target: 'src/big.ts', state: 'changed', since: 1, detail: '1 commit since; line 50 is past the end (40 lines)' }],
    });
    expect(cut.memory(RANGE).citations[0]).toMatchObject({ detail: '1 commit since; lines 30-45 run past the end (40 lines)' });
    expect(cut.memory(INSIDE).citations[0]).toMatchObject({ state: 'changed', detail: '1 commit since' });
    expect(cut.verification.paths['src/big.ts']).toMatchObject({ at: 'file', lines: 40 });

    // Renamed, then grown back: the new name's length counts; the range holds again (the rename is what is stale).
    git(root!, ['mv', 'src/big.ts', 'src/small.ts'], '2026-01-10');
    git(root!, ['commit', '-qm', 'rename big to small'], '2026-01-10');
    writeFiles(root!, { 'src/small.ts': lines(55) });
    commitAll(root!, 'grow small', '2026-01-11');
    const renamed = await check('2026-01-12T00:00:00Z');
    expect(renamed.memory(PAST).citations[0]).toMatchObject({ state: 'moved', to: 'src/small.ts' });
    expect(renamed.memory(PAST).citations[0]!.detail).not.toContain('past the end');
    expect(renamed.memory(RANGE).citations[0]!.detail).not.toContain('past the end');
  });
});
