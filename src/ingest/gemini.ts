import type { Diagnostic } from '../vault/model.js';
import { AgentTurns, isInjectedText } from './agent-turns.js';
import {
  compactInput,
  compactResult,
  fail,
  timeOf,
  titleFromTurns,
  type ParsedTranscript,
  type Session,
  type ToolCall,
} from './session.js';
import { AppendedJsonLines } from './json-lines.js';

/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
 * the `transcript_path` of Gemini CLI hooks), as the CLI's
 * `ChatRecordingService` writes them
 * (https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/services/chatRecordingService.ts):
 * - JSON Lines (current): a first line of session metadata (`sessionId`,
 *   `projectHash`, `startTime`), then one message record per line (`id`,
 *   `timestamp`, `type`: `user` | `gemini` | `info` | `error` | `warning`,
 *   `content`, and for `gemini` its `toolCalls`). A record whose `id` was seen
 *   before replaces that message (the CLI appends a message again when its tool
 *   calls or tokens arrive); `{"$rewindTo": id}` drops that message and every
 *   later one; `{"$set": {…}}` updates the metadata (`summary`, or `messages`:
 *   the whole list again).
 * - JSON (older releases): one `ConversationRecord` object with `messages`.
 * Messages are kept by id until the end (shortened: tool answers as
 * `compactResult` keeps them) because a later record may replace or drop them;
 * the turns are built in `finish`. `info`, `error` and `warning` messages
 * (the CLI's own notices) and thoughts are left out.
 */

const RULE = 'ingest/gemini';

/** Whether a parsed JSON value is a Gemini CLI recording: its metadata line, or a whole legacy record. */
export function isGeminiRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record.sessionId === 'string' && typeof record.projectHash === 'string';
}

/** What is kept of one message until the turns are built. */
interface KeptMessage {
  type: 'user' | 'gemini';
  time: Date | undefined;
  text: string;
  tools: ToolCall[];
}

/** A Gemini CLI recording read one line (record) at a time; `finish` builds the session. */
export class GeminiParser {
  private readonly messages = new Map<string, KeptMessage>();
  private sessionId: string | undefined;
  private title: string | undefined;
  private readonly lines: AppendedJsonLines;

  constructor(private readonly file: string) {
    this.lines = new AppendedJsonLines(file, 'each line of a Gemini CLI chat recording is one JSON object', RULE);
  }

  /** One line of a `.jsonl` recording, numbered from 1. */
  line(text: string, lineNo: number): void {
    const parsed = this.lines.parse(text, lineNo);
    if (!parsed) return;
    const record: unknown = parsed.value;
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      fail(this.file, lineNo, 1, 'expected a JSON object', 'each line of a Gemini CLI chat recording is one JSON object', RULE);
    this.record(record as Record<string, unknown>);
  }

  /** One record: metadata, a message, a rewind or a metadata update. */
  record(record: Record<string, unknown>): void {
    this.lines.countRecord();
    if (typeof record.$rewindTo === 'string') {
      this.rewind(record.$rewindTo);
      return;
    }
    if (typeof record.id === 'string') {
      this.message(record);
      return;
    }
    const update = typeof record.$set === 'object' && record.$set !== null ? (record.$set as Record<string, unknown>) : record;
    if (typeof update.sessionId === 'string') this.sessionId = update.sessionId;
    if (typeof update.summary === 'string' && update.summary.trim()) this.title = update.summary.trim();
    if (Array.isArray(update.messages)) {
      // A checkpoint (`$set.messages`) is the whole list again; a legacy record carries its messages inline.
      if (update !== record) this.messages.clear();
      for (const message of update.messages)
        if (typeof message === 'object' && message !== null && typeof (message as { id?: unknown }).id === 'string')
          this.message(message as Record<string, unknown>);
    }
  }

  private message(record: Record<string, unknown>): void {
    const id = record.id as string;
    if (record.type !== 'user' && record.type !== 'gemini') {
      // The CLI's notices (info, error, warning) are not the conversation.
      this.messages.delete(id);
      return;
    }
    const time = timeOf(record.timestamp);
    // What the person typed (`displayContent`) rather than what was sent (file contents pulled in by `@path`).
    const shown = record.type === 'user' && record.displayContent !== undefined ? record.displayContent : record.content;
    const texts = partTexts(shown);
    const text = (record.type === 'user' ? texts.filter((t) => !isInjectedText(t)) : texts).join('\n\n');
    const tools: KeptMessage['tools'] = [];
    if (Array.isArray(record.toolCalls))
      for (const call of record.toolCalls) {
        if (typeof call !== 'object' || call === null) continue;
        const { id: callId, name, args, result, resultDisplay, status } = call as Record<string, unknown>;
        const output = resultText(result) || (typeof resultDisplay === 'string' ? resultDisplay : '');
        tools.push({
          ...(typeof callId === 'string' ? { id: callId } : {}),
          name: typeof name === 'string' ? name : 'tool',
          input: compactInput(args),
          ...(output ? compactResult(output) : {}),
          ...(status === 'error' ? { error: true } : {}),
        });
      }
    // A record seen again replaces the message where it was (a Map keeps the first position of a key).
    this.messages.set(id, { type: record.type, time, text, tools });
  }

  /** `$rewindTo`: the message with that id and every later one are gone (all of them when the id is unknown). */
  private rewind(id: string): void {
    let found = false;
    for (const key of [...this.messages.keys()]) {
      if (key === id) found = true;
      if (found) this.messages.delete(key);
    }
    if (!found) this.messages.clear();
  }

  finish(endsWithNewline: boolean): ParsedTranscript {
    const warnings: Diagnostic[] = [];
    warnings.push(...this.lines.finish(endsWithNewline));
    if (!this.sessionId && this.messages.size === 0)
      fail(
        this.file,
        1,
        1,
        'no session metadata (`sessionId`, `projectHash`) and no messages found',
        'is this a Gemini CLI chat recording (`~/.gemini/tmp/…/chats/session-*.jsonl`)? Use --format to choose another format',
        RULE,
      );
    const turns = new AgentTurns();
    for (const message of this.messages.values()) {
      if (message.type === 'user') {
        turns.user(message.text, message.time);
        continue;
      }
      turns.assistantText(message.text, message.time);
      for (const { result, resultLines, error, ...call } of message.tools)
        Object.assign(turns.toolCall(call, message.time), {
          ...(result !== undefined ? { result } : {}),
          ...(resultLines !== undefined ? { resultLines } : {}),
          ...(error ? { error } : {}),
        });
    }
    const session: Session = { format: 'gemini', id: this.sessionId ?? this.file, turns: turns.turns, meta: {} };
    const title = this.title ?? titleFromTurns(turns.turns);
    if (title) session.title = title;
    // A session with no messages yet (the CLI writes the metadata line at start-up) imports nothing.
    return { format: 'gemini', sessions: turns.turns.length > 0 ? [session] : [], warnings };
  }
}

/** A `.jsonl` recording held in memory (tests, small files). */
export function parseGeminiLines(text: string, file: string): ParsedTranscript {
  const parser = new GeminiParser(file);
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) parser.line(lines[index]!, index + 1);
  return parser.finish(text.endsWith('\n'));
}

/** A legacy `.json` recording: one `ConversationRecord` object. */
export function parseGeminiRecord(value: unknown, file: string): ParsedTranscript {
  if (!isGeminiRecord(value))
    fail(
      file,
      1,
      1,
      'expected a Gemini CLI conversation record (`{"sessionId": …, "projectHash": …, "messages": […]}`)',
      'is this a Gemini CLI chat recording (`~/.gemini/tmp/…/chats/session-*.json`)?',
      RULE,
    );
  const parser = new GeminiParser(file);
  parser.record(value as Record<string, unknown>);
  return parser.finish(true);
}

/** The text of a `PartListUnion`: a string, a part, or a list of them (`text` parts; other parts are left out). */
function partTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  const parts = Array.isArray(content) ? content : [content];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (typeof part === 'object' && part !== null) {
      const { text, thought, inlineData } = part as Record<string, unknown>;
      if (typeof text === 'string' && thought !== true) texts.push(text);
      else if (inlineData) texts.push('[image]');
    }
  }
  return texts;
}

/** A tool call's `result` (function responses: `response.output`, else `response.error`, else the response as JSON). */
function resultText(result: unknown): string {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  const parts = Array.isArray(result) ? result : [result];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (typeof part === 'object' && part !== null) {
      const { text, functionResponse } = part as Record<string, unknown>;
      if (typeof text === 'string') texts.push(text);
      else if (typeof functionResponse === 'object' && functionResponse !== null) {
        const response = (functionResponse as Record<string, unknown>).response as Record<string, unknown> | undefined;
        const value = response?.output ?? response?.error ?? response;
        texts.push(typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
  }
  return texts.join('\n');
}
