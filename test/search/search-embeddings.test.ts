import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVectorStore, storeName } from '../../src/search/embeddings/vectors.js';
import { RRF_K, reciprocalRankFusion } from '../../src/search/fuse.js';
import { bagOfWordsVector, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { createProject, memory, removeProject, runCliJson, writeFiles } from '../helpers/project.js';

/**
 * Semantic search against the fake OpenAI-compatible server: what the build
 * embeds (once per content hash), what a search sends, the fused ranking,
 * faults, and a project without the profile that never calls out.
 */

const NOW = '2026-02-20T12:00:00Z';
// Words about cats share one direction in the fake model: a query for `feline` is close to the planted memory, which never says it.
const CAT = /\b(feline|cat|cats|purred|kitten)\b/i;
const embed = (text: string): number[] => {
  const vector = bagOfWordsVector(text);
  if (CAT.test(text)) vector[0]! += 50;
  return vector;
};
const PLANTED = 'main/memories/2026-02-11-windowsill.md';
const files: Record<string, string> = {
  'vault/main/memories/2026-02-10-auth.md': memory({
    date: '2026-02-10T14:05:00Z',
    title: 'Auth refactor',
    tags: ['auth'],
    body: 'Replaced JWT with server sessions stored in Postgres.',
  }),
  'vault/main/memories/2026-02-11-windowsill.md': memory({
    date: '2026-02-11T09:00:00Z',
    title: 'Office visitor',
    body: 'The cat purred on the windowsill all afternoon.',
  }),
  'vault/main/memories/2026-02-12-deploy.md': memory({
    date: '2026-02-12T10:00:00Z',
    title: 'Friday deploy',
    body: 'Deploys go out on Fridays after the invoice check.',
  }),
  'vault/main/memories/2026-02-20-today.md': memory({ date: '2026-02-20T09:00:00Z', title: 'Today', body: 'Standup about the migration.' }),
};
const configFor = (url: string): string =>
  [
    'timezone: UTC',
    'llm:',
    '  backoff_ms: 1',
    'embeddings:',
    `  base_url: ${url}`,
    '  model: fake-embed',
    '  batch_size: 2',
    '  concurrency: 2',
    '',
  ].join('\n');

let server: FakeOpenAI;
let root: string;
let offline: string;
const embedRequests = () => server.requests.filter((r) => r.endpoint === 'embeddings');
const inputsOf = (requests: ReturnType<typeof embedRequests>): string[] => requests.flatMap((r) => [].concat(r.body.input));
const build = async (cwd = root) => (await runCliJson(['build', '--no-commit', '--now', NOW, '--json'], { cwd })).json;
const search = async (words: string[], cwd = root) => (await runCliJson(['search', ...words, '--now', NOW, '--json'], { cwd })).json;

beforeAll(async () => {
  server = await startFakeOpenAI({ embed });
  root = createProject(files, configFor(server.url));
  offline = createProject(files);
}, 30_000);
afterAll(async () => {
  removeProject(root);
  removeProject(offline);
  await server?.close();
});

describe('semantic search (embeddings profile)', () => {
  it('embeds every content hash once, in batches, and nothing on a rebuild', async () => {
    const report = await build();
    const embeddings = report.search.embeddings;
    expect(embeddings).toMatchObject({ model: 'fake-embed', failed: 0 });
    expect(embeddings.embedded).toBe(embeddings.documents);
    const inputs = inputsOf(embedRequests());
    expect(inputs).toHaveLength(embeddings.documents);
    expect(embedRequests().every((r) => [].concat(r.body.input).length <= 2 && r.body.model === 'fake-embed')).toBe(true);
    expect(inputs).toContain('Office visitor\n\nThe cat purred on the windowsill all afternoon.');
    server.reset();
    expect((await build()).search.embeddings).toMatchObject({ embedded: 0, failed: 0, calls: 0 });
    expect(embedRequests()).toHaveLength(0);
  });

  it('fuses the vector ranking with BM25: a query that shares no word with a memory still finds it; offline it does not', async () => {
    server.reset();
    const fused = await search(['feline']);
    expect(fused.semantic).toMatchObject({ model: 'fake-embed', used: true });
    expect(inputsOf(embedRequests())).toEqual(['feline']);
    expect(fused.hits[0].path).toBe(PLANTED);
    // A word BM25 knows still ranks its document first.
    expect((await search(['postgres'])).hits[0].path).toBe('main/memories/2026-02-10-auth.md');

    // Offline, unbuilt: the search indexes the vault itself (BM25 only) and asks no server.
    server.reset();
    const plain = await search(['feline'], offline);
    expect(plain.index.rebuilt).toBe(true);
    expect(plain.hits).toEqual([]);
    expect(plain.semantic).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });

  it('embeds one edited memory once; a failed batch leaves it to BM25 and the next build embeds it', async () => {
    server.reset();
    writeFiles(root, {
      'vault/main/memories/2026-02-20-today.md': memory({
        date: '2026-02-20T09:00:00Z',
        title: 'Today',
        body: 'Standup about the wombat move.',
      }),
    });
    expect((await build()).search.embeddings).toMatchObject({ embedded: 1, failed: 0 });
    expect(inputsOf(embedRequests())).toEqual(['Today\n\nStandup about the wombat move.']);

    server.reset();
    server.inject({ fault: { kind: 'status', status: 503 }, times: Number.POSITIVE_INFINITY, endpoint: 'embeddings' });
    writeFiles(root, {
      'vault/main/memories/2026-02-20-today.md': memory({
        date: '2026-02-20T09:00:00Z',
        title: 'Today',
        body: 'Standup about the quokka move.',
      }),
    });
    const failed = await build();
    expect(failed.search).toMatchObject({ updated: 1, embeddings: { embedded: 0, failed: 1 } });
    expect(failed.search.embeddings.message).toMatch(/1 document left to BM25 only.*503/);
    // Searching still works, by BM25 alone, and says why.
    const bm25 = await search(['quokka']);
    expect(bm25.hits[0].path).toBe('main/memories/2026-02-20-today.md');
    expect(bm25.semantic).toMatchObject({ used: false });
    expect(bm25.semantic.note).toMatch(/BM25 only/);

    server.reset();
    expect((await build()).search.embeddings).toMatchObject({ embedded: 1, failed: 0 });
  });
});

describe('reciprocal rank fusion and the vector store', () => {
  it('sums 1/(k + rank) over the lists, k = 60', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['c', 'd'],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 3) + 1 / (RRF_K + 1), 12);
    expect(fused[3]!.score).toBeCloseTo(1 / (RRF_K + 2), 12);
  });

  it('keeps unit vectors per content hash across opens and cuts a torn last record', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-vectors-'));
    try {
      const sha = (n: number): string => n.toString(16).padStart(64, '0');
      openVectorStore(dir, 'm', undefined).append([
        { sha: sha(1), vector: [3, 4] },
        { sha: sha(2), vector: [0, 2] },
      ]);
      // A row of another size (not this store's) is left out; the others come back normalised.
      setVectorRow(dir, 'm', sha(3), Buffer.from([1, 2, 3]));
      const store = openVectorStore(dir, 'm', undefined);
      expect(store.size).toBe(2);
      expect(store.dimensions).toBe(2);
      expect([...store.get(sha(1))!]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
      // A vector is written once per hash: appending it again changes nothing.
      store.append([{ sha: sha(1), vector: [1, 0] }]);
      expect([...openVectorStore(dir, 'm', undefined).get(sha(1))!]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
      // Another model (or size) is another store.
      expect(openVectorStore(dir, 'other', undefined).size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Plants a row in the state store's `vectors` table, as another writer could have left it. */
function setVectorRow(root: string, model: string, sha: string, bytes: Buffer): void {
  const db = new Database(path.join(root, '.memvault', 'state.sqlite'));
  try {
    db.prepare('INSERT INTO vectors (model, sha256, vector) VALUES (?, ?, ?)').run(
      storeName(model, undefined),
      Buffer.from(sha, 'hex'),
      bytes,
    );
  } finally {
    db.close();
  }
}
