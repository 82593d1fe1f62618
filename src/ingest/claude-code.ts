import type { Diagnostic } from '../vault/model.js';
import { AppendedJsonLines } from './json-lines.js';
import {
  compactInput,
  compactResult,
  fail,
  IngestError,
  timeOf,
  titleFromTurns,
  type ParsedTranscript,
  type Session,
  type ToolCall,
  type Turn,
} from './session.js';

/**
 * Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`):
 * one JSON object per line. `user` and `assistant` lines carry an Anthropic
 * `message` (`content` is a string or a list of `text`, `tool_use`,
 * `tool_result`, `thinking`, `image` blocks) and an ISO `timestamp`; a
 * `summary` line names the session. Tool results come back in the next
 * `user` line and are attached to their call. Left out: `thinking` blocks,
 * meta lines (`isMeta`), sub-agent side chains (`isSidechain`) of a main
 * session (a sub-agent's own log, all side chain, is read as its own session
 * with `meta.parent`), `system` and
 * bookkeeping lines (`file-history-snapshot`, …) and unknown line types, so a
 * newer Claude Code still imports.
 */

const RULE = 'ingest/claude-code';
/** Consecutive assistant messages closer than this are one turn. */
const TURN_GAP_MS = 5 * 60_000;

/** The session of a Claude Code log held in memory; throws `IngestError` naming the line of a malformed record. */
export function parseClaudeCode(text: string, file: string): ParsedTranscript {
  const parser = new ClaudeCodeParser(file);
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) parser.line(lines[index]!, index + 1);
  return parser.finish(text.endsWith('\n'));
}

/**
 * A Claude Code log read one line at a time (`line`, then `finish`), so a
 * log of any size is parsed without holding its text or its records: each
 * line becomes part of a turn as it is read. A sub-agent's log
 * (`agent-*.jsonl`) holds only side-chain lines: they are its conversation;
 * in a main session's log (Claude Code 1.x wrote sub-agents inline) they are
 * left out. Which one a log is shows only at its end, so side-chain lines
 * are collected apart until a main line appears.
 */
export class ClaudeCodeParser {
  private readonly warnings: Diagnostic[] = [];
  private readonly main: TurnBuilder;
  private side: TurnBuilder | undefined;
  /** The first problem of a side-chain line: an error only if the log turns out to be a sub-agent's. */
  private sideError: IngestError | undefined;
  private title: string | undefined;
  private sawConversation = false;
  private sawMainConversation = false;

  private readonly lines: AppendedJsonLines;

  constructor(private readonly file: string) {
    this.lines = new AppendedJsonLines(file, 'each line of a Claude Code session log is one JSON object; is this the right file?', RULE);
    this.main = new TurnBuilder(file, false);
    this.side = new TurnBuilder(file, true);
  }

  /** One line of the log (without its `\n`), numbered from 1. */
  line(text: string, lineNo: number): void {
    const file = this.file;
    const parsed = this.lines.parse(text, lineNo);
    if (!parsed) return;
    const { value: entry, raw } = parsed;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      fail(
        file,
        lineNo,
        1,
        'expected a JSON object with a `type` field',
        'each line of a Claude Code session log is one JSON object',
        RULE,
      );
    }
    const record = entry as Record<string, unknown>;
    if (typeof record.type !== 'string')
      fail(
        file,
        lineNo,
        1,
        'expected a `type` field (`user`, `assistant`, `summary`, …)',
        'is this a Claude Code session log (`~/.claude/projects/…/*.jsonl`)?',
        RULE,
      );
    const type = record.type;
    if (type === 'summary') {
      if (typeof record.summary === 'string' && this.title === undefined) this.title = record.summary.trim();
      return;
    }
    if (type !== 'user' && type !== 'assistant') return;
    this.sawConversation = true;
    if (record.isSidechain !== true) {
      this.sawMainConversation = true;
      // A main session's log: its side chains are left out, so nothing collected for them is needed.
      this.side = undefined;
      this.sideError = undefined;
    }
    if (record.isMeta === true) return;
    if (record.isSidechain !== true) this.main.add(record, raw, lineNo);
    else if (this.side && !this.sideError) {
      try {
        this.side.add(record, raw, lineNo);
      } catch (error) {
        if (!(error instanceof IngestError)) throw error;
        this.sideError = error;
      }
    }
  }

  /** The session, once every line was read; `endsWithNewline`: the log's last byte was a line break. */
  finish(endsWithNewline: boolean): ParsedTranscript {
    const file = this.file;
    const warnings = this.warnings;
    warnings.push(...this.lines.finish(endsWithNewline));
    const subAgent = this.sawConversation && !this.sawMainConversation;
    if (subAgent && this.sideError) throw this.sideError;
    const builder = subAgent ? this.side! : this.main;
    const { turns, meta, messages, sessionId } = builder;
    const title = this.title;
    if (messages === 0 && title !== undefined) {
      // A log of session titles only (what Claude Code leaves after compacting or resuming): nothing to import, not an error.
      warnings.push({
        path: file,
        line: 1,
        column: 1,
        severity: 'warning',
        reason: `only session titles (\`summary\` lines), no messages: nothing to import (\`${title}\`)`,
        hint: 'the conversation is in the session log these titles belong to; ingest that file',
        rule: RULE,
      });
      return { format: 'claude-code', sessions: [], warnings };
    }
    if (messages === 0) {
      fail(
        file,
        1,
        1,
        'no `user` or `assistant` lines found',
        'is this a Claude Code session log (`~/.claude/projects/…/*.jsonl`)? Use --format to choose another format',
        RULE,
      );
    }
    if (subAgent) meta.agent ??= /agent-([\w-]+)\.jsonl$/.exec(file)?.[1] ?? 'agent';
    const id = subAgent ? `${sessionId ?? file}/agent-${meta.agent}` : (sessionId ?? file);
    const session: Session = { format: 'claude-code', id, turns, meta };
    const name = title ?? titleFromTurns(turns.filter((turn) => !turn.compactSummary));
    if (name) session.title = subAgent ? `Sub-agent: ${name}` : name;
    return { format: 'claude-code', sessions: [session], warnings };
  }
}

/** The turns of one conversation (the main one, or a sub-agent's side chain), built line by line. */
class TurnBuilder {
  readonly turns: Turn[] = [];
  readonly meta: Session['meta'] = {};
  sessionId: string | undefined;
  messages = 0;
  readonly calls = new Map<string, ToolCall>();
  private lastMessageId: string | undefined;

  constructor(
    readonly file: string,
    readonly subAgent: boolean,
  ) {}

  /** A `user` or `assistant` line, neither meta nor (in a main log) side chain. */
  add(record: Record<string, unknown>, raw: string, lineNo: number): void {
    if (this.subAgent) {
      // Noted before the line is checked: a sub-agent line that fails still names its agent.
      if (typeof record.agentId === 'string') this.meta.agent ??= record.agentId;
      if (typeof record.sessionId === 'string') this.meta.parent ??= record.sessionId;
    }
    const { role, content, id, model, time } = this.checkedMessage(record, raw, lineNo);
    this.noteMeta(record, model);
    this.messages++;
    const speaker = record.type === 'assistant' || role === 'assistant' ? 'assistant' : 'user';
    const { texts, tools } = this.readBlocks(content, speaker, raw, lineNo);
    const joined = texts.filter((t) => t.trim().length > 0).join('\n\n');
    if (joined.length === 0 && tools.length === 0) return;
    this.addTurn(record, { speaker, id, time, joined, tools });
  }

  /** The line's `message` and `timestamp`, checked: a line of another shape fails with its place. */
  private checkedMessage(
    record: Record<string, unknown>,
    raw: string,
    lineNo: number,
  ): { role: unknown; content: string | unknown[]; id: unknown; model: unknown; time: Date | undefined } {
    const file = this.file;
    const message = record.message;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      fail(
        file,
        lineNo,
        columnOf(raw, '"message"'),
        `expected a \`message\` object in this \`${record.type as string}\` line`,
        'the line may come from another tool; Claude Code writes `{"type":"user","message":{"role":"user","content":…}}`',
        RULE,
      );
    }
    const { role, content, id, model } = message as Record<string, unknown>;
    if (content === undefined || (typeof content !== 'string' && !Array.isArray(content))) {
      fail(
        file,
        lineNo,
        columnOf(raw, '"content"'),
        'expected `message.content` to be a string or a list of content blocks',
        'Claude Code writes `"content": "text"` or `"content": [{"type":"text","text":…}]`',
        RULE,
      );
    }
    let time: Date | undefined;
    if (record.timestamp !== undefined) {
      time = timeOf(record.timestamp);
      if (!time)
        fail(
          file,
          lineNo,
          columnOf(raw, '"timestamp"'),
          `expected \`timestamp\` to be an ISO 8601 datetime, got \`${String(record.timestamp)}\``,
          'e.g. "2026-02-13T14:05:00.000Z"',
          RULE,
        );
    }
    return { role, content: content as string | unknown[], id, model, time };
  }

  /** The session's id, folder, branch and model, from the first line that names each. */
  private noteMeta(record: Record<string, unknown>, model: unknown): void {
    const meta = this.meta;
    if (typeof record.sessionId === 'string') this.sessionId ??= record.sessionId;
    if (typeof record.cwd === 'string') meta.cwd ??= record.cwd;
    if (typeof record.gitBranch === 'string' && record.gitBranch) meta.branch ??= record.gitBranch;
    if (typeof model === 'string' && !model.startsWith('<')) meta.model ??= model;
  }

  /**
   * The texts and tool calls of a message's content blocks. A tool result is
   * attached to the call it answers (kept shortened: a long session holds
   * thousands of file reads, and a memory shows a line of each); thinking,
   * redacted_thinking and unknown blocks are left out.
   */
  private readBlocks(
    content: string | unknown[],
    speaker: 'user' | 'assistant',
    raw: string,
    lineNo: number,
  ): { texts: string[]; tools: ToolCall[] } {
    const texts: string[] = [];
    const tools: ToolCall[] = [];
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    blocks.forEach((block, b) => {
      if (typeof block !== 'object' || block === null)
        fail(
          this.file,
          lineNo,
          columnOf(raw, '"content"'),
          `expected content block ${b + 1} to be an object with a \`type\``,
          'see the Claude Code message format',
          RULE,
        );
      const { type: blockType, text: blockText } = block as Record<string, unknown>;
      if (blockType === 'text' && typeof blockText === 'string') texts.push(speaker === 'user' ? cleanUserText(blockText) : blockText);
      else if (blockType === 'tool_use') tools.push(this.toolCall(block as Record<string, unknown>));
      else if (blockType === 'tool_result') {
        const orphan = this.attachResult(block as Record<string, unknown>);
        if (orphan) tools.push(orphan);
      } else if (blockType === 'image') texts.push('[image]');
    });
    return { texts, tools };
  }

  /** A `tool_use` block as a call, remembered by its id for the result that answers it. */
  private toolCall({ name, input, id }: Record<string, unknown>): ToolCall {
    const call: ToolCall = {
      name: typeof name === 'string' ? name : 'tool',
      input: compactInput(input),
      ...(typeof id === 'string' ? { id } : {}),
    };
    if (call.id) this.calls.set(call.id, call);
    return call;
  }

  /** Attaches a `tool_result` block to its call; a result whose call is unknown comes back as a call of its own. */
  private attachResult({ tool_use_id: resultFor, content, is_error: isError }: Record<string, unknown>): ToolCall | undefined {
    const call = typeof resultFor === 'string' ? this.calls.get(resultFor) : undefined;
    const result = resultText(content);
    const kept = compactResult(result);
    if (!call) return { name: 'tool result', input: undefined, ...kept, ...(isError === true ? { error: true } : {}) };
    Object.assign(call, kept);
    if (isError === true) call.error = true;
    if (isError === true && REFUSAL.test(result)) call.refused = true;
    return undefined;
  }

  /** Adds a message as a new turn, or merges it into the turn before (see the comments). */
  private addTurn(
    record: Record<string, unknown>,
    message: { speaker: 'user' | 'assistant'; id: unknown; time: Date | undefined; joined: string; tools: ToolCall[] },
  ): void {
    const { speaker, id, time, joined, tools } = message;
    const turns = this.turns;
    const previous = turns[turns.length - 1];
    if (speaker === 'user' && record.isCompactSummary === true) {
      turns.push({ role: 'user', ...(time ? { time } : {}), text: joined, tools: [], compactSummary: true });
      this.lastMessageId = undefined;
      return;
    }
    // Claude Code writes one line per content block of an API message, and the assistant answers a request in
    // several messages (text, tool call, result, next call…): one turn, unless a pause of minutes splits it.
    const sameMessage = typeof id === 'string' && id === this.lastMessageId;
    const closeInTime = previous?.time && time ? time.getTime() - previous.time.getTime() < TURN_GAP_MS : true;
    if (speaker === 'assistant' && previous?.role === 'assistant' && (sameMessage || closeInTime)) {
      previous.text = [previous.text, joined].filter(Boolean).join('\n\n');
      // The conclusion is what the assistant wrote after its last tool call.
      if (tools.length > 0) previous.conclusion = '';
      else if (joined) previous.conclusion = [previous.conclusion, joined].filter(Boolean).join('\n\n');
      previous.tools.push(...tools);
      return;
    }
    // A user line holding only tool results belongs to the assistant turn before it.
    if (speaker === 'user' && joined.length === 0 && tools.every((t) => t.name === 'tool result') && previous) {
      previous.tools.push(...tools);
      return;
    }
    // Interruptions and a refused tool's note are bookkeeping, not requests.
    if (speaker === 'user' && tools.length === 0 && BOILERPLATE.test(joined)) return;
    this.lastMessageId = typeof id === 'string' ? id : undefined;
    const conclusion = speaker === 'assistant' ? { conclusion: tools.length > 0 ? '' : joined } : {};
    turns.push({ role: speaker, ...(time ? { time } : {}), text: joined, tools, ...conclusion });
  }
}

/** A tool call the person refused (Claude Code answers the call with this text). */
const REFUSAL = /doesn't want to (?:proceed|take this action)|permission to use \S+ (?:has been|was) denied|tool use was rejected/i;
/** User lines that are not requests: an interruption, a refusal's echo. */
const BOILERPLATE = /^\s*(?:\[Request interrupted by user[^\]]*\]|The user doesn't want to (?:proceed|take this action)[\s\S]*)\s*$/;

/** Slash commands arrive wrapped in tags (`<command-name>/model</command-name>…`): keep the command, drop local output. */
function cleanUserText(text: string): string {
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1];
  if (command) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1]?.trim();
    return `${command.trim()}${args ? ` ${args}` : ''}`;
  }
  if (/^<local-command-stdout>/.test(text.trim())) return '';
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        if (typeof part === 'object' && part !== null) {
          const { type, text } = part as Record<string, unknown>;
          if (type === 'text' && typeof text === 'string') return text;
          if (type === 'image') return '[image]';
        }
        return '';
      })
      .filter(Boolean)
      .join('\n');
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** 1-based column of `needle` in a line (1 when absent). */
function columnOf(line: string, needle: string): number {
  const at = line.indexOf(needle);
  return at === -1 ? 1 : [...line.slice(0, at)].length + 1;
}
