import path from 'node:path';
import type { Diagnostic } from '../vault/model.js';
import { AgentTurns, isInjectedText } from './agent-turns.js';
import { fail, titleFromTurns, type ParsedTranscript, type Session } from './session.js';
import { AppendedJsonLines } from './json-lines.js';

/**
 * Cursor agent transcripts (`~/.cursor/projects/<project>/agent-transcripts/
 * <conversation>.jsonl`, the `transcript_path` of Cursor hooks,
 * https://cursor.com/docs/agent/hooks): one message per line,
 * `{"role": "user" | "assistant", "message": {"content": [{"type": "text",
 * "text": …}]}}`; a person's request is wrapped in `<user_query>` tags. The
 * lines carry no timestamps (the memory takes the file's modification time)
 * and no session id (the file's name is the conversation id). `tool_use` and
 * `tool_result` blocks, where a transcript has them, are read as tool calls.
 */

const RULE = 'ingest/cursor';

/** Whether a parsed first line looks like a Cursor transcript line: a `role` and a `message`, no `type`. */
export function isCursorLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record.role === 'string' && typeof record.message === 'object' && record.type === undefined;
}

export class CursorParser {
  private readonly turns = new AgentTurns();
  private readonly lines: AppendedJsonLines;

  constructor(private readonly file: string) {
    this.lines = new AppendedJsonLines(file, 'each line of a Cursor transcript is one JSON object', RULE);
  }

  line(text: string, lineNo: number): void {
    const parsed = this.lines.parse(text, lineNo);
    if (!parsed) return;
    const entry: unknown = parsed.value;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      fail(
        this.file,
        lineNo,
        1,
        'expected a JSON object with `role` and `message`',
        'each line of a Cursor transcript is one message',
        RULE,
      );
    const { role, message } = entry as Record<string, unknown>;
    const content = typeof message === 'object' && message !== null ? (message as Record<string, unknown>).content : undefined;
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    if (role === 'user') {
      const texts: string[] = [];
      for (const block of blocks) {
        const { type, text, tool_use_id: id, content: result, is_error: isError } = block as Record<string, unknown>;
        if (type === 'text' && typeof text === 'string' && !isInjectedText(text)) texts.push(userQuery(text));
        else if (type === 'tool_result')
          this.turns.toolResult(typeof id === 'string' ? id : undefined, resultText(result), isError === true, undefined);
      }
      if (texts.length > 0 || blocks.every((block) => (block as { type?: unknown }).type === 'text'))
        this.turns.user(texts.join('\n\n'), undefined);
    } else if (role === 'assistant') {
      for (const block of blocks) {
        const { type, text, id, name, input } = block as Record<string, unknown>;
        if (type === 'text' && typeof text === 'string') this.turns.assistantText(text, undefined);
        else if (type === 'tool_use')
          this.turns.toolCall(
            { ...(typeof id === 'string' ? { id } : {}), name: typeof name === 'string' ? name : 'tool', input },
            undefined,
          );
      }
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
        'no `user` or `assistant` messages found',
        'is this a Cursor agent transcript (`agent-transcripts/*.jsonl`)?',
        RULE,
      );
    const id = path.basename(this.file).replace(/\.jsonl?$/i, '');
    const session: Session = { format: 'cursor', id: `cursor-${id}`, turns: this.turns.turns, meta: {} };
    const title = titleFromTurns(this.turns.turns);
    if (title) session.title = title;
    return { format: 'cursor', sessions: [session], warnings };
  }
}

/** A transcript held in memory (tests, small files). */
export function parseCursor(text: string, file: string): ParsedTranscript {
  const parser = new CursorParser(file);
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) parser.line(lines[index]!, index + 1);
  return parser.finish(text.endsWith('\n'));
}

/** The request inside `<user_query>…</user_query>`, else the text as it is. */
function userQuery(text: string): string {
  const query = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/.exec(text)?.[1];
  return query ?? text;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .filter(Boolean)
      .join('\n');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}
