import { describe, expect, it } from 'vitest';
import { planCodex } from '../../src/integrate/codex.js';
import { planCursor } from '../../src/integrate/cursor.js';
import { markdownBlockChange, tomlTableChange } from '../../src/integrate/files.js';
import { planGemini } from '../../src/integrate/gemini.js';

/** The integrate plans without I/O: what is kept when a person already set memvault up their way. */

describe('integrate plans', () => {
  it('codex from nothing: the three files, the server started the way given', () => {
    const [config, hooks, agents] = planCodex({}, 'npx memvault');
    expect(config!.after).toBe('[mcp_servers.memvault]\ncommand = "npx"\nargs = ["memvault", "mcp"]\n');
    expect(JSON.parse(hooks!.after).hooks.Stop[0].hooks[0].command).toBe('npx memvault hook session-end --agent codex');
    expect(agents!.after).toMatch(/^<!-- memvault:begin/);
  });

  it('keeps a memvault server, hook or instructions a person set up differently', () => {
    const toml = '[mcp_servers.memvault]\ncommand = "/opt/memvault/bin/memvault"\nargs = ["-C", "/srv/vault", "mcp"]\n';
    expect(tomlTableChange('.codex/config.toml', toml, 'mcp_servers', { command: 'memvault', args: ['mcp'] })).toMatchObject({
      changed: false,
      after: toml,
      kept: ['mcp_servers.memvault'],
    });
    const settings = {
      hooks: { SessionEnd: [{ matcher: 'exit', hooks: [{ type: 'command', command: '/opt/memvault/bin/memvault hook session-end' }] }] },
    };
    const [gemini] = planGemini({ '.gemini/settings.json': JSON.stringify(settings) });
    expect(gemini!.added).toEqual(['mcpServers.memvault', 'hooks.SessionStart', 'hooks.PreCompress']);
    expect(JSON.parse(gemini!.after).hooks.SessionEnd).toEqual(settings.hooks.SessionEnd);
    const edited = '# Notes\n\n<!-- memvault:begin -->\nOur own words.\n<!-- memvault:end -->\n';
    expect(markdownBlockChange('GEMINI.md', edited, 'ignored')).toMatchObject({ changed: false, after: edited });
    const [, , rule] = planCursor({ '.cursor/rules/memvault.mdc': 'our rule\n' });
    expect(rule).toMatchObject({ changed: false, after: 'our rule\n' });
  });

  it('refuses a hooks value of the wrong shape, naming the file and key', () => {
    expect(() => planCursor({ '.cursor/hooks.json': '{"version":1,"hooks":{"sessionStart":{}}}' })).toThrow(
      '.cursor/hooks.json: hooks.sessionStart is not a list',
    );
    expect(() => planCodex({ '.codex/hooks.json': '{"hooks":[]}' })).toThrow('.codex/hooks.json: `hooks` is not an object');
    expect(() => planGemini({ '.gemini/settings.json': '{"mcpServers": ' })).toThrow(/\.gemini\/settings\.json is not valid JSON/);
    expect(() => planCodex({ '.codex/config.toml': 'model = \n' })).toThrow(/\.codex\/config\.toml is not valid TOML/);
  });
});
