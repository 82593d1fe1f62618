import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVault } from '../../src/load/load.js';
import { build } from '../../src/pipeline/build.js';
import { ParseCache } from '../../src/store/cache.js';
import { keepRecordBasis, type RecordWritten, writeRecord } from '../../src/store/committed-record-write.js';
import { openStateStore } from '../../src/store/database.js';
import { commitAll, gitConfig, initRepo, shortMemories } from '../git/helpers.js';
import { copyProject, createProject, memory, removeProject, writeFiles } from '../helpers/project.js';

/**
 * The committed record written from the parse cache's changes (committed-record-write.ts `planFromChanges`): after a
 * build that saved the cache, the next write looks only at the shards holding a path the cache changed, and writes the
 * record a write from scratch (no record, no kept state) gives, byte for byte. Anything it cannot vouch for (another
 * process saved the cache in between, a shard touched on disk, a file that left the stream) makes it look at every shard.
 */

const NOW = new Date('2026-02-05T06:00:00Z');
/** The last January memory (the stream's order puts it right before February's first, at 09:15). */
const LAST_OF_JANUARY = 'vault/main/memories/2026-01/2026-01-31-3-alerts.md';
const EDITED = 'vault/main/memories/2026-02/2026-02-02-1-alerts.md';

const roots: string[] = [];
let base: string;

beforeAll(async () => {
  const files: Record<string, string> = {};
  ['2026-01-29', '2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02', '2026-02-03'].forEach((day, n) =>
    Object.assign(files, shortMemories(day, n + 1)),
  );
  base = createProject({ '.gitignore': '.memvault/\n', ...files }, gitConfig());
  roots.push(base);
  initRepo(base);
  commitAll(base, 'memories');
  await build({ root: base, now: NOW });
}, 60_000);

/** The basis the state store keeps for the record (its generation), if any. */
function keptBasis(root: string): unknown {
  return openStateStore(path.join(root, '.memvault')).db.prepare("SELECT value FROM kv WHERE store = 'record-basis'").pluck().get();
}
afterAll(() => roots.forEach(removeProject));

/** Loads the vault (as a build does) and writes the record; with `save`, saves the cache and keeps the basis, as a build does. */
async function loadAndWrite(root: string, save = false): Promise<RecordWritten> {
  const vaultDir = path.join(root, 'vault');
  const stateDir = path.join(root, '.memvault');
  const loaded = await loadVault({ vaultDir, stateDir, timezone: 'UTC', configuredStreams: ['main'], useRecord: true });
  const streams = [...loaded.state.streams.values()].map((s) => ({ name: s.name, memories: s.memories, summaries: s.summaries.values() }));
  const written = await writeRecord(vaultDir, streams, loaded.cache, 'UTC', stateDir);
  if (save) {
    loaded.cache.save();
    keepRecordBasis(stateDir, written.basis, loaded.cache);
  }
  return written;
}

/** The record's shards: file name → text. */
function recordOf(root: string): Map<string, string> {
  const dir = path.join(root, 'vault', '.memvault-record', 'main');
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));
}

/** The record written from scratch on a copy of `root`: no record on disk, no state kept for it. */
async function fromScratch(root: string): Promise<Map<string, string>> {
  const scratch = copyProject(root);
  roots.push(scratch);
  rmSync(path.join(scratch, 'vault', '.memvault-record'), { recursive: true, force: true });
  openStateStore(path.join(scratch, '.memvault')).db.exec("DELETE FROM kv WHERE store IN ('record-state', 'record-files', 'record-basis')");
  const written = await loadAndWrite(scratch);
  expect(written.incremental).toBe(false);
  return recordOf(scratch);
}

/** An edit of one memory's body and one January memory moved to February: two shards change, the stream's order does not. */
function editAndMove(root: string): void {
  const edited = path.join(root, EDITED);
  writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nFollow-up: the search change shipped.\n`);
  writeFiles(root, { [LAST_OF_JANUARY]: memory({ date: '2026-02-01T00:01:00Z', title: 'alerts, moved', body: 'Moved to February.' }) });
}

// One project, step after step: a copy would not keep the shards' mtimes to the nanosecond, and the state names them.
describe('the committed record written from the parse cache changes', () => {
  it('keeps no files lists and no basis with the first record (a fresh clone), and keeps them with the next', async () => {
    expect(keptBasis(base)).toBeUndefined();
    expect(await loadAndWrite(base, true)).toMatchObject({ incremental: false, written: [] });
    expect(keptBasis(base)).toBeDefined();
  });

  it('looks only at the shards a changed line leaves or joins, and writes what a write from scratch writes', async () => {
    editAndMove(base);
    const scratch = await fromScratch(base);
    const written = await loadAndWrite(base, true);
    expect(written.incremental).toBe(true);
    expect(written.written.sort()).toEqual([
      '.memvault-record/main/memories-2026-01.jsonl',
      '.memvault-record/main/memories-2026-02.jsonl',
    ]);
    expect(recordOf(base)).toEqual(scratch);
    expect(recordOf(base).get('memories-2026-02.jsonl')).toContain('"p":"main/memories/2026-01/2026-01-31-3-alerts.md"');
  });

  it('keeps going from the changes write after write, and writes nothing when nothing changed', async () => {
    expect(await loadAndWrite(base, true)).toMatchObject({ incremental: true, written: [] });
    // The moved memory back to January (after the day's 13:15 memory, as before).
    writeFiles(base, { [LAST_OF_JANUARY]: memory({ date: '2026-01-31T13:15:00Z', title: 'alerts, back', body: 'Back in January.' }) });
    const scratch = await fromScratch(base);
    const again = await loadAndWrite(base, true);
    expect(again.incremental).toBe(true);
    expect(again.written.sort()).toEqual(['.memvault-record/main/memories-2026-01.jsonl', '.memvault-record/main/memories-2026-02.jsonl']);
    expect(recordOf(base)).toEqual(scratch);
  });

  it('takes a new memory from the changes too: its line joins its shard', async () => {
    const added = 'vault/main/memories/2026-02/2026-02-03-9-new.md';
    writeFiles(base, { [added]: memory({ date: '2026-02-03T20:00:00Z', title: 'new', body: 'A memory added since.' }) });
    const scratch = await fromScratch(base);
    const written = await loadAndWrite(base, true);
    expect(written).toMatchObject({ incremental: true, written: ['.memvault-record/main/memories-2026-02.jsonl'] });
    expect(recordOf(base)).toEqual(scratch);
    expect(recordOf(base).get('memories-2026-02.jsonl')).toContain(added.slice('vault/'.length));
    // The next write finds the new memory among the streams' files as the last one left them.
    expect(await loadAndWrite(base, true)).toMatchObject({ incremental: true, written: [] });
  });

  it('looks at every shard when another process saved the parse cache since the record was written', async () => {
    const other = ParseCache.open(path.join(base, '.memvault'), 'UTC');
    const entry = other.get('main/memories/2026-02/2026-02-03-1-exports.md')!;
    other.set('main/memories/2026-02/2026-02-03-1-exports.md', { ...entry, mtimeMs: entry.mtimeMs + 1 });
    other.save();
    editAndMove(base);
    const scratch = await fromScratch(base);
    expect((await loadAndWrite(base, true)).incremental).toBe(false);
    expect(recordOf(base)).toEqual(scratch);
  });

  it('looks at every shard when a shard on disk is not as it was written', async () => {
    const shard = path.join(base, 'vault', '.memvault-record', 'main', 'memories-2026-02.jsonl');
    const text = readFileSync(shard, 'utf8');
    // A merge left the shard with one line less: rewritten from the cache, though no file in it changed.
    writeFileSync(shard, `${text.split('\n').slice(0, -2).join('\n')}\n`);
    expect((await loadAndWrite(base, true)).incremental).toBe(false);
    expect(readFileSync(shard, 'utf8')).toBe(text);
    expect((await loadAndWrite(base, true)).incremental).toBe(true);
  });

  it('looks at every shard when a file left the stream', async () => {
    rmSync(path.join(base, EDITED));
    const scratch = await fromScratch(base);
    expect((await loadAndWrite(base, true)).incremental).toBe(false);
    expect(recordOf(base)).toEqual(scratch);
    expect(recordOf(base).get('memories-2026-02.jsonl')).not.toContain(EDITED.slice('vault/'.length));
  });
});
