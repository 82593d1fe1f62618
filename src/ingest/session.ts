import type { Diagnostic } from '../vault/model.js';
import type { RuleId } from '../messages/catalogue.js';
import { MemvaultError } from '../util/errors.js';
import { shorten } from '../text/shorten.js';

/**
 * The common shape every transcript format is parsed into: a session is a
 * list of turns (who said what, when) with the tool calls made in them. The
 * parsers keep raw values (tool inputs as given, full texts); rendering
 * compacts and redacts them.
 */

export type IngestFormat = 'claude-code' | 'openai' | 'chatgpt' | 'markdown';

/** Every format `--format` accepts. */
export const INGEST_FORMATS: readonly IngestFormat[] = ['claude-code', 'openai', 'chatgpt', 'markdown'];

/** How each format is called in messages and tags. */
export const FORMAT_LABELS: Record<IngestFormat, string> = {
  'claude-code': 'Claude Code session',
  openai: 'OpenAI chat',
  chatgpt: 'ChatGPT conversation',
  markdown: 'notes',
};

/** Who wrote a turn. */
export type Role = 'user' | 'assistant' | 'system' | 'tool';

/** A call the assistant made to a tool, with the tool's answer. */
export interface ToolCall {
  /** Id linking the call to its result (`toolu_…`, `call_…`). */
  id?: string;
  name: string;
  /** The call's arguments as given (an object, or a string of code or JSON). */
  input: unknown;
  /** The tool's answer, as text. */
  result?: string;
  /** The tool reported a failure. */
  error?: boolean;
  /** The person refused the call: boilerplate, left out of a distilled memory. */
  refused?: boolean;
}

/** One message (or several close ones of the assistant). */
export interface Turn {
  role: Role;
  /** When the message was written; missing in formats without timestamps. */
  time?: Date;
  text: string;
  tools: ToolCall[];
  /** The assistant's text after its last tool call in this turn: its conclusion (Claude Code). */
  conclusion?: string;
  /** A summary of the conversation before a compaction, not a request (Claude Code `isCompactSummary`). */
  compactSummary?: boolean;
}

/** One conversation, in any source format. */
export interface Session {
  format: IngestFormat;
  /** Stable id of the session in its source (Claude Code `sessionId`, ChatGPT conversation id…), so a re-export is recognised. */
  id: string;
  title?: string;
  turns: Turn[];
  meta: {
    cwd?: string;
    branch?: string;
    model?: string;
    /** A sub-agent's log: the session that started it (Claude Code `agent-*.jsonl`, lines with `isSidechain`). */
    parent?: string;
    /** The sub-agent's id (`agentId`, else the file name's). */
    agent?: string;
  };
  /** Markdown and text files are taken as they are: their body and frontmatter. */
  document?: { body: string; data: Record<string, unknown>; date?: string };
}

/** What a parser returns for one input file. */
export interface ParsedTranscript {
  format: IngestFormat;
  sessions: Session[];
  /** Problems that did not stop the import (an incomplete last line). */
  warnings: Diagnostic[];
}

/** A file that cannot be imported, with the place and what was expected. */
export class IngestError extends MemvaultError {
  constructor(readonly diagnostic: Diagnostic) {
    const { path, line, column } = diagnostic;
    const options = { hint: diagnostic.hint ?? '', place: { path, line, column } };
    super(diagnostic.rule as RuleId, `${path}:${line}:${column} ${diagnostic.reason}`, {}, options);
    this.name = 'IngestError';
  }
}

/** Throws an `IngestError` for `file` at `line:column`. */
export function fail(file: string, line: number, column: number, reason: string, hint: string, rule: string): never {
  throw new IngestError({ path: file, line, column, severity: 'error', reason, hint, rule });
}

/** A timestamp from an ISO string or epoch seconds (ChatGPT, OpenAI `created`); undefined when absent or unusable. */
export function timeOf(value: unknown): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return new Date(value < 1e11 ? value * 1000 : value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}

/** The first line of the first user message, as a title (at most ~70 characters, cut at a word). */
export function titleFromTurns(turns: readonly Turn[]): string | undefined {
  const first = turns.find((turn) => turn.role === 'user' && turn.text.trim().length > 0);
  if (!first) return undefined;
  const line = first.text
    .trim()
    .split('\n')
    .find((l) => l.trim().length > 0)!
    .replace(/^#+\s*/, '')
    .trim();
  return shorten(line, 70);
}

// One cutting rule for titles everywhere (rollup labels use it too): it lives in src/text.
export { shorten };
