import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { assembleContext } from '../../src/read/context/assemble.js';
import { bucketOf, digestsOf } from '../../src/search/buckets.js';
import { closeIndex, databaseFile, readIndex, updateSearchIndex } from '../../src/search/store.js';
import type { ReadVault } from '../../src/read/vault.js';
import { pickStream } from '../../src/read/vault.js';
import { configSchema } from '../../src/config/schema.js';
import { loadVault } from '../../src/load/load.js';

/**
 * The update path compares bucket digests and reads only the manifest rows of
 * buckets that differ; a warm context remembers search hits until the index
 * changes. Real files, a real SQLite index, in-process.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-buckets-'));
afterAll(() => {
  closeIndex(root);
  rmSync(root, { recursive: true, force: true });
});
const memories = path.join(root, 'vault', 'main', 'memories');
const write = (folder: string, name: string, body: string, date = name.slice(0, 10)): void => {
  mkdirSync(path.join(memories, folder), { recursive: true });
  writeFileSync(path.join(memories, folder, name), `---\ndate: ${date}T09:00:00Z\n---\n${body}\n`);
};
const load = () =>
  loadVault({
    vaultDir: path.join(root, 'vault'),
    stateDir: path.join(root, '.memvault'),
    timezone: 'UTC',
    configuredStreams: ['main'],
  });
/** The manifest as SQLite holds it, read by another connection. */
const manifest = (): Record<string, string> => {
  const db = new Database(databaseFile(root), { readonly: true });
  try {
    return Object.fromEntries(db.prepare('SELECT id, sha256 FROM docs').raw().all() as [string, string][]);
  } finally {
    db.close();
  }
};
const loaderHashes = (vault: Awaited<ReturnType<typeof load>>): Record<string, string> =>
  Object.fromEntries([...vault.state.streams.values()].flatMap((s) => s.memories.map((m) => [m.path, m.sha256])));

describe('search index buckets', () => {
  it('follows edits, renames inside a bucket, moves and deletions, and fills the buckets of an index written before them', async () => {
    write('2026/01', '2026-01-05-a.md', 'alpha apples');
    write('2026/01', '2026-01-06-b.md', 'beta bananas');
    write('2026/02', '2026-02-07-c.md', 'gamma grapes');
    expect(updateSearchIndex(root, await load())).toMatchObject({ rebuilt: true, added: 3 });
    expect(updateSearchIndex(root, await load())).toMatchObject({ written: false, documents: 3 });

    // A rename inside one bucket with the same content: only the path tells it apart.
    renameSync(path.join(memories, '2026/01/2026-01-06-b.md'), path.join(memories, '2026/01/2026-01-06-bb.md'));
    let vault = await load();
    expect(updateSearchIndex(root, vault)).toMatchObject({ added: 1, removed: 1, updated: 0 });
    expect(manifest()).toEqual(loaderHashes(vault));

    // An edit, a new month and a deletion at once.
    write('2026/02', '2026-02-07-c.md', 'gamma grapefruit');
    write('2026/03', '2026-03-01-d.md', 'delta dates');
    rmSync(path.join(memories, '2026/01/2026-01-05-a.md'));
    vault = await load();
    expect(updateSearchIndex(root, vault)).toMatchObject({ added: 1, updated: 1, removed: 1, documents: 3 });
    expect(manifest()).toEqual(loaderHashes(vault));

    // A name with an astral character right after the bucket's seven: inside the bucket's range, so not rewritten again.
    write('2026/03', '2026-03\u{1f680}-launch.md', 'rocket launch', '2026-03-01');
    expect(updateSearchIndex(root, await load())).toMatchObject({ added: 1 });
    expect(updateSearchIndex(root, await load())).toMatchObject({ written: false });
    rmSync(path.join(memories, '2026/03/2026-03\u{1f680}-launch.md'));
    expect(updateSearchIndex(root, await load())).toMatchObject({ removed: 1 });

    // An index from before the buckets (no table, no marker): compared in full once, then by bucket again.
    closeIndex(root);
    const db = new Database(databaseFile(root));
    db.exec("DROP TABLE buckets; DELETE FROM meta WHERE key = 'buckets'");
    db.close();
    write('2026/03', '2026-03-01-d.md', 'delta dried dates');
    vault = await load();
    expect(updateSearchIndex(root, vault)).toMatchObject({ updated: 1, added: 0, removed: 0 });
    expect(manifest()).toEqual(loaderHashes(vault));
    write('2026/03', '2026-03-02-e.md', 'epsilon elderberries');
    vault = await load();
    expect(updateSearchIndex(root, vault)).toMatchObject({ added: 1, updated: 0, removed: 0, documents: 4 });
    expect(manifest()).toEqual(loaderHashes(vault));
  });

  it('gives a bucket the same digest whatever the order of its documents, and another one when a path or hash changes', () => {
    const doc = fc.tuple(
      fc.constantFrom('main/memories/2026/01/', 'main/daily/', 'ops/memories/2026/02/'),
      fc.stringMatching(/^2026-0[12]-[0-9a-z-]{1,12}\.md$/),
      fc.stringMatching(/^[0-9a-f]{64}$/),
    );
    fc.assert(
      fc.property(fc.uniqueArray(doc, { minLength: 1, maxLength: 12, selector: ([dir, name]) => dir + name }), fc.nat(), (docs, seed) => {
        const pairs = docs.map(([dir, name, sha]) => [dir + name, sha] as const);
        const shuffled = [...pairs].sort((a, b) => ((a[0].length * 31 + seed) % 7) - ((b[0].length * 31 + seed) % 7));
        const of = (list: readonly (readonly [string, string])[]) =>
          Object.fromEntries(
            [
              ...digestsOf((visit) => {
                for (const [id, sha] of list) visit(id, sha);
              }),
            ].map(([key, digest]) => [key, digest.toString()]),
          );
        expect(of(shuffled)).toEqual(of(pairs));
        const [id, sha] = pairs[0]!;
        const flipped = `${sha[0] === 'a' ? 'b' : 'a'}${sha.slice(1)}`;
        expect(of([[id, flipped], ...pairs.slice(1)])[bucketOf(id)]).not.toBe(of(pairs)[bucketOf(id)]);
        const renamed = id.replace(/\.md$/, '-x.md');
        if (!pairs.some(([other]) => other === renamed))
          expect(of([[renamed, sha], ...pairs.slice(1)])[bucketOf(id)]).not.toBe(of(pairs)[bucketOf(id)]);
      }),
    );
  });

  it('answers a warm context from remembered hits only while the index is unchanged', async () => {
    write('2026/04', '2026-04-01-f.md', 'The webhook retries use exponential backoff.');
    let loaded = await load();
    updateSearchIndex(root, loaded);
    const vaultOf = (l: typeof loaded): ReadVault => ({
      root,
      config: configSchema.parse({ timezone: 'UTC' }),
      vaultDir: path.join(root, 'vault'),
      loaded: l,
    });
    const context = (vault: ReadVault) =>
      assembleContext({
        vault,
        stream: pickStream(vault, 'main'),
        index: readIndex(root)!.index,
        budget: 2000,
        now: new Date('2026-04-02T00:00:00Z'),
        signals: { query: 'webhook backoff' },
      }).items.map((item) => item.source);
    const vault = vaultOf(loaded);
    expect(context(vault)).toContain('main/memories/2026/04/2026-04-01-f.md');
    // The same loaded vault, a changed index (this connection's write): the hits are looked up again, not remembered.
    write('2026/04', '2026-04-01-f.md', 'The retries use a fixed delay now.');
    loaded = await load();
    updateSearchIndex(root, loaded);
    expect(context(vault)).not.toContain('main/memories/2026/04/2026-04-01-f.md');
    expect(context(vaultOf(loaded))).not.toContain('main/memories/2026/04/2026-04-01-f.md');
  });
});
