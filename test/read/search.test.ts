import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearch, type SessionSearchOptions } from '../../src/read/search.js';
import { createProject, memory, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';

/**
 * `memvault search` through the real CLI on one fixture vault, built once;
 * the incremental-index scenarios edit the same project afterwards, in order.
 * Ranking details and filters are checked in-process (`openSearch`, what the
 * command calls, on the index the CLI built), so each query costs no process.
 */

const NOW = '2026-02-20T12:00:00Z';
const busyDay = Object.fromEntries(
  Array.from({ length: 5 }, (_, i) => [
    `vault/main/memories/2026-02-12-invoice-${i}.md`,
    memory({ date: `2026-02-12T0${i + 1}:00:00Z`, title: `Invoice run ${i}`, body: `Invoice batch ${i} sent to the ledger.` }),
  ]),
);
const files: Record<string, string> = {
  ...busyDay,
  'vault/main/memories/2026-02-10-auth.md': memory({
    date: '2026-02-10T14:05:00Z',
    title: 'Auth refactor',
    kind: 'decision',
    tags: ['auth', 'backend'],
    body: 'Replaced JWT with server sessions.\n\nSessions live in Postgres, 30-day expiry.',
  }),
  'vault/main/memories/2026-02-11-notes.md': memory({
    date: '2026-02-11T09:00:00Z',
    title: 'Notes',
    body: 'Server restarts are slow; the sessions table needs an index.\n\nA second paragraph.\n\nThe zephyrine cluster was retired today.',
  }),
  'vault/main/memories/2026-02-13-deploy.md': memory({
    date: '2026-02-13T10:00:00Z',
    title: 'Friday deploy',
    kind: 'session',
    tags: ['release'],
    body: 'Deploys go out on Fridays after the invoice check.',
  }),
  'vault/main/memories/2026-02-16-invoice.md': memory({
    date: '2026-02-16T10:00:00Z',
    title: 'Invoice fix',
    body: 'Invoice totals rounded twice; fixed.',
  }),
  'vault/main/memories/2026-02-20-today.md': memory({
    date: '2026-02-20T09:00:00Z',
    title: 'Today',
    body: 'Morning standup about the quokka migration.',
  }),
  'vault/ops/memories/2026-02-12-ops.md': memory({
    date: '2026-02-12T10:00:00Z',
    title: 'Ops',
    tags: ['auth'],
    body: 'Rotated the auth certificates on the edge proxies.',
  }),
  // Holds a secret: held back by the loader, so never indexed (nor shown in a snippet).
  'vault/main/memories/2026-02-14-secret.md': memory({
    date: '2026-02-14T10:00:00Z',
    title: 'Narwhal access',
    body: 'Narwhal staging login: password: "Sup3r-S3cret-Passw0rd!" for the admin user.',
  }),
  // Invalid (no date): reported by the build, never indexed.
  'vault/main/memories/broken.md': '---\ntitle: Broken\n---\nThe marmoset protocol.\n',
};

let root: string;
const search = (args: string[]) => runCliJson(['search', ...args, '--json'], { cwd: root }).then((r) => r.json);
/** The same query in-process: the hits `memvault search <query> --json` prints (without the small boost of used items). */
const searchIn = async (query: string, options: SessionSearchOptions = {}) => (await (await openSearch(root)).search(query, options)).hits;
const build = async () => {
  const { json } = await runCliJson(['build', '--no-commit', '--now', NOW, '--json'], { cwd: root });
  return json;
};

beforeAll(async () => {
  root = createProject(files);
  // A fresh project has no index: its first build leaves it to the first search, later builds keep it current.
  expect((await build()).search).toBeUndefined();
  expect((await search(['zephyrine'])).index).toMatchObject({ rebuilt: true, removed: 0 });
}, 60_000);
afterAll(() => removeProject(root));

describe('memvault search', () => {
  it('ranks the document holding a rare term first, with path:line and a marked snippet', async () => {
    const json = await search(['zephyrine']);
    const hit = json.hits[0];
    // The summaries of its day and week hold it too; they rank below the memory.
    expect(json.hits.slice(1).every((h: any) => h.tier !== 'memories')).toBe(true);
    expect(hit).toMatchObject({ path: 'main/memories/2026-02-11-notes.md', tier: 'memories', period: '2026-02-11', stream: 'main' });
    const lines = readFileSync(path.join(root, 'vault', hit.path), 'utf8').split('\n');
    expect(lines[hit.line - 1]).toContain('zephyrine cluster');
    expect(hit.snippet).toBe('The **zephyrine** cluster was retired today.');
    // Every hit of --json carries its score (higher is better, in order) and where to read it.
    expect(json.hits.length).toBeGreaterThan(1);
    for (const h of json.hits) {
      expect(h).toMatchObject({
        score: expect.any(Number),
        path: expect.any(String),
        line: expect.any(Number),
        period: expect.any(String),
      });
      expect(Number.isFinite(h.score), h.path).toBe(true);
      expect(h.snippet, h.path).toMatch(/\*\*zephyrine\*\*/i);
    }
    const scores = json.hits.map((h: any) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('stems, matches prefixes and forgives a typo; the best match ranks first', async () => {
    expect((await searchIn('deploying'))[0]!.path).toBe('main/memories/2026-02-13-deploy.md');
    expect((await searchIn('zephyr'))[0]?.path).toBe('main/memories/2026-02-11-notes.md');
    expect((await searchIn('zephyrnie'))[0]?.path).toBe('main/memories/2026-02-11-notes.md');
    const sessions = await searchIn('sessions postgres');
    expect(sessions[0]!.path).toBe('main/memories/2026-02-10-auth.md');
    expect(sessions[0]!.line).toBe(9); // "Sessions live in Postgres": 6 frontmatter lines, then 2 body lines
  });

  it('keeps only hits that hold a quoted phrase', async () => {
    const json = await search(['"server sessions"']);
    expect(json.parsed.phrases).toEqual(['server sessions']);
    const paths = [json.hits, ...json.hits.map((h: any) => h.more)].flat().map((h: any) => h.path);
    expect(paths).toContain('main/memories/2026-02-10-auth.md');
    expect(paths).not.toContain('main/memories/2026-02-11-notes.md'); // "server restarts … sessions table"
  });

  it('filters by tag, kind, stream, tier and dates, in the query or as flags', async () => {
    const tagged = await searchIn('auth tag:auth');
    expect(tagged.map((h) => h.path).sort()).toEqual(['main/memories/2026-02-10-auth.md', 'ops/memories/2026-02-12-ops.md']);
    expect((await searchIn('auth tag:auth stream:ops')).map((h) => h.path)).toEqual(['ops/memories/2026-02-12-ops.md']);
    expect((await searchIn('auth tag:auth', { stream: 'main' })).map((h) => h.path)).toEqual(['main/memories/2026-02-10-auth.md']);
    expect((await searchIn('kind:decision')).map((h) => h.path)).toEqual(['main/memories/2026-02-10-auth.md']);
    const weekly = await searchIn('invoice', { tier: 'weekly' });
    expect(weekly.length).toBeGreaterThan(0);
    expect(weekly.every((h) => h.tier === 'weekly' && h.path.startsWith('main/weekly/'))).toBe(true);
    const until = await searchIn('invoice tier:memories until:2026-W07');
    expect(until.map((h) => h.period).sort()).toEqual(['2026-02-12', '2026-02-13']);
    // The flags through the CLI once: --stream, --tier and --since (a day the command turns into the first day of the period).
    const since = await search(['invoice', '--stream', 'main', '--tier', 'memories', '--since', '2026-02-14']);
    expect(since.hits.map((h: any) => h.path)).toEqual(['main/memories/2026-02-16-invoice.md']);
  });

  it('groups the hits of one day so a busy day does not fill the list', async () => {
    const json = await search(['invoice', '--tier', 'memories', '--limit', '3']);
    const periods = json.hits.map((h: any) => h.period);
    expect(new Set(periods).size).toBe(periods.length);
    expect(periods).toEqual(expect.arrayContaining(['2026-02-12', '2026-02-13', '2026-02-16']));
    const busy = json.hits.find((h: any) => h.period === '2026-02-12');
    expect(busy.more).toHaveLength(4);
    const text = await runCli(['search', 'invoice', '--tier', 'memories', '--limit', '3'], { cwd: root });
    expect(text.stdout).toMatch(/\+ 4 more that day: main\/memories\/2026-02-12-invoice-\d\.md:\d+/);
  });

  it('never indexes a file that failed to parse, nor a memory held back for a secret', async () => {
    expect(await searchIn('marmoset')).toEqual([]);
    expect(await searchIn('narwhal')).toEqual([]);
  });

  it('re-indexes one document after one edited memory, and nothing when nothing changed', async () => {
    expect((await build()).search).toMatchObject({ added: 0, updated: 0, removed: 0, written: false });
    // Today's memory: its day is not complete, so no summary changes with it.
    writeFiles(root, {
      'vault/main/memories/2026-02-20-today.md': memory({
        date: '2026-02-20T09:00:00Z',
        title: 'Today',
        body: 'Morning standup about the wombat migration.',
      }),
    });
    expect((await build()).search).toMatchObject({ added: 0, updated: 1, removed: 0, rebuilt: false });
    expect((await search(['wombat'])).hits.map((h: any) => h.path)).toEqual(['main/memories/2026-02-20-today.md']);
    expect((await search(['quokka'])).hits).toEqual([]);
  });

  it('rebuilds a missing index, and one from another format version', async () => {
    rmSync(path.join(root, '.memvault', 'search'), { recursive: true });
    const json = await search(['zephyrine']);
    expect(json.index).toMatchObject({ rebuilt: true, added: json.index.documents });
    expect(json.hits[0].path).toBe('main/memories/2026-02-11-notes.md');
    const db = new Database(path.join(root, '.memvault', 'search', 'index.sqlite'));
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'format'").run();
    db.close();
    expect((await search(['zephyrine'])).index).toMatchObject({ rebuilt: true, reason: 'outdated' });
    // A file that is not a database at all: rebuilt, and the text output says so in one line.
    writeFileSync(path.join(root, '.memvault', 'search', 'index.sqlite'), 'not a database');
    const text = await runCli(['search', 'zephyrine'], { cwd: root });
    expect(text.stdout.split('\n')[0]).toMatch(/^\(search index built: \d+ documents, the old one was unreadable\)$/);
    expect((await search(['zephyrine'])).index.rebuilt).toBe(false);
  });

  it('rejects an empty query and an unknown tier with a hint', async () => {
    const empty = await runCli(['search', ''], { cwd: root });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('hint:');
    const tier = await runCli(['search', 'x', 'tier:hourly'], { cwd: root });
    expect(tier.code).toBe(1);
    expect(tier.stderr).toMatch(/tier `hourly` is not one of/);
  });
});
