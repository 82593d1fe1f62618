import type { IngestFormat } from '../ingest/session.js';
import { UserError } from '../util/errors.js';

/**
 * What differs between the agents that run memvault's hooks
 * (`memvault hook <event> --agent <agent>`): the format of the transcript
 * their `transcript_path` names, how the session-start text is handed back on
 * stdout, and the most characters of it the agent passes to the model whole.
 * Sources are in docs/agents.md.
 */

export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini', 'cursor'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export interface HookAgentProfile {
  /** The format of the transcript at `transcript_path`. */
  format: IngestFormat;
  /**
   * The most characters of session-start context the agent gives the model whole, when it has such a limit; the
   * text is kept within the smaller of this and `hooks.max_chars`.
   */
  maxChars?: number;
  /** stdout of `session-start`: the text in the form the agent reads. */
  sessionStart(text: string): string;
  /** stdout of an ingesting hook (`pre-compact`, `session-end`), from a one-line summary of what was written. */
  ingested(summary: string): string;
}

/** The JSON answer Claude Code, Codex and Gemini CLI read from a SessionStart hook. */
function hookSpecificOutput(text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } })}\n`;
}

export const HOOK_AGENT_PROFILES: Record<HookAgent, HookAgentProfile> = {
  // Hook output over 10,000 characters reaches the model only as a preview (https://code.claude.com/docs/en/hooks).
  'claude-code': { format: 'claude-code', maxChars: 10_000, sessionStart: (text) => text, ingested: (summary) => `${summary}\n` },
  // additionalContext up to Codex's `additionalContextLimit` (10,000 characters by default) reaches the model whole.
  // A Stop or PreCompact hook's stdout must be JSON when there is any: `{}` continues.
  codex: { format: 'codex', maxChars: 10_000, sessionStart: hookSpecificOutput, ingested: () => '{}\n' },
  // Gemini CLI injects additionalContext whole; stdout must hold nothing but the JSON answer.
  gemini: { format: 'gemini', sessionStart: hookSpecificOutput, ingested: () => '{}\n' },
  // Cursor's sessionStart answer: `additional_context` (https://cursor.com/docs/agent/hooks).
  cursor: { format: 'cursor', sessionStart: (text) => `${JSON.stringify({ additional_context: text })}\n`, ingested: () => '{}\n' },
};

/** The profile of `--agent` (default Claude Code); an unknown name is a setup mistake. */
export function hookAgentProfile(name: string | undefined): { agent: HookAgent; profile: HookAgentProfile } {
  const agent = name ?? 'claude-code';
  if (!(HOOK_AGENTS as readonly string[]).includes(agent))
    throw new UserError('integrate/agent', `unknown agent \`${agent}\` for --agent`, { agents: HOOK_AGENTS.join(', ') });
  return { agent: agent as HookAgent, profile: HOOK_AGENT_PROFILES[agent as HookAgent] };
}
