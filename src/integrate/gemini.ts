import { MEMORY_INSTRUCTIONS } from './instructions.js';
import {
  addGroupHooks,
  addMcpServer,
  commandWords,
  type FileChange,
  type GroupHookSpec,
  jsonChange,
  markdownBlockChange,
  objectAt,
  parseJsonObject,
} from './files.js';

/**
 * `memvault integrate gemini`, as Gemini CLI documents its project settings
 * (`.gemini/settings.json`, https://geminicli.com/docs/reference/configuration):
 * - `mcpServers.memvault`: `command` and `args`;
 * - `hooks` (https://geminicli.com/docs/hooks/reference): matcher groups of
 *   `{ name, type: "command", command, timeout }`, timeouts in milliseconds.
 *   `SessionStart` (startup, resume, clear; no matcher: all of them) gives the
 *   memory back as `hookSpecificOutput.additionalContext`; `PreCompress` and
 *   `SessionEnd` ingest the chat recording named by `transcript_path`. Gemini
 *   CLI fires no SessionStart after a compression: `GEMINI.md` tells the agent
 *   to call `context` then;
 * - `GEMINI.md`: how to use the memory (Gemini CLI's context file).
 */

export const GEMINI_HOOKS: readonly GroupHookSpec[] = [
  { event: 'SessionStart', hook: 'session-start', fields: { name: 'memvault-session-start', timeout: 30_000 } },
  { event: 'PreCompress', hook: 'pre-compact', fields: { name: 'memvault-pre-compress', timeout: 60_000 } },
  { event: 'SessionEnd', hook: 'session-end', fields: { name: 'memvault-session-end', timeout: 60_000 } },
];

export const GEMINI_FILES = ['.gemini/settings.json', 'GEMINI.md'] as const;

export function planGemini(files: Record<string, string | undefined>, command = 'memvault'): FileChange[] {
  const [program, ...args] = commandWords(command);
  const file = '.gemini/settings.json';
  const before = files[file];
  const added: string[] = [];
  const kept: string[] = [];
  let settings = parseJsonObject(before, file);
  settings = addMcpServer(settings, file, 'mcpServers', { command: program, args: [...args, 'mcp'] }, added, kept);
  const hooks = addGroupHooks(
    objectAt(settings.hooks, file, 'hooks'),
    file,
    GEMINI_HOOKS,
    (hook) => `${command.trim()} hook ${hook} --agent gemini`,
    added,
    kept,
  );
  return [
    jsonChange(file, before, { ...settings, hooks }, added, kept),
    markdownBlockChange('GEMINI.md', files['GEMINI.md'], MEMORY_INSTRUCTIONS),
  ];
}
