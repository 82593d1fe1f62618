import { UserError } from '../util/errors.js';

/**
 * The JSON a coding agent sends its hooks on stdin. Claude Code sends
 * `session_id`, `transcript_path`, `cwd` and `hook_event_name` to every hook,
 * `source` (startup, resume, clear, compact) to SessionStart, `trigger`
 * (manual, auto) to PreCompact and `reason` to SessionEnd. Unknown fields
 * are ignored, so a newer agent still works.
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

/** Parses a hook's stdin; empty input is `{}`. Throws a `UserError` for text that is not a JSON object. */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError('hook/input', `hook input is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('hook/input', 'hook input is not a JSON object');
  const input: HookInput = {};
  for (const key of ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'source', 'trigger', 'reason'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === 'string') input[key] = field;
  }
  return input;
}
