import { jsonSyntaxError } from '../ingest/json-position.js';
import { UserError } from '../util/errors.js';

/**
 * The JSON a coding agent sends its hooks on stdin. Claude Code sends
 * `session_id`, `transcript_path`, `cwd` and `hook_event_name` to every hook,
 * `source` (startup, resume, clear, compact) to SessionStart, `trigger`
 * (manual, auto) to PreCompact and `reason` to SessionEnd. Unknown fields
 * are ignored, so a newer agent still works. Codex and Gemini CLI send the
 * same fields; Cursor sends `workspace_roots` and `conversation_id` instead
 * of `cwd` and `session_id`.
 */
export interface HookInput {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  source?: string;
  trigger?: string;
  reason?: string;
}

export const HOOK_EVENTS = ['session-start', 'pre-compact', 'session-end'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Largest hook input read: the agent sends a few hundred bytes of JSON; anything near this is not a hook input. */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/**
 * Reads a hook's stdin up to `MAX_HOOK_INPUT_BYTES`: more (`< /dev/zero`, a
 * file piped in by mistake) stops the read with a `UserError` at once,
 * instead of filling memory.
 */
export async function readHookInput(stdin: AsyncIterable<Buffer | string> & { destroy?: () => void }): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > MAX_HOOK_INPUT_BYTES) {
      stdin.destroy?.();
      throw new UserError('hook/input', `hook input is larger than ${MAX_HOOK_INPUT_BYTES / (1024 * 1024)} MiB: not a hook's JSON`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Parses a hook's stdin; empty input is `{}`. Throws a `UserError` for text that is not a JSON object (never quoting it). */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where and what, never the input's text: a file piped in by mistake may hold anything.
    const where = jsonSyntaxError(text, error);
    throw new UserError('hook/input', `hook input is not JSON (line ${where.line}, column ${where.column}: ${where.reason})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('hook/input', 'hook input is not a JSON object');
  const input: HookInput = {};
  for (const key of ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'source', 'trigger', 'reason'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === 'string') input[key] = field;
  }
  // Cursor names the project in `workspace_roots` (its events carry no `cwd`) and the session in `conversation_id`.
  const { workspace_roots: roots, conversation_id: conversation } = value as Record<string, unknown>;
  if (input.cwd === undefined && Array.isArray(roots) && typeof roots[0] === 'string') input.cwd = roots[0];
  if (input.session_id === undefined && typeof conversation === 'string') input.session_id = conversation;
  return input;
}
