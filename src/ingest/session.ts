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

export type IngestFormat = 'claude-code' | 'codex' | 'gemini' | 'cursor' | 'openai' | 'chatgpt' | 'markdown';

/** Every format `--format` accepts. */
export const INGEST_FORMATS: readonly IngestFormat[] = ['claude-code', 'codex', 'gemini', 'cursor', 'openai', 'chatgpt', 'markdown'];

/** The coding agents' own session logs: distilled into decisions and results, the full transcript kept beside them. */
const CODING_AGENT_FORMATS: ReadonlySet<IngestFormat> = new Set(['claude-code', 'codex', 'gemini', 'cursor']);

/** Whether a session comes from a coding agent (distilled, with its transcript kept apart) rather than a chat or notes. */
export function isCodingAgentFormat(format: IngestFormat): boolean {
  return CODING_AGENT_FORMATS.has(format);
}

/** How each format is called in messages and tags. */
export const FORMAT_LABELS: Record<IngestFormat, string> = {
  'claude-code': 'Claude Code session',
  codex: 'Codex session',
  gemini: 'Gemini CLI session',
  cursor: 'Cursor agent session',
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
  /** The tool's answer, as text (a long one shortened to its first and last lines: see `compactResult`). */
  result?: string;
  /** Non-empty lines of the whole answer, when `result` holds only its first and last lines. */
  resultLines?: number;
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

/** A tool answer or argument longer than this is kept shortened in a parsed session (`compactResult`, `compactInput`). */
export const MAX_KEPT_TOOL_CHARS = 4096;
/** Characters of whole lines kept from each end of a shortened answer. */
const KEPT_END_CHARS = 512;
/** Longest first or last line kept of a shortened answer (a summary shows its first 160 characters). */
const MAX_KEPT_LINE_CHARS = 16 * 1024;

/**
 * A long tool answer shortened to what a memory or transcript shows of it (its
 * first and last lines, the verdict a test run ends with) and its count of
 * non-empty lines: a session of thousands of file reads is not held whole in
 * memory while it is parsed. Whole lines are kept, so a secret on a kept line
 * is redacted as it would be in the full answer.
 */
export function compactResult(result: string): Pick<ToolCall, 'result' | 'resultLines'> {
  if (result.length <= MAX_KEPT_TOOL_CHARS) return { result };
  const lines = result.split('\n');
  let resultLines = 0;
  for (const line of lines) if (line.trim().length > 0) resultLines++;
  // An ASCII gap mark: one non-Latin-1 character would make V8 store the whole string with two bytes per character.
  // Whole lines up to KEPT_END_CHARS from each end, and at least the first and the last non-empty line.
  const keep = (from: number, to: number, step: 1 | -1): string[] => {
    const kept: string[] = [];
    let size = 0;
    let text = false;
    for (let i = from; step === 1 ? i <= to : i >= to; i += step) {
      if (size >= KEPT_END_CHARS && text) break;
      const line = lines[i]!.slice(0, MAX_KEPT_LINE_CHARS);
      kept.push(line);
      size += line.length + 1;
      if (line.trim().length > 0) text = true;
    }
    return step === 1 ? kept : kept.reverse();
  };
  const head = keep(0, lines.length - 1, 1);
  const tail = head.length < lines.length ? keep(lines.length - 1, head.length, -1) : [];
  const gap = head.length + tail.length < lines.length;
  return { result: [...head, ...(gap ? ['...'] : []), ...tail].join('\n'), resultLines };
}

/** A tool call's arguments with every string longer than `MAX_KEPT_TOOL_CHARS` cut to that length (a memory shows their first line). */
export function compactInput(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > MAX_KEPT_TOOL_CHARS ? value.slice(0, MAX_KEPT_TOOL_CHARS) : value;
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => compactInput(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = compactInput(item, depth + 1);
  return out;
}
