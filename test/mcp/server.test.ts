import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { readUsageLog } from '../../src/usage/log.js';
import { CLI, createProject, memory, removeProject, writeFiles } from '../helpers/project.js';

/**
 * `memvault mcp` as an agent sees it: the real CLI in a child process, driven
 * by the SDK's Client over stdio, on one built fixture vault.
 */

const NOW = '2026-03-20T12:00:00Z';
const files: Record<string, string> = {
  'vault/main/memories/2026-01-05-deploy-rule.md': memory({
    date: '2026-01-05T09:00:00Z',
    title: 'Deploy rule',
    importance: 'pinned',
    body: 'Production deploys need two approvals, hotfixes too.',
  }),
  'vault/main/memories/2026-02-10-sessions.md': memory({
    date: '2026-02-10T10:00:00Z',
    title: 'ADR-012 sessions',
    kind: 'decision',
    tags: ['auth'],
    body: 'Decision: server sessions in Postgres replace JWT; 30-day expiry.',
  }),
  'vault/main/memories/2026-03-19-checkout.md': memory({
    date: '2026-03-19T15:00:00Z',
    title: 'Checkout crash',
    kind: 'error',
    body: 'TypeError in checkout: cart total undefined after coupon removal.',
  }),
  'vault/main/memories/2026-03-18-payments.md': memory({
    date: '2026-03-18T08:00:00Z',
    title: 'Payments retries',
    tags: ['payments'],
    body: 'The payments worker retries webhooks three times with backoff.',
  }),
  // A waterfall stream (second in the config, so `main` stays the default): its build writes agent/CONTEXT.md.
  'vault/agent/memories/2026-03-19-agent.md': memory({ date: '2026-03-19T16:00:00Z', body: 'The agent ran the ledger migration.' }),
};
const CONFIG = 'timezone: UTC\nstreams:\n  main: { calendar: true, waterfall: false }\n  agent: { calendar: false, waterfall: true }\n';

interface Session {
  client: Client;
  stderr: () => string;
  errors: Error[];
  close: () => Promise<void>;
}

async function connect(root: string): Promise<Session> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('MEMVAULT_')) env[key] = value;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    cwd: root,
    env: { ...env, MEMVAULT_NOW: NOW, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'memvault-test', version: '1.0.0' });
  const errors: Error[] = [];
  // A line on stdout that is not a protocol message reaches the client as an error.
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors, close: () => client.close() };
}

type ToolAnswer = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };
const call = (s: Session, name: string, args: Record<string, unknown>) =>
  s.client.callTool({ name, arguments: args }) as Promise<ToolAnswer>;

async function searchUntil(s: Session, query: string, found: (hits: any[]) => boolean, ms: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const answer = await call(s, 'search', { query });
    if (found(answer.structuredContent?.hits ?? [])) return Date.now() - started;
    if (Date.now() - started > ms) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('memvault mcp on a fixture vault', () => {
  let root: string;
  let s: Session;

  beforeAll(async () => {
    root = createProject(files, CONFIG);
    // The build only sets the scene for the server: in-process.
    await build({ root, now: new Date(NOW), commit: false });
    s = await connect(root);
  }, 90_000);
  afterAll(async () => {
    await s?.close();
    removeProject(root);
  });

  it('lists six tools with short descriptions, schemas and annotations', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add_memory', 'context', 'facts', 'search', 'status', 'zoom']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.description!.length).toBeLessThanOrEqual(160);
      expect(tool.annotations?.openWorldHint).toBe(false);
      expect(tool.annotations?.readOnlyHint).toBe(tool.name !== 'add_memory');
      expect(tool.annotations?.destructiveHint).toBe(false);
      expect(tool.annotations?.idempotentHint).toBe(tool.name !== 'add_memory');
    }
    expect(Object.keys(byName.context!.inputSchema.properties!)).toEqual([
      'query',
      'budget',
      'file',
      'error',
      'branch',
      'activity',
      'stream',
    ]);
    expect(byName.search!.inputSchema.required).toEqual(['query']);
    expect(Object.keys(byName.search!.inputSchema.properties!)).toEqual(['query', 'limit', 'since', 'until', 'tier', 'stream']);
    expect(Object.keys(byName.zoom!.inputSchema.properties!)).toEqual(['period', 'memories', 'stream', 'budget', 'page', 'tier']);
    expect(byName.add_memory!.inputSchema.required).toEqual(['text']);
    expect(Object.keys(byName.add_memory!.inputSchema.properties!)).toEqual(['text', 'title', 'tags', 'kind', 'importance', 'stream']);
  });

  it('search: hits with path, period and snippet, as text and structured content', async () => {
    const answer = await call(s, 'search', { query: 'postgres sessions' });
    expect(answer.isError).toBeFalsy();
    const hits = answer.structuredContent.hits;
    const paths = hits.flatMap((h: any) => [h.path, ...h.more.map((m: any) => m.path)]);
    // Past the 30 days of memories_days, the build moved it to the archive: search finds it there.
    expect(paths).toContain('main/archive/2026-Q1/2026-02-10-sessions.md');
    const hit = hits.find((h: any) => h.path === 'main/archive/2026-Q1/2026-02-10-sessions.md');
    expect(hit.period).toMatch(/^2026-/);
    expect(hit.snippet.toLowerCase()).toContain('**postgres**');
    expect(answer.content[0]!.text).toContain(`${hits[0].path}:${hits[0].line}`);
    const filtered = await call(s, 'search', { query: 'retries', tier: 'memories' });
    expect(filtered.structuredContent.hits.map((h: any) => h.path)).toEqual(['main/memories/2026-03-18-payments.md']);
  });

  it('context: within the budget, the pinned memory first', async () => {
    const answer = await call(s, 'context', { budget: 600 });
    const result = answer.structuredContent;
    expect(result.token_count).toBeLessThanOrEqual(600);
    expect(result.items[0]).toMatchObject({ tier: 'critical', source: 'main/memories/2026-01-05-deploy-rule.md' });
    expect(answer.content[0]!.text).toContain('Production deploys need two approvals');
    const debugging = await call(s, 'context', { error: 'TypeError in checkout', activity: 'debugging', budget: 2000 });
    expect(debugging.structuredContent.items.map((i: any) => i.source)).toContain('main/memories/2026-03-19-checkout.md');
  });

  it('zoom: the full memories of a period', async () => {
    const answer = await call(s, 'zoom', { period: '2026-03-18..2026-03-19' });
    const result = answer.structuredContent;
    expect(result.memories.map((m: any) => m.path)).toEqual([
      'main/memories/2026-03-18-payments.md',
      'main/memories/2026-03-19-checkout.md',
    ]);
    expect(answer.content[0]!.text).toContain('cart total undefined after coupon removal');
    const week = await call(s, 'zoom', { period: 'last week' });
    expect(week.structuredContent.period).toMatchObject({ kind: 'week', label: '2026-W11' });
  });

  it('status: counts per stream and the most used items', async () => {
    const answer = await call(s, 'status', {});
    const main = answer.structuredContent.streams.find((stream: any) => stream.name === 'main');
    expect(main).toMatchObject({ name: 'main', pinned: 1 });
    expect(main.memories).toBeGreaterThanOrEqual(4);
    expect(main.package.tokens).toBeGreaterThan(0);
    // The calls above were counted (search, context and zoom served these).
    const used = Object.fromEntries(main.usage.most_used.map((u: any) => [u.id, u.count]));
    expect(used['2026-01-05-deploy-rule']).toBeGreaterThanOrEqual(2);
    expect(used['2026-03-19-checkout']).toBeGreaterThanOrEqual(2);
    const log = readUsageLog(root).events;
    expect(new Set(log.map((e) => e.via))).toEqual(new Set(['mcp:search', 'mcp:context', 'mcp:zoom']));
  });

  it('resources: each package, CONTEXT.md of a waterfall stream, the summaries by tier and period', async () => {
    const { resources } = await s.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('memvault://main/UPLOAD_PACKAGE.md');
    // CONTEXT.md is listed for the waterfall stream only, and read back byte for byte from disk.
    expect(uris).toContain('memvault://agent/CONTEXT.md');
    expect(uris).not.toContain('memvault://main/CONTEXT.md');
    const context = await s.client.readResource({ uri: 'memvault://agent/CONTEXT.md' });
    expect(context.contents[0]).toMatchObject({ uri: 'memvault://agent/CONTEXT.md', mimeType: 'text/markdown' });
    const onDisk = readFileSync(path.join(root, 'vault/agent/CONTEXT.md'));
    expect(Buffer.from((context.contents[0] as { text: string }).text, 'utf8').equals(onDisk)).toBe(true);
    expect(onDisk.toString('utf8')).toContain('The agent ran the ledger migration.');
    const weekly = uris.find((uri) => /^memvault:\/\/main\/summary\/weekly\//.test(uri));
    expect(weekly).toBeDefined();
    const pkg = await s.client.readResource({ uri: 'memvault://main/UPLOAD_PACKAGE.md' });
    expect((pkg.contents[0] as { text: string }).text).toBe(readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.md'), 'utf8'));
    const summary = await s.client.readResource({ uri: weekly! });
    expect((summary.contents[0] as { text: string }).text).toMatch(/^---\nmemvault: summary\ntier: weekly/);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['memvault://{stream}/summary/{tier}/{period}']);
    await expect(s.client.readResource({ uri: 'memvault://main/summary/weekly/1999-W01' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringMatching(/no resource `memvault:\/\/main\/summary\/weekly\/1999-W01`/),
    });
  });

  it('add_memory writes a redacted memory that search finds at once', async () => {
    const answer = await call(s, 'add_memory', {
      text: 'The quokka importer authenticates with sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD and runs nightly.',
      tags: ['importer'],
      kind: 'fact',
    });
    expect(answer.isError).toBeFalsy();
    const { vault_path: vaultPath, id } = answer.structuredContent;
    expect(vaultPath).toMatch(/^main\/memories\/2026\/03\/2026-03-20-.*\.md$/);
    expect(id).toBe(vaultPath.slice('main/memories/'.length, -3));
    const text = readFileSync(path.join(root, 'vault', vaultPath), 'utf8');
    expect(text).toContain('[REDACTED:');
    expect(text).not.toContain('sk-proj-abcdef');
    const waited = await searchUntil(s, 'quokka', (hits) => hits.some((h) => h.path === vaultPath), 2000);
    expect(waited).toBeLessThan(2000);
  });

  it('a memory file written by someone else, and an edit, are found by search within 2 seconds', async () => {
    writeFiles(root, {
      'vault/main/memories/2026-03-20-wombat.md': memory({
        date: '2026-03-20T09:00:00Z',
        title: 'Wombat',
        body: 'The wombat cache holds 512 entries.',
      }),
    });
    const added = await searchUntil(s, 'wombat', (hits) => hits.some((h) => h.path === 'main/memories/2026-03-20-wombat.md'), 2000);
    expect(added).toBeLessThan(2000);
    writeFiles(root, {
      'vault/main/memories/2026-03-18-payments.md': memory({
        date: '2026-03-18T08:00:00Z',
        title: 'Payments retries',
        body: 'The payments worker retries webhooks five times; the narwhal queue takes the rest.',
      }),
    });
    const edited = await searchUntil(s, 'narwhal', (hits) => hits.some((h) => h.path === 'main/memories/2026-03-18-payments.md'), 2000);
    expect(edited).toBeLessThan(2000);
  });

  it('a bad argument is -32602 (Invalid params) with a one-line reason; the server goes on', async () => {
    const invalid = (message: RegExp) => ({ code: -32602, message: expect.stringMatching(message) });
    await expect(call(s, 'search', { query: 42 })).rejects.toMatchObject(invalid(/query must be a string \(got 42\)/));
    await expect(call(s, 'zoom', { period: 'the day after never' })).rejects.toMatchObject(invalid(/not a period/));
    await expect(call(s, 'context', { stream: 'nope' })).rejects.toMatchObject(invalid(/no stream `nope`/));
    await expect(call(s, 'context', { budget: -5 })).rejects.toMatchObject(invalid(/budget must be at least 100 \(got -5\)/));
    expect((await call(s, 'search', { query: 'deploys' })).isError).toBeFalsy();
  });

  it('stdout carries protocol messages only; logs go to stderr', () => {
    expect(s.errors).toEqual([]);
    expect(s.stderr()).toContain('memvault mcp: serving');
  });
});

describe('memvault mcp on an empty vault', () => {
  it('answers every read tool without failing, and finds the first memory written', async () => {
    const root = createProject({});
    const s = await connect(root);
    try {
      expect((await call(s, 'search', { query: 'anything' })).content[0]!.text).toBe('No matches.');
      const context = await call(s, 'context', {});
      expect(context.isError).toBeFalsy();
      const status = await call(s, 'status', {});
      expect(status.isError).toBeFalsy();
      // Not built yet: not listed, and reading it is -32002 (Resource not found).
      expect((await s.client.listResources()).resources).toEqual([]);
      const pkg = s.client.readResource({ uri: 'memvault://main/UPLOAD_PACKAGE.md' });
      await expect(pkg).rejects.toMatchObject({ code: -32002, data: { hint: expect.stringMatching(/memvault build/) } });
      // The vault folder does not exist yet: its first memory is found all the same.
      writeFiles(root, {
        'vault/main/memories/2026-03-20-capybara.md': memory({ date: '2026-03-20T08:00:00Z', body: 'The capybara rule.' }),
      });
      expect(await searchUntil(s, 'capybara', (hits) => hits.length > 0, 2000)).toBeLessThan(2000);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
      removeProject(root);
    }
  }, 30_000);
});
