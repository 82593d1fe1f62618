import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMemvaultHook, planClaudeCode } from '../../src/integrate/claude-code.js';
import { createProject, readJsonFile, readText, removeProject, runCli, runCliJson, snapshotTree } from '../helpers/project.js';

/**
 * `memvault integrate claude-code`: the MCP server in `.mcp.json` and the
 * session hooks in `.claude/settings.json`, merged into what a person has.
 */

const SETTINGS = {
  permissions: { allow: ['Bash(npm test:*)'] },
  hooks: {
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }],
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo "Read CONTRIBUTING.md first"' }] }],
  },
  model: 'sonnet',
};
const MCP = {
  mcpServers: { github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } },
};

describe('integrate claude-code on a project with settings and servers of its own', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({
      '.claude/settings.json': `${JSON.stringify(SETTINGS, null, 2)}\n`,
      '.mcp.json': `${JSON.stringify(MCP, null, 2)}\n`,
    });
  });
  afterAll(() => removeProject(root));

  it('--dry-run shows the merged JSON and writes nothing', async () => {
    const before = snapshotTree(root);
    const result = await runCli(['integrate', 'claude-code', '--dry-run'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"memvault hook session-start"');
    expect(result.stdout).toContain('"startup|resume|clear|compact"');
    expect(result.stdout).toContain('--dry-run: nothing written');
    expect(snapshotTree(root)).toEqual(before);
  });

  it('adds the server and the four hooks, keeping every other server, hook and setting; a second run changes nothing', async () => {
    const { json } = await runCliJson(['integrate', 'claude-code', '--json'], { cwd: root });
    expect(json.files.map((f: any) => [f.path, f.changed, f.added])).toEqual([
      ['.mcp.json', true, ['mcpServers.memvault']],
      ['.claude/settings.json', true, ['hooks.SessionStart', 'hooks.PreCompact', 'hooks.SessionEnd', 'hooks.PreToolUse']],
    ]);
    const mcp = readJsonFile(root, '.mcp.json');
    expect(mcp.mcpServers).toEqual({ ...MCP.mcpServers, memvault: { command: 'memvault', args: ['mcp'] } });
    const settings = readJsonFile(root, '.claude/settings.json');
    expect(settings.permissions).toEqual(SETTINGS.permissions);
    expect(settings.model).toBe('sonnet');
    expect(settings.hooks.PostToolUse).toEqual(SETTINGS.hooks.PostToolUse);
    expect(settings.hooks.SessionStart).toEqual([
      SETTINGS.hooks.SessionStart[0],
      { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: 'memvault hook session-start', timeout: 30 }] },
    ]);
    expect(settings.hooks.PreCompact).toEqual([{ hooks: [{ type: 'command', command: 'memvault hook pre-compact', timeout: 60 }] }]);
    expect(settings.hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: 'memvault hook session-end', timeout: 60 }] }]);
    expect(settings.hooks.PreToolUse).toEqual([
      { matcher: 'Read|Edit|MultiEdit|Write', hooks: [{ type: 'command', command: 'memvault hook pre-tool', timeout: 5 }] },
    ]);

    const files = snapshotTree(root);
    const again = await runCli(['integrate', 'claude-code'], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('.mcp.json: unchanged');
    expect(again.stdout).toContain('.claude/settings.json: unchanged');
    expect(snapshotTree(root)).toEqual(files);
  });

  it('never overwrites a file it cannot read as JSON', async () => {
    const broken = createProject({ '.claude/settings.json': '{ "hooks": { oops } }\n' });
    try {
      const result = await runCli(['integrate', 'claude-code'], { cwd: broken });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/\.claude\/settings\.json is not valid JSON/);
      expect(readText(broken, '.claude/settings.json')).toBe('{ "hooks": { oops } }\n');
    } finally {
      removeProject(broken);
    }
  });
});

describe('planClaudeCode', () => {
  it('writes both files from nothing, and takes another way to start memvault', () => {
    const plan = planClaudeCode(undefined, undefined, 'npx memvault');
    expect(plan.mcp.after).toEqual({ mcpServers: { memvault: { command: 'npx', args: ['memvault', 'mcp'] } } });
    expect((plan.settings.after.hooks as any).SessionStart[0].hooks[0].command).toBe('npx memvault hook session-start');
  });

  it('keeps a memvault server or hook a person set up differently', () => {
    const custom = { mcpServers: { memvault: { command: '/opt/memvault/bin/memvault', args: ['-C', '/srv/vault', 'mcp'] } } };
    const settings = {
      hooks: { PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: '/opt/memvault/bin/memvault hook pre-compact' }] }] },
    };
    const plan = planClaudeCode(custom, settings);
    expect(plan.mcp.changed).toBe(false);
    expect(plan.mcp.after).toEqual(custom);
    expect((plan.settings.after.hooks as any).PreCompact).toEqual(settings.hooks.PreCompact);
    expect(plan.settings.added).toEqual(['hooks.SessionStart', 'hooks.SessionEnd', 'hooks.PreToolUse']);
  });

  it('tells memvault hooks from others', () => {
    expect(isMemvaultHook('memvault hook session-start', 'session-start')).toBe(true);
    expect(isMemvaultHook('npx memvault hook pre-compact')).toBe(true);
    expect(isMemvaultHook('memvault hook session-end', 'session-start')).toBe(false);
    expect(isMemvaultHook('echo hook session-start')).toBe(false);
    expect(() => planClaudeCode(undefined, { hooks: { SessionStart: {} } })).toThrow(/not a list/);
  });
});
