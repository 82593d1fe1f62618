import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, readJsonFile, readText, removeProject, runCli, runCliJson, snapshotTree } from '../helpers/project.js';

/**
 * `memvault integrate codex | gemini | cursor` (and the next step every agent
 * gets, claude-code too), on projects that already hold the agent's files as
 * its documentation shows them (test/fixtures/agents/, sources in SOURCES.md):
 * memvault's entries are added in the documented shape, everything else is
 * kept, and a second run changes nothing.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/agents');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

async function integrateTwice(root: string, agent: string) {
  const first = await runCli(['integrate', agent], { cwd: root });
  expect(first.code, first.stderr).toBe(0);
  const files = snapshotTree(root);
  const second = await runCli(['integrate', agent], { cwd: root });
  expect(second.code, second.stderr).toBe(0);
  expect(snapshotTree(root)).toEqual(files);
  expect(second.stdout).not.toMatch(/: added /);
  return { first, second };
}

describe('integrate codex', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({
      '.codex/config.toml': fixture('codex/config.toml'),
      '.codex/hooks.json': fixture('codex/hooks.json'),
      'AGENTS.md': '# Ledgerly\n\n<!-- house rules -->\nRun `npm test` before every commit.\n',
    });
  });
  afterAll(() => removeProject(root));

  it('--dry-run prints the files as they would be and the next step, and writes nothing', async () => {
    const before = snapshotTree(root);
    const result = await runCli(['integrate', 'codex', '--dry-run'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('[mcp_servers.memvault]');
    expect(result.stdout).toContain('memvault hook session-start --agent codex');
    expect(result.stdout).toContain('--dry-run: nothing written');
    expect(result.stdout).toMatch(/\nNext: .*trust/);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('appends the server to config.toml (comments kept), adds the hooks and the AGENTS.md section; again: nothing', async () => {
    const { first } = await integrateTwice(root, 'codex');
    expect(first.stdout).toContain('.codex/config.toml: added mcp_servers.memvault; kept mcp_servers.context7');
    expect(first.stdout).toMatch(/\nNote: Codex has no session-end hook: the Stop hook ingests/);
    expect(first.stdout).toMatch(/\nNext: open Codex in this project and trust it/);

    const toml = readText(root, '.codex/config.toml');
    expect(toml.startsWith(fixture('codex/config.toml').trimEnd())).toBe(true);
    const config = parseToml(toml) as any;
    expect(config.mcp_servers.memvault).toEqual({ command: 'memvault', args: ['mcp'] });
    expect(config.mcp_servers.context7.env).toEqual({ MY_ENV_VAR: 'MY_ENV_VALUE' });
    expect(config.model).toBe('gpt-5-codex');

    const hooks = readJsonFile(root, '.codex/hooks.json').hooks;
    expect(hooks.PreToolUse).toEqual(JSON.parse(fixture('codex/hooks.json')).hooks.PreToolUse);
    expect(hooks.SessionStart).toEqual([
      {
        hooks: [
          {
            type: 'command',
            command: 'memvault hook session-start --agent codex',
            timeout: 30,
            statusMessage: 'Loading project memory (memvault)',
          },
        ],
      },
    ]);
    expect(hooks.PreCompact[0].hooks[0]).toMatchObject({
      type: 'command',
      command: 'memvault hook pre-compact --agent codex',
      timeout: 60,
    });
    expect(hooks.Stop[0].hooks[0]).toMatchObject({ type: 'command', command: 'memvault hook session-end --agent codex', timeout: 60 });

    const agents = readText(root, 'AGENTS.md');
    // Another HTML comment in the file is not memvault's marker.
    expect(agents.startsWith('# Ledgerly\n\n<!-- house rules -->\nRun `npm test` before every commit.\n\n<!-- memvault:begin')).toBe(true);
    expect(agents).toContain('call the `context`');
    expect(agents.match(/memvault:begin/g)).toHaveLength(1);
  });

  it('refuses a config.toml it cannot append to (an inline mcp_servers table), writing nothing, and shows the table to add', async () => {
    const inline = 'mcp_servers = { github = { command = "npx", args = ["gh"] } }\n';
    const other = createProject({ '.codex/config.toml': inline });
    try {
      const before = snapshotTree(other);
      const result = await runCli(['integrate', 'codex'], { cwd: other });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('.codex/config.toml');
      expect(result.stderr).toContain('[mcp_servers.memvault]');
      expect(snapshotTree(other)).toEqual(before);
    } finally {
      removeProject(other);
    }
  });
});

describe('integrate gemini', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({ '.gemini/settings.json': fixture('gemini/settings.json') });
  });
  afterAll(() => removeProject(root));

  it('adds the server and the SessionStart, PreCompress and SessionEnd hooks to settings.json, and GEMINI.md; again: nothing', async () => {
    const { first } = await integrateTwice(root, 'gemini');
    expect(first.stdout).toContain(
      '.gemini/settings.json: added mcpServers.memvault, hooks.SessionStart, hooks.PreCompress, hooks.SessionEnd',
    );
    expect(first.stdout).toMatch(/\nNote: Gemini CLI runs no hook after it compresses the context/);
    expect(first.stdout).toMatch(/\nNext: start `gemini` in this project/);
    const settings = readJsonFile(root, '.gemini/settings.json');
    const documented = JSON.parse(fixture('gemini/settings.json'));
    expect(settings.model).toEqual(documented.model);
    expect(settings.mcpServers).toEqual({ ...documented.mcpServers, memvault: { command: 'memvault', args: ['mcp'] } });
    expect(settings.hooks.BeforeTool).toEqual(documented.hooks.BeforeTool);
    expect(settings.hooks.SessionStart).toEqual([
      {
        hooks: [
          { type: 'command', command: 'memvault hook session-start --agent gemini', name: 'memvault-session-start', timeout: 30_000 },
        ],
      },
    ]);
    expect(settings.hooks.PreCompress[0].hooks[0]).toMatchObject({ command: 'memvault hook pre-compact --agent gemini', timeout: 60_000 });
    expect(settings.hooks.SessionEnd[0].hooks[0]).toMatchObject({ command: 'memvault hook session-end --agent gemini', timeout: 60_000 });
    expect(readText(root, 'GEMINI.md')).toMatch(/^<!-- memvault:begin[^\n]*\n## Project memory \(memvault\)/);
  });
});

describe('integrate cursor', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({ '.cursor/mcp.json': fixture('cursor/mcp.json'), '.cursor/hooks.json': fixture('cursor/hooks.json') });
  });
  afterAll(() => removeProject(root));

  it('--json --dry-run reports every file with its content and the next step', async () => {
    const { json } = await runCliJson(['integrate', 'cursor', '--dry-run', '--json'], { cwd: root });
    expect(json.agent).toBe('cursor');
    expect(json.dry_run).toBe(true);
    expect(json.next_step).toMatch(/Settings → MCP/);
    expect(json.note).toMatch(/runs no sessionStart hook, the agent gets the memory through the MCP server/);
    expect(json.files.map((f: any) => [f.path, f.changed])).toEqual([
      ['.cursor/mcp.json', true],
      ['.cursor/hooks.json', true],
      ['.cursor/rules/memvault.mdc', true],
    ]);
    expect(json.files[1].content.hooks.sessionStart).toEqual([{ command: 'memvault hook session-start --agent cursor' }]);
  });

  it('adds the server, the flat sessionStart, preCompact and sessionEnd hooks and an always-applied rule; again: nothing', async () => {
    await integrateTwice(root, 'cursor');
    const mcp = readJsonFile(root, '.cursor/mcp.json');
    expect(mcp.mcpServers).toEqual({
      ...JSON.parse(fixture('cursor/mcp.json')).mcpServers,
      memvault: { command: 'memvault', args: ['mcp'] },
    });
    const hooks = readJsonFile(root, '.cursor/hooks.json');
    expect(hooks).toEqual({
      version: 1,
      hooks: {
        ...JSON.parse(fixture('cursor/hooks.json')).hooks,
        sessionStart: [{ command: 'memvault hook session-start --agent cursor' }],
        preCompact: [{ command: 'memvault hook pre-compact --agent cursor' }],
        sessionEnd: [{ command: 'memvault hook session-end --agent cursor' }],
      },
    });
    const rule = readText(root, '.cursor/rules/memvault.mdc');
    expect(rule).toMatch(/^---\ndescription: [^\n]+\nalwaysApply: true\n---\n/);
    expect(rule).toContain('`add_memory`');
  });

  it('starts from nothing, and takes another way to start memvault', async () => {
    const empty = createProject({});
    try {
      const result = await runCli(['integrate', 'cursor', '--command', 'npx memvault'], { cwd: empty });
      expect(result.code, result.stderr).toBe(0);
      expect(readJsonFile(empty, '.cursor/mcp.json')).toEqual({ mcpServers: { memvault: { command: 'npx', args: ['memvault', 'mcp'] } } });
      expect(readJsonFile(empty, '.cursor/hooks.json').hooks.sessionEnd).toEqual([
        { command: 'npx memvault hook session-end --agent cursor' },
      ]);
    } finally {
      removeProject(empty);
    }
  });
});

describe('integrate: every agent says what to do next', () => {
  it('claude-code prints its next step, written or not', async () => {
    const root = createProject({});
    try {
      const first = await runCli(['integrate', 'claude-code'], { cwd: root });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/\nNext: start Claude Code in this project.*\/mcp/s);
      const again = await runCli(['integrate', 'claude-code'], { cwd: root });
      expect(again.stdout).toMatch(/\nNext: nothing changed; if the agent does not use memvault yet, start Claude Code/);
    } finally {
      removeProject(root);
    }
  });

  it('an unknown agent names the ones there are', async () => {
    const root = createProject({});
    try {
      const result = await runCli(['integrate', 'windsurf'], { cwd: root });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('unknown agent `windsurf`');
      expect(result.stderr).toContain('claude-code, codex, gemini, cursor');
    } finally {
      removeProject(root);
    }
  });
});
