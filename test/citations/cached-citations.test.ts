import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { removeProject, runCliJson, writeFiles } from '../helpers/project.js';
import { citedProject, commitAll, PATHS } from './repo.js';

/**
 * A memory read back from the parse cache holds its citations' counts, not
 * the citations (store/lazy-citations.ts): the citation step reads the
 * citations of the memories it works out only, and counts the targets per
 * group of memories (citations/targets.ts). These builds run in their own
 * processes, so every memory but the edited one comes from the cache.
 */

let root: string | undefined;
afterEach(() => {
  removeProject(root);
  root = undefined;
});

const EDITED = 'vault/main/memories/2026/01/2026-01-02-refs.md';

interface BuildJson {
  citations?: { stale: number; citations: number; targets: number; recomputed: number; newly_stale: { path: string; note: string }[] };
}
interface VerifyJson {
  stale: number;
  memories: { path: string; state: string; stale: boolean; citations: { target: string; state: string }[] }[];
}

const build = async (at: string) => (await runCliJson<BuildJson>(['build', '--json', '--now', at], { cwd: root! })).json;
const verify = async (at: string) => (await runCliJson<VerifyJson>(['verify', '--json', '--all', '--now', at], { cwd: root! })).json;

describe('citations of memories read back from the parse cache', () => {
  it('an unchanged memory citing a file a commit deleted is found stale by the next build, verify and INDEX.md', async () => {
    root = citedProject().root;
    const first = await build('2026-01-06T00:00:00Z');
    expect(first.citations).toMatchObject({ stale: 3, targets: 7, citations: 7 });
    commitAll(root, 'built', '2026-01-06');
    // `src/stable.ts`, cited by the stable memory (verified so far, untouched), deleted; another memory edited.
    rmSync(path.join(root, 'src/stable.ts'));
    const edited = path.join(root, EDITED);
    writeFiles(root, { [EDITED]: readFileSync(edited, 'utf8').replace('see #12.', 'see #12 and #13.') });
    commitAll(root, 'delete stable', '2026-01-07');

    const second = await build('2026-01-08T00:00:00Z');
    const stable = PATHS.stable;
    expect(second.citations).toMatchObject({ stale: 4, targets: 7, citations: 7 });
    expect(second.citations!.newly_stale.map((s) => s.path)).toEqual([stable]);
    expect(second.citations!.newly_stale[0]!.note).toMatch(/^cites `src\/stable\.ts`, deleted in [0-9a-f]{7} on 2026-01-07$/);
    // Worked out again: the stable memory (it cites the deleted file) and the edited one, not every citing memory.
    expect(second.citations!.recomputed).toBe(2);

    const checked = await verify('2026-01-08T00:00:00Z');
    expect(checked.stale).toBe(4);
    expect(checked.memories.find((m) => m.path === stable)).toMatchObject({
      stale: true,
      citations: expect.arrayContaining([expect.objectContaining({ target: 'src/stable.ts', state: 'gone' })]),
    });
    // INDEX.md queues it for review with its note.
    const note = second.citations!.newly_stale[0]!.note;
    expect(readFileSync(path.join(root, 'vault/INDEX.md'), 'utf8')).toContain(`- **stale citation** [${stable}](${stable}): ${note}`);
  });

  // Slow (two builds and two checks through the CLI); test/store/cache.test.ts has the cache's own side of it.
  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'a parse cache of the row form before (citations in the rows) is read again, with the same results',
    async () => {
      root = citedProject().root;
      await build('2026-01-06T00:00:00Z');
      const before = await verify('2026-01-06T00:00:00Z');
      const state = path.join(root, '.memvault/state.sqlite');
      downgradeRows(state);

      const again = await build('2026-01-06T00:00:00Z');
      expect(again.citations).toMatchObject({ stale: 3, targets: 7, citations: 7 });
      // What it says of each memory; not its stats (the build committed: what was asked again since differs).
      const after = await verify('2026-01-06T00:00:00Z');
      expect(after.memories).toEqual(before.memories);
      expect(after.stale).toBe(3);
      const db = new Database(state, { readonly: true });
      try {
        const forms = db
          .prepare("SELECT DISTINCT json_extract(entry, '$[0]') FROM parse_files WHERE json_type(entry) = 'array'")
          .pluck()
          .all();
        expect(forms).toEqual([3]);
        expect(db.prepare('SELECT count(*) FROM parse_citations').pluck().get()).toBe(5);
      } finally {
        db.close();
      }
    },
  );
});

/**
 * Rewrites the parse cache as row form 2 wrote it: each memory's citations as tuples at the end of its row, no
 * `parse_citations`, `rows: 2` in the cache's key.
 */
function downgradeRows(file: string): void {
  const db = new Database(file);
  try {
    const citations = new Map(db.prepare('SELECT sha256, citations FROM parse_citations').raw().all() as [string, string][]);
    const update = db.prepare('UPDATE parse_files SET entry = ? WHERE path = ?');
    for (const [p, entry] of db.prepare('SELECT path, entry FROM parse_files').raw().all() as [string, string][]) {
      const row = JSON.parse(entry) as unknown[];
      if (!Array.isArray(row)) continue;
      const stored = citations.get(row[3] as string);
      update.run(JSON.stringify([2, ...row.slice(1, 16), stored ? JSON.parse(stored) : 0]), p);
    }
    db.prepare('DELETE FROM parse_citations').run();
    const key = db.prepare("SELECT value FROM kv WHERE store = 'parse-cache' AND key = 'key'").pluck().get() as string;
    const parsed = JSON.parse(JSON.parse(key) as string) as { rows: number };
    expect(parsed.rows).toBe(3);
    db.prepare("UPDATE kv SET value = ? WHERE store = 'parse-cache' AND key = 'key'").run(
      JSON.stringify(JSON.stringify({ ...parsed, rows: 2 })),
    );
  } finally {
    db.close();
  }
}
