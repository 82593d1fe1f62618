import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../../src/cli/ops-env.js';
import { createMcpServer, type McpServerHandle } from '../../src/mcp/server.js';
import { OPERATIONS } from '../../src/ops/index.js';
import { InputError } from '../../src/ops/input.js';
import { runOperation } from '../../src/ops/operation.js';
import { createProject, listFiles, memory, removeProject, runCli } from '../helpers/project.js';

/**
 * One validation everywhere: the same bad input gives the same reason from
 * the CLI (the real CLI in a child process: `memvault: <reason>`, exit 1)
 * and from MCP (-32602 Invalid params, `<reason>`), for every operation. An
 * operation the MCP server does not offer (resolve, log, show) is compared
 * with the operations layer called in-process, which is what MCP would run.
 * Nothing is written by any of them.
 */

const NOW = '2026-03-20T12:00:00Z';
const CONFIG = 'timezone: UTC\nstreams:\n  main: { calendar: true, waterfall: false }\n';
const BAD_PERIOD = 'the day after never';

interface Case {
  /** The CLI arguments. */
  cli: string[];
  /** The same input as the operation's arguments (the tool's, when MCP offers the operation). */
  input: Record<string, unknown>;
  /** The reason both give. */
  reason: string | RegExp;
}

const CASES: Record<string, Case[]> = {
  search: [
    { cli: ['search', 'deploy', '--stream', 'nope'], input: { query: 'deploy', stream: 'nope' }, reason: 'no stream `nope` in the vault' },
    { cli: ['search', 'deploy', 'stream:nope'], input: { query: 'deploy stream:nope' }, reason: 'no stream `nope` in the vault' },
    { cli: ['search', 'deploy', '--limit', 'abc'], input: { query: 'deploy', limit: 'abc' }, reason: 'limit must be a number (got "abc")' },
    { cli: ['search', 'deploy', '--limit', '0'], input: { query: 'deploy', limit: 0 }, reason: 'limit must be at least 1 (got 0)' },
    { cli: ['search', 'deploy', '--since', BAD_PERIOD], input: { query: 'deploy', since: BAD_PERIOD }, reason: /: not a period/ },
    {
      cli: ['search', 'deploy', '--tier', 'yearly'],
      input: { query: 'deploy', tier: 'yearly' },
      reason: /^tier must be one of all, memories/,
    },
    {
      cli: ['search', 'deploy', 'tier:yearly'],
      input: { query: 'deploy tier:yearly' },
      reason: /^tier `yearly` is not one of memories, daily/,
    },
    { cli: ['search', 'deploy', `until:"${BAD_PERIOD}"`], input: { query: `deploy until:"${BAD_PERIOD}"` }, reason: /: not a period/ },
  ],
  zoom: [
    { cli: ['zoom', BAD_PERIOD], input: { period: BAD_PERIOD }, reason: /: not a period/ },
    { cli: ['zoom', '2026-03', '--budget', '5'], input: { period: '2026-03', budget: 5 }, reason: 'budget must be at least 100 (got 5)' },
    { cli: ['zoom', '2026-03', '--page', 'two'], input: { period: '2026-03', page: 'two' }, reason: 'page must be a number (got "two")' },
    { cli: ['zoom', '2026-03', '--stream', 'nope'], input: { period: '2026-03', stream: 'nope' }, reason: 'no stream `nope` in the vault' },
    {
      cli: ['zoom', '2026-03', '--tier', 'yearly'],
      input: { period: '2026-03', tier: 'yearly' },
      reason: /^tier must be one of daily, weekly, monthly/,
    },
  ],
  context: [
    { cli: ['context', '--budget', '5'], input: { budget: 5 }, reason: 'budget must be at least 100 (got 5)' },
    { cli: ['context', '--budget', '1.5k'], input: { budget: '1.5k' }, reason: 'budget must be a number (got "1.5k")' },
    { cli: ['context', '--stream', 'nope'], input: { stream: 'nope' }, reason: 'no stream `nope` in the vault' },
    { cli: ['context', '--activity', 'sleeping'], input: { activity: 'sleeping' }, reason: /^activity must be one of debugging, feature/ },
  ],
  add: [
    {
      cli: ['add', 'hello', '--stream', 'nope'],
      input: { text: 'hello', stream: 'nope' },
      reason: 'stream `nope` is not declared in memory.config.yaml (streams: main)',
    },
    {
      cli: ['add', 'hello', '--importance', 'huge'],
      input: { text: 'hello', importance: 'huge' },
      reason: /^importance must be one of low, normal, high, pinned/,
    },
    {
      cli: ['add', 'hello', '--title', 'two\nlines'],
      input: { text: 'hello', title: 'two\nlines' },
      reason: /^the title must be one line/,
    },
  ],
  status: [{ cli: ['status', '--stream', 'nope'], input: { stream: 'nope' }, reason: 'no stream `nope` in the vault' }],
  facts: [
    { cli: ['facts', '--at', BAD_PERIOD], input: { at: BAD_PERIOD }, reason: /: not a period/ },
    { cli: ['facts', '--stream', 'nope'], input: { stream: 'nope' }, reason: 'no stream `nope` in the vault' },
  ],
  resolve: [
    {
      cli: ['resolve', 'c-00000000', '--keep', 'c'],
      input: { id: 'c-00000000', keep: 'c' },
      reason: 'keep must be one of a, b, both (got "c")',
    },
    { cli: ['resolve', 'c-00000000', '--keep', 'a'], input: { id: 'c-00000000', keep: 'a' }, reason: 'no open contradiction `c-00000000`' },
  ],
  log: [
    {
      cli: ['log', 'memory.config.yaml', '--limit', 'abc'],
      input: { path: 'memory.config.yaml', limit: 'abc' },
      reason: 'limit must be a number (got "abc")',
    },
    {
      cli: ['log', 'memory.config.yaml', '--limit', '0'],
      input: { path: 'memory.config.yaml', limit: 0 },
      reason: 'limit must be at least 1 (got 0)',
    },
  ],
  show: [
    { cli: ['show', 'memory.config.yaml', '--at', ''], input: { path: 'memory.config.yaml', at: '' }, reason: 'at must not be empty' },
  ],
};

const matches = (text: string, reason: string | RegExp): boolean => (typeof reason === 'string' ? text === reason : reason.test(text));

describe('the same bad input, the same error from the CLI and from MCP', () => {
  let root: string;
  let handle: McpServerHandle;
  let client: Client;
  let before: string[];

  beforeAll(async () => {
    root = createProject(
      {
        'vault/main/memories/2026-03-17-deploy.md': memory({
          date: '2026-03-17T09:00:00Z',
          title: 'Deploy',
          body: 'Deploys need two approvals.',
        }),
      },
      CONFIG,
    );
    before = listFiles(root);
    handle = await createMcpServer({ root, now: () => new Date(NOW), watch: false });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'same-error', version: '1.0.0' });
    await handle.server.connect(serverSide);
    await client.connect(clientSide);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await handle?.close();
    removeProject(root);
  });

  it('covers every operation', () => {
    expect(Object.keys(CASES).sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
  });

  for (const [name, cases] of Object.entries(CASES)) {
    it(`${name}: ${cases.length} bad input(s)`, async () => {
      const op = OPERATIONS.find((candidate) => candidate.name === name)!;
      const viaCli = await Promise.all(cases.map((c) => runCli(c.cli, { cwd: root, env: { MEMVAULT_NOW: NOW } })));
      for (const [i, c] of cases.entries()) {
        const printed = viaCli[i]!;
        expect(printed.code, `${c.cli.join(' ')}: ${printed.stderr}`).toBe(1);
        const reason = /^memvault: (.*)$/m.exec(printed.stderr)?.[1] ?? '';
        expect(matches(reason, c.reason), `CLI ${c.cli.join(' ')}: ${reason}`).toBe(true);
        let other: string;
        if (op.tool) {
          const error = await client.callTool({ name: op.tool.name, arguments: c.input }).then(
            () => undefined,
            (e: { code?: number; message: string }) => e,
          );
          expect(error?.code, `MCP ${op.tool.name} ${JSON.stringify(c.input)}`).toBe(-32602);
          other = error!.message.replace(/^MCP error -32602: /, '');
        } else {
          const error = await runOperation(op, await cliEnv({ root, now: NOW }), c.input).then(
            () => undefined,
            (e: Error) => e,
          );
          expect(error, `${name} ${JSON.stringify(c.input)}`).toBeInstanceOf(InputError);
          other = error!.message;
        }
        expect(other, `${name} ${JSON.stringify(c.input)}`).toBe(reason);
      }
      expect(listFiles(root)).toEqual(before);
      expect(existsSync(path.join(root, 'vault/nope'))).toBe(false);
    }, 30_000);
  }
});
