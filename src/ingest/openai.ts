import { sha256 } from '../util/hash.js';
import { placeOf } from './json-position.js';
import { fail, timeOf, titleFromTurns, type ParsedTranscript, type Role, type Session, type ToolCall, type Turn } from './session.js';

/**
 * OpenAI chat-completions messages: a JSON array of `{role, content}`
 * messages, or a request body `{model, messages: […]}`. `content` is a string,
 * null, or a list of parts (`text`, `image_url`, `input_audio`, `file`);
 * assistant `tool_calls` (and the older `function_call`) are matched with the
 * `tool` messages answering them by `tool_call_id`. The format has no
 * timestamps: a message's `timestamp`/`created_at` or the body's `created` is
 * used when present, else the date given by `--date`, else the file's time.
 */

const RULE = 'ingest/openai';
const ROLES: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
  function: 'tool',
};

/** The session of a parsed message list or request body (`text` locates errors); throws `IngestError` with the place of a bad message. */
export function parseOpenAi(value: unknown, text: string, file: string): ParsedTranscript {
  const { messages, base, created, model } = messageList(value, text, file);
  const turns: Turn[] = [];
  const calls = new Map<string, ToolCall>();
  messages.forEach((message, i) => {
    const at: Locate = (...rest) => placeOf(text, [...base, i, ...rest]);
    const turn = readMessage(message, i, at, file, calls);
    if (turn) turns.push(turn);
  });
  if (created && turns.length > 0 && !turns.some((t) => t.time)) turns[0]!.time = created;
  // No id in the format: the opening messages identify the conversation, so a longer copy of it is recognised.
  const opening = turns
    .slice(0, 2)
    .map((t) => `${t.role}:${t.text}`)
    .join('\n');
  const session: Session = { format: 'openai', id: `openai-${sha256(opening).slice(0, 16)}`, turns, meta: model ? { model } : {} };
  const title = titleFromTurns(turns);
  if (title) session.title = title;
  return { format: 'openai', sessions: [session], warnings: [] };
}

/** The line and column of a JSON path below the current message (`at('content')`), for an error. */
type Locate = (...rest: (string | number)[]) => { line: number; column: number };

/** The messages of a bare array or a request body, with their JSON path and the body's `created` and `model`. */
function messageList(
  value: unknown,
  text: string,
  file: string,
): { messages: unknown[]; base: (string | number)[]; created: Date | undefined; model: string | undefined } {
  let result: { messages: unknown[]; base: (string | number)[]; created: Date | undefined; model: string | undefined };
  if (Array.isArray(value)) result = { messages: value, base: [], created: undefined, model: undefined };
  else if (typeof value === 'object' && value !== null && Array.isArray((value as Record<string, unknown>).messages)) {
    const body = value as Record<string, unknown>;
    result = {
      messages: body.messages as unknown[],
      base: ['messages'],
      created: timeOf(body.created),
      model: typeof body.model === 'string' ? body.model : undefined,
    };
  } else {
    return fail(
      file,
      1,
      1,
      'expected a JSON array of chat messages (`[{"role": …, "content": …}]`) or an object with a `messages` array',
      'export the `messages` you sent to the chat-completions API',
      RULE,
    );
  }
  if (result.messages.length === 0) {
    const p = placeOf(text, result.base);
    fail(file, p.line, p.column, 'no messages in the array', 'nothing to import', RULE);
  }
  return result;
}

/**
 * One message as a turn, checked (a bad one fails with its place). A `tool`
 * message answers the call it names (or the last unanswered one of its name)
 * and makes no turn of its own; one with no call becomes a tool turn. An
 * empty message without tool calls makes none.
 */
function readMessage(message: unknown, i: number, at: Locate, file: string, calls: Map<string, ToolCall>): Turn | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    const p = at();
    fail(
      file,
      p.line,
      p.column,
      `message ${i + 1}: expected an object with \`role\` and \`content\``,
      'each message is `{"role": "user", "content": "…"}`',
      RULE,
    );
  }
  const m = message as Record<string, unknown>;
  const role = typeof m.role === 'string' ? ROLES[m.role] : undefined;
  if (!role) {
    const p = m.role === undefined ? at() : at('role');
    fail(
      file,
      p.line,
      p.column,
      `message ${i + 1}: expected \`role\` to be one of system, developer, user, assistant, tool, ` +
        `got ${m.role === undefined ? 'none' : `\`${JSON.stringify(m.role)}\``}`,
      'is this an OpenAI chat-completions message list?',
      RULE,
    );
  }
  const content = contentText(m.content);
  if (content === undefined) {
    const p = at('content');
    fail(
      file,
      p.line,
      p.column,
      `message ${i + 1}: expected \`content\` to be a string, null or a list of content parts`,
      'e.g. "content": "Hello" or "content": [{"type": "text", "text": "Hello"}]',
      RULE,
    );
  }
  const time = timeOf(m.timestamp) ?? timeOf(m.created_at) ?? timeOf(m.created);
  const tools = toolCallsOf(m, i, at, file, calls);
  if (role === 'tool') {
    const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : undefined;
    const call = id
      ? calls.get(id)
      : [...calls.values()].reverse().find((c) => c.result === undefined && (m.name === undefined || c.name === m.name));
    if (call) {
      call.result = content;
      return undefined;
    }
    return { role: 'tool', ...(time ? { time } : {}), text: content, tools: [] };
  }
  if (content.trim() === '' && tools.length === 0) return undefined;
  return { role, ...(time ? { time } : {}), text: content, tools };
}

/** A message's `tool_calls` (or older `function_call`), each remembered by id for the `tool` message answering it. */
function toolCallsOf(m: Record<string, unknown>, i: number, at: Locate, file: string, calls: Map<string, ToolCall>): ToolCall[] {
  const tools: ToolCall[] = [];
  const toolCalls = m.tool_calls ?? (m.function_call ? [{ type: 'function', function: m.function_call }] : undefined);
  if (toolCalls === undefined) return tools;
  if (!Array.isArray(toolCalls)) {
    const p = at('tool_calls');
    fail(
      file,
      p.line,
      p.column,
      `message ${i + 1}: expected \`tool_calls\` to be a list`,
      'each tool call is `{"id": …, "type": "function", "function": {"name": …, "arguments": "…"}}`',
      RULE,
    );
  }
  toolCalls.forEach((call, c) => {
    const fn =
      typeof call === 'object' && call !== null
        ? ((call as Record<string, unknown>).function as Record<string, unknown> | undefined)
        : undefined;
    if (!fn || typeof fn.name !== 'string') {
      const p = at('tool_calls', c);
      fail(
        file,
        p.line,
        p.column,
        `message ${i + 1}: tool call ${c + 1} has no \`function.name\``,
        'each tool call is `{"id": …, "type": "function", "function": {"name": …, "arguments": "…"}}`',
        RULE,
      );
    }
    const id = (call as Record<string, unknown>).id;
    const parsed: ToolCall = { name: fn.name, input: parseArguments(fn.arguments), ...(typeof id === 'string' ? { id } : {}) };
    if (parsed.id) calls.set(parsed.id, parsed);
    tools.push(parsed);
  });
  return tools;
}

/** Text of a message's content; undefined when it has an unknown shape. */
function contentText(content: unknown): string | undefined {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') {
      parts.push(part);
      continue;
    }
    if (typeof part !== 'object' || part === null) return undefined;
    const { type, text, refusal } = part as Record<string, unknown>;
    if (typeof text === 'string') parts.push(text);
    else if (type === 'refusal' && typeof refusal === 'string') parts.push(`(refused) ${refusal}`);
    else if (type === 'image_url' || type === 'input_image') parts.push('[image]');
    else if (type === 'input_audio') parts.push('[audio]');
    else if (type === 'file' || type === 'input_file') parts.push('[file]');
  }
  return parts.join('\n\n');
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
