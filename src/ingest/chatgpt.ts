import { placeOf } from './json-position.js';
import { fail, timeOf, titleFromTurns, type ParsedTranscript, type Session, type ToolCall, type Turn } from './session.js';

/**
 * ChatGPT data exports (`conversations.json`): a list of conversations, each
 * with a `title`, `create_time` (epoch seconds) and a `mapping` of message
 * nodes linked by `parent`/`children` (edits and regenerations branch). The
 * branch the user last saw is the path from `current_node` up to the root.
 * Assistant messages addressed to a tool (`recipient` other than `all`:
 * `python`, `browser`, `dalle.text2im`…) are tool calls; `tool` messages are
 * their results. Hidden system messages, custom instructions, model memory
 * and reasoning (`thoughts`) are left out. One session per conversation.
 */

const RULE = 'ingest/chatgpt';
const HIDDEN_CONTENT = new Set(['user_editable_context', 'model_editable_context', 'thoughts', 'reasoning_recap']);

/** Sessions of a parsed `conversations.json` (`text` locates errors); throws `IngestError` with the place of a bad value. */
export function parseChatGpt(value: unknown, text: string, file: string): ParsedTranscript {
  const conversations = Array.isArray(value) ? value : [value];
  const base = Array.isArray(value) ? [] : null;
  const sessions: Session[] = [];
  conversations.forEach((conversation, i) => {
    const path = (...rest: (string | number)[]) => (base ? [i, ...rest] : rest);
    const at: Locate = (...rest) => placeOf(text, path(...rest));
    const session = readConversation(conversation, i, at, file);
    if (session.turns.length > 0) sessions.push(session);
  });
  if (sessions.length === 0)
    fail(file, 1, 1, 'no conversation with messages found', 'is this the `conversations.json` of a ChatGPT data export?', RULE);
  return { format: 'chatgpt', sessions, warnings: [] };
}

/** The line and column of a JSON path below the current conversation (`at('mapping')`), for an error. */
type Locate = (...rest: (string | number)[]) => { line: number; column: number };

/** One conversation as a session: the turns of the branch shown last, its id, model and title. */
function readConversation(conversation: unknown, i: number, at: Locate, file: string): Session {
  if (typeof conversation !== 'object' || conversation === null || Array.isArray(conversation)) {
    const p = at();
    fail(
      file,
      p.line,
      p.column,
      `conversation ${i + 1}: expected an object with \`title\` and \`mapping\``,
      'is this the `conversations.json` of a ChatGPT data export?',
      RULE,
    );
  }
  const c = conversation as Record<string, unknown>;
  const mapping = c.mapping;
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) {
    const p = at(c.mapping === undefined ? 'title' : 'mapping');
    fail(
      file,
      p.line,
      p.column,
      `conversation ${i + 1}: expected a \`mapping\` object of message nodes`,
      'is this the `conversations.json` of a ChatGPT data export?',
      RULE,
    );
  }
  const nodes = mapping as Record<string, unknown>;
  const conversationTime = timeOf(c.create_time);
  const turns: Turn[] = [];
  const calls: { last: ToolCall | undefined } = { last: undefined };
  for (const nodeId of branch(nodes, typeof c.current_node === 'string' ? c.current_node : undefined)) {
    const message = visibleMessage(nodes, nodeId, i, at, file);
    if (message) addMessage(turns, calls, message, conversationTime);
  }
  if (turns.length > 0 && !turns[0]!.time && conversationTime) turns[0]!.time = conversationTime;
  const id = typeof c.conversation_id === 'string' ? c.conversation_id : typeof c.id === 'string' ? c.id : `${file}#${i + 1}`;
  const model = typeof c.default_model_slug === 'string' ? c.default_model_slug : undefined;
  const session: Session = { format: 'chatgpt', id, turns, meta: model ? { model } : {} };
  const title = typeof c.title === 'string' && c.title.trim() ? c.title.trim() : titleFromTurns(turns);
  if (title) session.title = title;
  return session;
}

/** A message a person saw: who wrote it, its text, its time and whom an assistant addressed it to. */
interface VisibleMessage {
  role: string;
  /** `author.name` of a tool message. */
  authorName: unknown;
  body: string;
  time: Date | undefined;
  /** `all`, or the tool an assistant message calls. */
  recipient: string;
}

/**
 * The message of one node, checked (a bad node fails with its place);
 * undefined for an empty node, a system message and hidden content (custom
 * instructions, model memory, reasoning).
 */
function visibleMessage(nodes: Record<string, unknown>, nodeId: string, i: number, at: Locate, file: string): VisibleMessage | undefined {
  const node = nodes[nodeId];
  if (typeof node !== 'object' || node === null) {
    const p = at('mapping', nodeId);
    fail(
      file,
      p.line,
      p.column,
      `conversation ${i + 1}: node \`${nodeId}\` is not an object`,
      'the export may be damaged; export the data again',
      RULE,
    );
  }
  const message = (node as Record<string, unknown>).message;
  if (message === null || message === undefined) return undefined;
  if (typeof message !== 'object') {
    const p = at('mapping', nodeId, 'message');
    fail(
      file,
      p.line,
      p.column,
      `conversation ${i + 1}: expected \`message\` of node \`${nodeId}\` to be an object or null`,
      'the export may be damaged; export the data again',
      RULE,
    );
  }
  const m = message as Record<string, unknown>;
  const author = (m.author ?? {}) as Record<string, unknown>;
  const role = author.role;
  if (typeof role !== 'string') {
    const p = at('mapping', nodeId, 'message', 'author');
    fail(
      file,
      p.line,
      p.column,
      `conversation ${i + 1}: message \`${nodeId}\` has no \`author.role\``,
      'expected `"author": {"role": "user"}` (or assistant, system, tool)',
      RULE,
    );
  }
  const content = (m.content ?? {}) as Record<string, unknown>;
  const contentType = typeof content.content_type === 'string' ? content.content_type : 'text';
  const metadata = (m.metadata ?? {}) as Record<string, unknown>;
  if (role === 'system' || metadata.is_visually_hidden_from_conversation === true || HIDDEN_CONTENT.has(contentType)) return undefined;
  return {
    role,
    authorName: author.name,
    body: contentText(content, contentType),
    time: timeOf(m.create_time),
    recipient: typeof m.recipient === 'string' ? m.recipient : 'all',
  };
}

/**
 * Adds a message to the turns: an assistant message to a tool is a call on
 * the assistant's turn, a tool message its result (or a call of its own when
 * no call waits), an assistant's answer right after its call fills that turn.
 */
function addMessage(
  turns: Turn[],
  calls: { last: ToolCall | undefined },
  message: VisibleMessage,
  conversationTime: Date | undefined,
): void {
  const { role, body, time, recipient } = message;
  const previous = turns[turns.length - 1];
  if (role === 'assistant' && recipient !== 'all') {
    calls.last = { name: recipient, input: body };
    if (previous?.role === 'assistant') previous.tools.push(calls.last);
    else turns.push({ role: 'assistant', ...(time ? { time } : {}), text: '', tools: [calls.last] });
    return;
  }
  if (role === 'tool') {
    const name = typeof message.authorName === 'string' ? message.authorName : 'tool';
    if (calls.last && calls.last.result === undefined) calls.last.result = body;
    else {
      const call: ToolCall = { name, input: undefined, result: body };
      if (previous?.role === 'assistant') previous.tools.push(call);
      else turns.push({ role: 'tool', ...(time ? { time } : {}), text: '', tools: [call] });
    }
    return;
  }
  if (body.trim() === '') return;
  const speaker = role === 'assistant' ? 'assistant' : 'user';
  // The answer after a tool call continues the assistant's turn.
  if (speaker === 'assistant' && previous?.role === 'assistant' && previous.tools.length > 0 && previous.text === '') {
    previous.text = body;
    return;
  }
  const when = time ?? conversationTime;
  turns.push({ role: speaker, ...(when ? { time: when } : {}), text: body, tools: [] });
}

/** Node ids from the root to `current` (the branch shown last); without `current`, the root's latest children. */
function branch(nodes: Record<string, unknown>, current: string | undefined): string[] {
  const parentOf = (id: string): string | undefined => {
    const node = nodes[id] as Record<string, unknown> | undefined;
    return typeof node?.parent === 'string' ? node.parent : undefined;
  };
  if (current && current in nodes) {
    const chain: string[] = [];
    const seen = new Set<string>();
    for (let id: string | undefined = current; id !== undefined && !seen.has(id) && id in nodes; id = parentOf(id)) {
      seen.add(id);
      chain.push(id);
    }
    return chain.reverse();
  }
  const root = Object.keys(nodes).find((id) => parentOf(id) === undefined);
  const chain: string[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = root; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    chain.push(id);
    const children = (nodes[id] as Record<string, unknown> | undefined)?.children;
    id =
      Array.isArray(children) && typeof children[children.length - 1] === 'string' ? (children[children.length - 1] as string) : undefined;
  }
  return chain;
}

function contentText(content: Record<string, unknown>, type: string): string {
  const parts = Array.isArray(content.parts) ? content.parts : undefined;
  const fromParts = (): string =>
    (parts ?? [])
      .map((part) => {
        if (typeof part === 'string') return part;
        if (typeof part === 'object' && part !== null) {
          const p = part as Record<string, unknown>;
          if (p.content_type === 'image_asset_pointer') return '[image]';
          if (p.content_type === 'audio_transcription' && typeof p.text === 'string') return p.text;
          if (typeof p.text === 'string') return p.text;
          if (typeof p.content_type === 'string') return `[${p.content_type.replace(/_/g, ' ')}]`;
        }
        return '';
      })
      .filter((s) => s.length > 0)
      .join('\n\n');
  switch (type) {
    case 'text':
    case 'multimodal_text':
      return fromParts();
    case 'code':
    case 'execution_output':
      return typeof content.text === 'string' ? content.text : fromParts();
    case 'tether_browsing_display':
      return typeof content.result === 'string' ? content.result : fromParts();
    case 'tether_quote':
      return [content.title, content.text].filter((s) => typeof s === 'string' && s).join(': ');
    case 'system_error':
      return `error: ${[content.name, content.text].filter((s) => typeof s === 'string' && s).join(': ')}`;
    default:
      return typeof content.text === 'string' ? content.text : parts ? fromParts() : `[${type.replace(/_/g, ' ')}]`;
  }
}
