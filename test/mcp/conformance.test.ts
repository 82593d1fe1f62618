import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer, type McpServerHandle } from '../../src/mcp/server.js';
import { OPERATIONS } from '../../src/ops/index.js';
import { build } from '../../src/pipeline/build.js';
import { readUsageLog } from '../../src/usage/log.js';
import { createProject, listFiles, memory, removeProject, runCli, writeFiles } from '../helpers/project.js';

/**
 * The MCP server against the letter of the spec, driven by the SDK's Client
 * in-process (InMemoryTransport): every tool declares an outputSchema (the
 * operation's result schema) and the four annotations, every result fits its
 * schema (the Client checks it too), resources/list is paginated, a build
 * sends list_changed (and updated for a subscribed resource), an unknown
 * resource is -32002, an undeclared stream -32602 with nothing written.
 */

const NOW = '2026-03-20T12:00:00Z';
const CONFIG = 'timezone: UTC\nstreams:\n  main: { calendar: true, waterfall: false }\n';
const files: Record<string, string> = {
  'vault/main/memories/2026-03-16-deploy.md': memory({
    date: '2026-03-16T09:00:00Z',
    title: 'Deploy rule',
    importance: 'pinned',
    body: 'Production deploys need two approvals.',
  }),
  'vault/main/memories/2026-03-17-sessions.md': memory({
    date: '2026-03-17T10:00:00Z',
    title: 'Sessions',
    kind: 'decision',
    body: 'Decision: server sessions in Postgres replace JWT.\n\nFact: session_store = postgres',
  }),
  'vault/main/memories/2026-03-18-payments.md': memory({
    date: '2026-03-18T08:00:00Z',
    title: 'Payments retries',
    body: 'The payments worker retries webhooks three times.',
  }),
};

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

const memoryFiles = (root: string): string[] => listFiles(root, 'vault').filter((file) => file.includes('/memories/'));

describe('memvault mcp, to the letter of the spec', () => {
  let root: string;
  let handle: McpServerHandle;
  let client: Client;
  const notices: { method: string; uri?: string }[] = [];

  beforeAll(async () => {
    root = createProject(files, CONFIG);
    await build({ root, now: new Date(NOW), commit: false });
    handle = await createMcpServer({ root, now: () => new Date(NOW), pageSize: 2 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'conformance', version: '1.0.0' });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void notices.push({ method: 'list_changed' }));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void notices.push({ method: 'updated', uri: n.params.uri }));
    await handle.server.connect(serverSide);
    await client.connect(clientSide);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await handle?.close();
    removeProject(root);
  });

  it('says what it is for (instructions) and offers a small tool set, each with outputSchema and the four annotations', async () => {
    expect(client.getInstructions()).toMatch(/Call `context` at the start of a task/);
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    const { tools } = await client.listTools();
    expect(tools.length).toBeLessThanOrEqual(8);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeLessThanOrEqual(160);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const hints = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
        expect(typeof hints[hint], `${tool.name} ${hint}`).toBe('boolean');
    }
  });

  it('answers every tool with structuredContent that fits the declared outputSchema and the operation’s schema', async () => {
    // listTools first: the Client then checks every structuredContent against its tool's outputSchema (it throws if not).
    await client.listTools();
    const calls: Record<string, Record<string, unknown>> = {
      context: { query: 'sessions', budget: 2000 },
      search: { query: 'payments webhooks' },
      zoom: { period: '2026-W12' },
      status: {},
      facts: {},
      add_memory: { text: 'The otter job runs at night.', tags: ['jobs'] },
    };
    for (const op of OPERATIONS.filter((candidate) => candidate.tool)) {
      const args = calls[op.tool!.name];
      expect(args, `a call for ${op.tool!.name}`).toBeDefined();
      const answer = await client.callTool({ name: op.tool!.name, arguments: args });
      expect(answer.isError, `${op.tool!.name}: ${JSON.stringify(answer.content)}`).toBeFalsy();
      const checked = op.output.safeParse(answer.structuredContent);
      expect(checked.success, `${op.tool!.name}: ${checked.error?.message}`).toBe(true);
    }
  });

  it('pages resources/list with an opaque cursor; a cursor it never gave is -32602', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(2);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain('memvault://main/UPLOAD_PACKAGE.md');
    expect(seen).toContain('memvault://main/summary/daily/2026-03-17');
    await expect(client.listResources({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602 });
  });

  it('an unknown resource is -32002 (Resource not found) with its URI', async () => {
    const uri = 'memvault://main/summary/weekly/1999-W01';
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002, data: { uri } });
    await expect(client.readResource({ uri: 'memvault://nope/UPLOAD_PACKAGE.md' })).rejects.toMatchObject({ code: -32002 });
  });

  it('add_memory with an undeclared stream is -32602 with the words of `memvault add`, and writes nothing', async () => {
    const before = memoryFiles(root);
    const config = readFileSync(path.join(root, 'memory.config.yaml'), 'utf8');
    const refused = client.callTool({ name: 'add_memory', arguments: { text: 'hello', stream: 'nope' } });
    await expect(refused).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: stream `nope` is not declared in memory.config.yaml (streams: main)',
      data: { rule: 'add/stream' },
    });
    expect(existsSync(path.join(root, 'vault/nope'))).toBe(false);
    expect(memoryFiles(root)).toEqual(before);
    expect(readFileSync(path.join(root, 'memory.config.yaml'), 'utf8')).toBe(config);
    // The CLI refuses the same input in the same words.
    const cli = await runCli(['add', 'hello', '--stream', 'nope'], { cwd: root });
    expect(cli.code).toBe(1);
    expect(cli.stderr.split('\n')[0]).toBe('memvault: stream `nope` is not declared in memory.config.yaml (streams: main)');
  });

  it('counts served items only: status, listing and refused calls add nothing to the usage log', async () => {
    const lines = () => readUsageLog(root).events;
    const before = lines().length;
    await client.callTool({ name: 'status', arguments: {} });
    await client.listResources();
    await client.callTool({ name: 'search', arguments: { query: 'x', stream: 'nope' } }).catch(() => {});
    expect(lines().length).toBe(before);
    await client.readResource({ uri: 'memvault://main/summary/daily/2026-03-17' });
    const served = lines().slice(before);
    expect(served).toEqual([expect.objectContaining({ via: 'mcp:resource', path: 'main/daily/2026-03-17.md' })]);
  });

  it('a build that adds a summary sends list_changed, and updated for a subscribed package', async () => {
    await client.subscribeResource({ uri: 'memvault://main/UPLOAD_PACKAGE.md' });
    notices.length = 0;
    writeFiles(root, {
      'vault/main/memories/2026-03-19-lynx.md': memory({
        date: '2026-03-19T09:00:00Z',
        title: 'Lynx',
        body: 'The lynx export runs weekly.',
      }),
    });
    await build({ root, now: new Date(NOW), commit: false });
    expect(await until(() => notices.some((n) => n.method === 'list_changed'), 10_000)).toBe(true);
    expect(await until(() => notices.some((n) => n.uri === 'memvault://main/UPLOAD_PACKAGE.md'), 10_000)).toBe(true);
    const { resources } = await client.listResources();
    const all = [...resources];
    let cursor = (await client.listResources()).nextCursor;
    while (cursor) {
      const page = await client.listResources({ cursor });
      all.push(...page.resources);
      cursor = page.nextCursor;
    }
    expect(all.map((r) => r.uri)).toContain('memvault://main/summary/daily/2026-03-19');
    expect(readdirSync(path.join(root, 'vault/main/daily'))).toContain('2026-03-19.md');
  }, 30_000);
});
