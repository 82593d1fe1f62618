import type { Diagnostic } from '../vault/model.js';
import { AgentTurns, isInjectedText } from './agent-turns.js';
import { fail, timeOf, titleFromTurns, type ParsedTranscript, type Session } from './session.js';
import { AppendedJsonLines } from './json-lines.js';

/**
 * Codex session logs, the "rollout" files (`~/.codex/sessions/YYYY/MM/DD/
 * rollout-<time>-<id>.jsonl`, the `transcript_path` of Codex hooks): one JSON
 * object per line, `{"timestamp", "type", "payload"}`
 * (https://github.com/openai/codex/blob/main/codex-rs/protocol/src/protocol.rs,
 * `RolloutLine`). Read:
 * - `session_meta`: the session's `id`, `cwd` and git branch;
 * - `turn_context`: the model;
 * - `response_item`: what the model saw and said — `message` (role `user` or
 *   `assistant`, `input_text` / `output_text` parts), `function_call`,
 *   `custom_tool_call` and `local_shell_call` (tool calls), and their
 *   `*_output` (results, linked by `call_id`);
 * - `compacted`: the summary a compaction left.
 * Left out: `event_msg` lines (the same conversation again, for the UI),
 * `reasoning` (encrypted), `developer`/`system` messages, the instructions and
 * environment Codex puts in the first user message, and unknown line types, so
 * a newer Codex still imports.
 */

const RULE = 'ingest/codex';
const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** Whether a parsed first line looks like a Codex rollout line (used to tell JSON Lines formats apart). */
export function isCodexLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record.type === 'string' && ROLLOUT_TYPES.has(record.type) && 'payload' in record;
}

/** The session of a Codex rollout held in memory (tests, `--format codex` on a small file). */
export function parseCodex(text: string, file: string): ParsedTranscript {
  const parser = new CodexParser(file);
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) parser.line(lines[index]!, index + 1);
  return parser.finish(text.endsWith('\n'));
}

/** A Codex rollout read one line at a time (`line`, then `finish`): only the turns are held. */
export class CodexParser {
  private readonly turns = new AgentTurns();
  private readonly meta: Session['meta'] = {};
  private sessionId: string | undefined;

  private readonly lines: AppendedJsonLines;

  constructor(private readonly file: string) {
    this.lines = new AppendedJsonLines(file, 'each line of a Codex session log is one JSON object', RULE);
  }

  line(text: string, lineNo: number): void {
    const parsed = this.lines.parse(text, lineNo);
    if (!parsed) return;
    const entry: unknown = parsed.value;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || typeof (entry as { type?: unknown }).type !== 'string')
      fail(
        this.file,
        lineNo,
        1,
        'expected a JSON object with `type` and `payload` (`session_meta`, `response_item`, …)',
        'is this a Codex session log (`~/.codex/sessions/…/rollout-*.jsonl`)?',
        RULE,
      );
    const { type, payload, timestamp } = entry as { type: string; payload?: unknown; timestamp?: unknown };
    if (typeof payload !== 'object' || payload === null) return;
    const item = payload as Record<string, unknown>;
    const time = timeOf(timestamp) ?? timeOf(item.timestamp);
    if (type === 'session_meta') {
      if (typeof item.id === 'string') this.sessionId ??= item.id;
      if (typeof item.cwd === 'string') this.meta.cwd ??= item.cwd;
      const git = item.git as Record<string, unknown> | undefined;
      if (typeof git?.branch === 'string' && git.branch) this.meta.branch ??= git.branch;
    } else if (type === 'turn_context') {
      if (typeof item.model === 'string') this.meta.model ??= item.model;
      if (typeof item.cwd === 'string') this.meta.cwd ??= item.cwd;
    } else if (type === 'compacted') {
      if (typeof item.message === 'string') this.turns.compactSummary(item.message, time);
    } else if (type === 'response_item') this.responseItem(item, time);
  }

  private responseItem(item: Record<string, unknown>, time: Date | undefined): void {
    switch (item.type) {
      case 'message': {
        const texts = contentTexts(item.content);
        if (item.role === 'user') this.turns.user(texts.filter((text) => !isInjectedText(text)).join('\n\n'), time);
        else if (item.role === 'assistant') this.turns.assistantText(texts.join('\n\n'), time);
        return;
      }
      case 'function_call':
        this.turns.toolCall({ ...callId(item), name: stringOr(item.name, 'tool'), input: parseArguments(item.arguments) }, time);
        return;
      case 'custom_tool_call':
        this.turns.toolCall({ ...callId(item), name: stringOr(item.name, 'tool'), input: item.input }, time);
        return;
      case 'local_shell_call': {
        const action = item.action as Record<string, unknown> | undefined;
        const command = Array.isArray(action?.command) ? action.command.join(' ') : action;
        this.turns.toolCall({ ...callId(item), name: 'shell', input: { command } }, time);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, error } = outputText(item.output);
        this.turns.toolResult(typeof item.call_id === 'string' ? item.call_id : undefined, text, error, time);
        return;
      }
      // reasoning (encrypted), web_search_call and unknown items are left out.
    }
  }

  finish(endsWithNewline: boolean): ParsedTranscript {
    const warnings: Diagnostic[] = [];
    warnings.push(...this.lines.finish(endsWithNewline));
    if (this.turns.messages === 0)
      fail(
        this.file,
        1,
        1,
        'no `response_item` messages found',
        'is this a Codex session log (`~/.codex/sessions/…/rollout-*.jsonl`)? Use --format to choose another format',
        RULE,
      );
    const turns = this.turns.turns;
    const session: Session = { format: 'codex', id: this.sessionId ?? this.file, turns, meta: this.meta };
    const title = titleFromTurns(turns.filter((turn) => !turn.compactSummary));
    if (title) session.title = title;
    return { format: 'codex', sessions: [session], warnings };
  }
}

function callId(item: Record<string, unknown>): { id?: string } {
  return typeof item.call_id === 'string' ? { id: item.call_id } : {};
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value ? value : fallback;
}

/** The text parts of a message's `content` (`input_text`, `output_text`; an image is `[image]`). */
function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, text } = part as Record<string, unknown>;
    if (typeof text === 'string') texts.push(text);
    else if (type === 'input_image') texts.push('[image]');
  }
  return texts;
}

/** A function call's `arguments`: a JSON string as Codex records it, kept as text when it is not JSON. */
function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * A tool's output as text, and whether it failed. Codex records a string (for
 * shell calls often JSON: `{"output": …, "metadata": {"exit_code": …}}`), or an
 * object with `content` and `success`, or a list of content items.
 */
function outputText(output: unknown): { text: string; error: boolean } {
  if (typeof output === 'string') {
    if (output.startsWith('{')) {
      try {
        // Text that starts with `{` parses to an object or not at all; each field is checked before use.
        const parsed: unknown = JSON.parse(output);
        if (typeof parsed === 'object' && parsed !== null && 'output' in parsed && typeof parsed.output === 'string') {
          const metadata = 'metadata' in parsed ? parsed.metadata : undefined;
          const exit = typeof metadata === 'object' && metadata !== null && 'exit_code' in metadata ? metadata.exit_code : undefined;
          return { text: parsed.output, error: typeof exit === 'number' && exit !== 0 };
        }
      } catch {
        // Not JSON after all: the text as it is.
      }
    }
    return { text: output, error: false };
  }
  if (Array.isArray(output)) return { text: contentTexts(output).join('\n'), error: false };
  if (typeof output === 'object' && output !== null) {
    const { content, success } = output as Record<string, unknown>;
    const text = typeof content === 'string' ? content : Array.isArray(content) ? contentTexts(content).join('\n') : JSON.stringify(output);
    return { text, error: success === false };
  }
  return { text: output === undefined || output === null ? '' : String(output), error: false };
}
