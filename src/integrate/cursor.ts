import { UserError } from '../util/errors.js';
import { isMemvaultHook } from './claude-code.js';
import { MEMORY_INSTRUCTIONS } from './instructions.js';
import { addMcpServer, commandWords, type FileChange, jsonChange, objectAt, ownedFileChange, parseJsonObject } from './files.js';

/**
 * `memvault integrate cursor`, as Cursor documents its project files:
 * - `.cursor/mcp.json`: `mcpServers.memvault` with `command` and `args`
 *   (https://cursor.com/docs/context/mcp);
 * - `.cursor/hooks.json`: `{ "version": 1, "hooks": { event: [{ command }] } }`
 *   (https://cursor.com/docs/agent/hooks), a flat list per event.
 *   `sessionStart` gives the memory back as `additional_context`; `preCompact`
 *   and `sessionEnd` ingest the agent transcript named by `transcript_path`;
 * - `.cursor/rules/memvault.mdc`: an always-applied project rule on how to use
 *   the memory (https://cursor.com/docs/context/rules); where a Cursor
 *   version runs no `sessionStart` hook, this rule and the MCP server are what
 *   the agent gets.
 */

export const CURSOR_HOOKS = [
  { event: 'sessionStart', hook: 'session-start' },
  { event: 'preCompact', hook: 'pre-compact' },
  { event: 'sessionEnd', hook: 'session-end' },
] as const;

export const CURSOR_FILES = ['.cursor/mcp.json', '.cursor/hooks.json', '.cursor/rules/memvault.mdc'] as const;

export const CURSOR_RULE = `---
description: How to use this project's memory (memvault MCP server)
alwaysApply: true
---

${MEMORY_INSTRUCTIONS}`;

export function planCursor(files: Record<string, string | undefined>, command = 'memvault'): FileChange[] {
  const [program, ...args] = commandWords(command);
  const mcpFile = '.cursor/mcp.json';
  const mcpAdded: string[] = [];
  const mcpKept: string[] = [];
  const mcp = addMcpServer(
    parseJsonObject(files[mcpFile], mcpFile),
    mcpFile,
    'mcpServers',
    { command: program, args: [...args, 'mcp'] },
    mcpAdded,
    mcpKept,
  );

  const hooksFile = '.cursor/hooks.json';
  const settings = parseJsonObject(files[hooksFile], hooksFile);
  const hooks = objectAt(settings.hooks, hooksFile, 'hooks');
  const next: Record<string, unknown> = { ...hooks };
  const added: string[] = [];
  const kept: string[] = [];
  for (const spec of CURSOR_HOOKS) {
    const list = hooks[spec.event];
    if (list !== undefined && !Array.isArray(list))
      throw new UserError('integrate/settings', `${hooksFile}: hooks.${spec.event} is not a list`);
    const entries = (list ?? []) as { command?: unknown }[];
    if (entries.some((entry) => isMemvaultHook(entry?.command, spec.hook))) {
      kept.push(`hooks.${spec.event} (memvault hook ${spec.hook})`);
      continue;
    }
    next[spec.event] = [...entries, { command: `${command.trim()} hook ${spec.hook} --agent cursor` }];
    added.push(`hooks.${spec.event}`);
  }
  for (const event of Object.keys(hooks))
    if (Array.isArray(hooks[event]) && (hooks[event] as { command?: unknown }[]).some((entry) => !isMemvaultHook(entry?.command)))
      kept.push(`hooks.${event} (other hooks)`);

  return [
    jsonChange(mcpFile, files[mcpFile], mcp, mcpAdded, mcpKept),
    jsonChange(hooksFile, files[hooksFile], { ...settings, version: settings.version ?? 1, hooks: next }, added, kept),
    ownedFileChange('.cursor/rules/memvault.mdc', files['.cursor/rules/memvault.mdc'], CURSOR_RULE),
  ];
}
