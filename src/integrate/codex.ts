import { MEMORY_INSTRUCTIONS } from './instructions.js';
import {
  addGroupHooks,
  commandWords,
  type FileChange,
  type GroupHookSpec,
  jsonChange,
  markdownBlockChange,
  objectAt,
  parseJsonObject,
  tomlTableChange,
} from './files.js';

/**
 * `memvault integrate codex`, as Codex documents its project configuration:
 * - `.codex/config.toml`: the MCP server, `[mcp_servers.memvault]` with
 *   `command` and `args` (https://developers.openai.com/codex/mcp; Codex reads
 *   a project's `.codex/` only once the project is trusted);
 * - `.codex/hooks.json`: the hooks (https://developers.openai.com/codex/hooks),
 *   the matcher-group form Claude Code also uses, timeouts in seconds.
 *   `SessionStart` (no matcher: every source) gives the memory back;
 *   `PreCompact` and `Stop` ingest the rollout named by `transcript_path`.
 *   Codex has no session-end event: `Stop` ends every turn, and the ingest is
 *   idempotent (a grown rollout updates its memory);
 * - `AGENTS.md`: how to use the memory (https://developers.openai.com/codex/guides/agents-md).
 */

export const CODEX_HOOKS: readonly GroupHookSpec[] = [
  { event: 'SessionStart', hook: 'session-start', fields: { timeout: 30, statusMessage: 'Loading project memory (memvault)' } },
  { event: 'PreCompact', hook: 'pre-compact', fields: { timeout: 60, statusMessage: 'Saving the session to memory (memvault)' } },
  { event: 'Stop', hook: 'session-end', fields: { timeout: 60 } },
];

export const CODEX_FILES = ['.codex/config.toml', '.codex/hooks.json', 'AGENTS.md'] as const;

export function planCodex(files: Record<string, string | undefined>, command = 'memvault'): FileChange[] {
  const [program, ...args] = commandWords(command);
  const config = tomlTableChange('.codex/config.toml', files['.codex/config.toml'], 'mcp_servers', {
    command: program,
    args: [...args, 'mcp'],
  });

  const hooksText = files['.codex/hooks.json'];
  const settings = parseJsonObject(hooksText, '.codex/hooks.json');
  const added: string[] = [];
  const kept: string[] = [];
  const hooks = addGroupHooks(
    objectAt(settings.hooks, '.codex/hooks.json', 'hooks'),
    '.codex/hooks.json',
    CODEX_HOOKS,
    (hook) => `${command.trim()} hook ${hook} --agent codex`,
    added,
    kept,
  );
  const hooksFile = jsonChange('.codex/hooks.json', hooksText, { ...settings, hooks }, added, kept);

  return [config, hooksFile, markdownBlockChange('AGENTS.md', files['AGENTS.md'], MEMORY_INSTRUCTIONS)];
}
