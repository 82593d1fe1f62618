import { UserError } from '../util/errors.js';
import { planClaudeCode } from './claude-code.js';
import { CODEX_FILES, planCodex } from './codex.js';
import { CURSOR_FILES, planCursor } from './cursor.js';
import { type FileChange, parseJsonObject, readProjectFile, writeChanges } from './files.js';
import { GEMINI_FILES, planGemini } from './gemini.js';

/**
 * The agents `memvault integrate` knows: the project files each reads, the
 * plan that merges memvault into them (pure: the files' text in, the changes
 * out), and what the person does next for the agent to pick them up.
 */

export const AGENTS = ['claude-code', 'codex', 'gemini', 'cursor'] as const;
export type Agent = (typeof AGENTS)[number];

interface AgentIntegration {
  files: readonly string[];
  plan(files: Record<string, string | undefined>, command: string): FileChange[];
  nextStep: string;
  /** Where the agent has no hook for part of the job, what it gets instead. */
  note?: string;
}

const INTEGRATIONS: Record<Agent, AgentIntegration> = {
  'claude-code': {
    files: ['.mcp.json', '.claude/settings.json'],
    plan: planClaudeCodeFiles,
    nextStep:
      'start Claude Code in this project (in a running session, /hooks loads the new hooks); approve the project MCP ' +
      'server `memvault` when asked (/mcp lists it). Commit .mcp.json and .claude/settings.json to share them.',
  },
  codex: {
    files: CODEX_FILES,
    plan: planCodex,
    nextStep:
      'open Codex in this project and trust it (Codex reads .codex/ only in trusted projects), then review and trust ' +
      "memvault's hooks in /hooks; /mcp lists the `memvault` server. Commit .codex/ and AGENTS.md to share them.",
    note: 'Codex has no session-end hook: the Stop hook ingests the session at the end of every turn (a grown session updates its memory).',
  },
  gemini: {
    files: GEMINI_FILES,
    plan: planGemini,
    nextStep:
      'start `gemini` in this project: /mcp lists the `memvault` server and /hooks panel its three hooks (Gemini CLI ' +
      'asks before it runs new project hooks). Commit .gemini/settings.json and GEMINI.md to share them.',
    note: 'Gemini CLI runs no hook after it compresses the context: GEMINI.md tells the agent to call the `context` tool then.',
  },
  cursor: {
    files: CURSOR_FILES,
    plan: planCursor,
    nextStep:
      'open the project in Cursor and turn on the `memvault` server in Settings → MCP (Cursor asks before it starts a ' +
      "project's server); Settings → Hooks lists the hooks of .cursor/hooks.json. Commit .cursor/ to share it.",
    note:
      'Where a Cursor version runs no sessionStart hook, the agent gets the memory through the MCP server, as the ' +
      'always-applied rule .cursor/rules/memvault.mdc tells it to.',
  },
};

export function isAgent(name: string): name is Agent {
  return (AGENTS as readonly string[]).includes(name);
}

export interface IntegrationResult {
  agent: Agent;
  dryRun: boolean;
  files: FileChange[];
  /** What the person does next for the agent to use memvault. */
  nextStep: string;
  /** Where the agent has no hook for part of the job, what it gets instead. */
  note?: string;
}

/** Plans, then (unless `dryRun`) writes, the files that change. Nothing is written when any file cannot be merged. */
export function integrate(root: string, agent: string, options: { dryRun?: boolean; command?: string } = {}): IntegrationResult {
  if (!isAgent(agent)) throw new UserError('integrate/agent', `unknown agent \`${agent}\``, { agents: AGENTS.join(', ') });
  const integration = INTEGRATIONS[agent];
  const files: Record<string, string | undefined> = {};
  for (const file of integration.files) files[file] = readProjectFile(root, file);
  const changes = integration.plan(files, options.command?.trim() || 'memvault');
  if (!options.dryRun) writeChanges(root, changes);
  return {
    agent,
    dryRun: options.dryRun ?? false,
    files: changes,
    nextStep: integration.nextStep,
    ...(integration.note ? { note: integration.note } : {}),
  };
}

/** Claude Code's plan (claude-code.ts) as file changes. */
function planClaudeCodeFiles(files: Record<string, string | undefined>, command: string): FileChange[] {
  const mcpText = files['.mcp.json'];
  const settingsText = files['.claude/settings.json'];
  const plan = planClaudeCode(
    mcpText?.trim() ? parseJsonObject(mcpText, '.mcp.json') : undefined,
    settingsText?.trim() ? parseJsonObject(settingsText, '.claude/settings.json') : undefined,
    command,
  );
  return [plan.mcp, plan.settings].map((file) => {
    const before = files[file.path];
    return {
      path: file.path,
      before,
      after: file.changed ? `${JSON.stringify(file.after, null, 2)}\n` : (before ?? ''),
      added: file.added,
      kept: file.kept,
      changed: file.changed,
    };
  });
}
