import path from 'node:path';
import { DateTime } from 'luxon';
import { redactSecrets } from '../redact/redact.js';
import type { SecretPolicy } from '../redact/detect.js';
import { dayOfInstant } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import type { Importance } from '../vault/model.js';
import { distilledSections } from './distill.js';
import { FORMAT_LABELS, shorten, type IngestFormat, type Session, type ToolCall, type Turn } from './session.js';

/**
 * Session → memory drafts: one per calendar day the session has messages on
 * (in the configured time zone), each dated at its first message, in a
 * compact form: a header line (where, when, how many messages and tool
 * calls), then `**HH:MM speaker:** text` per message, long messages cut at
 * `MAX_TURN_CHARS`, and one line per tool call (`` `Bash` `npm test` → last
 * line of output ``). Every string is redacted before it is cut or written,
 * so a secret cannot survive half-truncated.
 */

/** Longest message kept in full; the rest is cut at a line break with a note of how much was left out. */
export const MAX_TURN_CHARS = 1500;
/** Longest tool input or result summary. */
const MAX_TOOL_CHARS = 160;

/** Where a memory came from, written to its frontmatter as `source:`; re-ingesting is checked against it. */
export interface SourceRecord {
  /** The input file as given on the command line (relative to the current folder when inside it). */
  file: string;
  format: IngestFormat;
  /** SHA-256 of the whole input file: the same file again is a no-op. */
  sha256: string;
  /** The session's id in its source (a re-export of the same session is recognised). */
  session: string;
  /** The day of the session this memory covers (sessions are split by day; markdown files have none). */
  part?: string;
  /** `primer` when the memory is a session primer instead of the transcript. */
  mode?: 'primer';
  /** SHA-256 of the body as written: a different body means a person edited the memory. */
  body_sha256: string;
}

/** A memory ready to be written: frontmatter fields, body and provenance. */
export interface MemoryDraft {
  /** Calendar day in the configured zone (`YYYY-MM-DD`): where the file goes. */
  day: string;
  /** Frontmatter `date`: an ISO datetime with the zone's offset (or a bare date). */
  date: string;
  title: string;
  kind: string;
  tags: string[];
  importance?: Importance;
  body: string;
  source: SourceRecord;
  /** Further frontmatter keys (a markdown file's own). */
  extra: Record<string, unknown>;
}

/** What rendering needs besides the session. */
export interface RenderContext {
  timezone: string;
  /** Tags for every memory (`--tag`), after the format's own. */
  tags: readonly string[];
  redact: boolean;
  /** Time of messages without a timestamp: `--date`, else the file's modification time. */
  fallback: Date;
  source: { file: string; sha256: string };
  /** Redactions made, per kind (accumulated over calls). */
  redactions: Map<string, number>;
  /** The config's `secrets` (its allowlist); without it, everything the detector finds is redacted. */
  secrets?: SecretPolicy;
}

/** Redacts `text` when redaction is on, counting what was replaced. */
export function cleanText(text: string, ctx: Pick<RenderContext, 'redact' | 'redactions' | 'secrets'>): string {
  if (!ctx.redact) return text;
  const result = redactSecrets(text, ctx.secrets);
  for (const { kind, count } of result.redactions) ctx.redactions.set(kind, (ctx.redactions.get(kind) ?? 0) + count);
  return result.text;
}

/** The memory drafts of one session (see the module comment). */
export function renderSession(session: Session, ctx: RenderContext): MemoryDraft[] {
  if (session.document) return [renderDocument(session, ctx)];
  const parts = splitByDay(session.turns, ctx);
  const title = cleanText(session.title ?? `${FORMAT_LABELS[session.format]} ${session.id.slice(0, 8)}`, ctx);
  const drafts: MemoryDraft[] = [];
  parts.forEach(({ day, turns }, index) => {
    const lines = [header(session, turns, ctx, index > 0 ? parts[index - 1]!.day : undefined)];
    if (session.format === 'claude-code') {
      // A coding-agent session is distilled; its transcript is written apart (`renderTranscript`).
      lines.push(
        distilledSections(
          session,
          turns.map((t) => t.turn),
          (text) => cleanText(text, ctx),
          transcriptPath(session),
        ),
      );
    } else {
      // Formats without timestamps show no clock time per message.
      for (const { turn, time } of turns) lines.push(renderTurn(turn, turn.time ? time : undefined, session, ctx));
    }
    const body = cleanText(lines.filter(Boolean).join('\n\n'), ctx);
    const first = turns[0]!.time;
    drafts.push({
      day,
      date: isoInZone(first, ctx.timezone),
      title: index === 0 ? title : `${title} (continued)`,
      kind: 'session',
      tags: unique([session.format, ...ctx.tags]),
      body,
      source: { ...ctx.source, format: session.format, session: session.id, part: day, body_sha256: bodyHash(body) },
      extra: session.format === 'claude-code' ? { transcript: transcriptPath(session) } : {},
    });
  });
  return drafts;
}

/** Where a session's full transcript is kept, relative to its stream's folder: `transcripts/<session id>.md`. */
export function transcriptPath(session: Session): string {
  return `transcripts/${session.id.replace(/[^\w.-]+/g, '-').replace(/^[-.]+/, '')}.md`;
}

/**
 * A session's full transcript in the compact form (every message, one line
 * per tool call), all days in one file: what a distilled memory leaves out
 * stays one `memvault zoom` away.
 */
export function renderTranscript(session: Session, ctx: RenderContext): string {
  const title = cleanText(session.title ?? `${FORMAT_LABELS[session.format]} ${session.id.slice(0, 8)}`, ctx);
  const lines = [`# ${title}`];
  splitByDay(session.turns, ctx).forEach(({ day, turns }, index, parts) => {
    lines.push(`## ${day}`, header(session, turns, ctx, index > 0 ? parts[index - 1]!.day : undefined));
    for (const { turn, time } of turns) {
      const rendered = renderTurn(turn, turn.time ? time : undefined, session, ctx);
      lines.push(turn.compactSummary ? rendered.replace(/^\*\*([^*]*)user:\*\*/, '**$1summary of the conversation so far:**') : rendered);
    }
  });
  return `${cleanText(lines.join('\n\n'), ctx)}\n`;
}

/** SHA-256 of a memory body as `writeMemoryFile` writes it and the loader reads it back (trimmed). */
export function bodyHash(body: string): string {
  return sha256(body.trim());
}

interface TimedTurn {
  turn: Turn;
  time: Date;
}

/** Turns grouped by calendar day; a turn without a time goes with the turn before it. */
function splitByDay(turns: readonly Turn[], ctx: RenderContext): { day: string; turns: TimedTurn[] }[] {
  const days = new Map<string, TimedTurn[]>();
  let last = turns.find((t) => t.time)?.time ?? ctx.fallback;
  for (const turn of turns) {
    const time = turn.time ?? last;
    last = time;
    const day = DateTime.fromJSDate(time, { zone: ctx.timezone }).toISODate()!;
    const list = days.get(day) ?? [];
    list.push({ turn, time });
    days.set(day, list);
  }
  return [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, list]) => ({ day, turns: list }));
}

function header(session: Session, turns: readonly TimedTurn[], ctx: RenderContext, previousDay: string | undefined): string {
  const { cwd, branch, model } = session.meta;
  const where = [cwd ? ` in \`${path.basename(cwd)}\`` : '', branch ? ` on branch \`${branch}\`` : ''].join('');
  const originalTimes = session.turns.some((t) => t.time);
  const span = originalTimes
    ? `, ${clock(turns[0]!.time, ctx.timezone)}–${clock(turns[turns.length - 1]!.time, ctx.timezone)} ${ctx.timezone}`
    : '';
  const messages = turns.filter((t) => t.turn.role === 'user' || t.turn.role === 'assistant').length;
  const calls = turns.reduce((sum, t) => sum + t.turn.tools.filter((tool) => tool.input !== undefined).length, 0);
  const counts = `${messages} message${messages === 1 ? '' : 's'}${calls > 0 ? `, ${calls} tool call${calls === 1 ? '' : 's'}` : ''}`;
  const continued = previousDay ? ` Continued from ${previousDay}.` : '';
  const { parent, agent } = session.meta;
  const label = parent
    ? `Claude Code sub-agent \`${agent ?? 'agent'}\` of session \`${parent.slice(0, 8)}\``
    : FORMAT_LABELS[session.format];
  return cleanText(`${label}${where}${model ? ` (${model})` : ''}${span}: ${counts}.${continued}`, ctx);
}

function renderTurn(turn: Turn, time: Date | undefined, session: Session, ctx: RenderContext): string {
  const label = `**${time ? `${clock(time, ctx.timezone)} ` : ''}${turn.role}:**`;
  const text = cutLong(cleanText(turn.text.trim(), ctx));
  const tools = turn.tools.map((call) => `- ${describeCall(call, session, ctx)}`);
  const out: string[] = [];
  if (text) out.push(startsBlock(text) ? `${label}\n\n${text}` : `${label} ${text}`);
  else out.push(label);
  if (tools.length > 0) out.push(tools.join('\n'));
  return out.join('\n\n');
}

/** `` `Bash` `npm test -- invoice` → error: 3 failed `` */
export function describeCall(call: ToolCall, session: Session, ctx: RenderContext): string {
  const input = call.input === undefined ? '' : describeInput(call, session, ctx);
  const result = describeResult(call, ctx);
  return `\`${call.name.replace(/`/g, '')}\`${input ? ` ${input}` : ''}${result ? ` → ${result}` : ''}`;
}

const INPUT_KEYS = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'query', 'url', 'description', 'prompt', 'code'];

function describeInput(call: ToolCall, session: Session, ctx: RenderContext): string {
  const input = call.input;
  if (typeof input === 'string') return code(oneLine(cleanText(input, ctx)));
  if (typeof input !== 'object' || input === null) return code(String(input));
  const record = input as Record<string, unknown>;
  if (Array.isArray(record.todos)) return `${record.todos.length} todo${record.todos.length === 1 ? '' : 's'}`;
  if (Array.isArray(record.edits) && typeof record.file_path === 'string')
    return `${code(relativeTo(session.meta.cwd, cleanText(record.file_path, ctx)))} (${record.edits.length} edits)`;
  for (const key of INPUT_KEYS) {
    const value = record[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    const cleaned = cleanText(value, ctx);
    const shown = key.endsWith('path') ? relativeTo(session.meta.cwd, cleaned) : cleaned;
    const extra =
      key === 'pattern' && typeof record.path === 'string' ? ` in ${code(relativeTo(session.meta.cwd, cleanText(record.path, ctx)))}` : '';
    return `${code(oneLine(shown))}${extra}`;
  }
  return code(oneLine(cleanText(JSON.stringify(record), ctx)));
}

function describeResult(call: ToolCall, ctx: RenderContext): string {
  if (call.result === undefined) return '';
  const text = cleanText(call.result, ctx);
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (call.error) return `error: ${shorten(lines[0] ?? 'failed', MAX_TOOL_CHARS)}`;
  if (lines.length === 0) return 'done';
  if (/^(Edit|MultiEdit|Write|NotebookEdit)$/.test(call.name)) return 'done';
  // A file's or a search's content is not worth repeating; its size is.
  if (/^(Read|Glob|Grep|LS|NotebookRead|WebFetch|WebSearch|browser|web\.run|myfiles_browser)$/i.test(call.name))
    return `${lines.length} line${lines.length === 1 ? '' : 's'}`;
  // Commands end with their verdict (`Tests: 3 failed`); other tools lead with it.
  const pick = /^(Bash|python|shell|terminal|exec|run)/i.test(call.name) ? lines[lines.length - 1]! : lines[0]!;
  return `${shorten(pick, MAX_TOOL_CHARS)}${lines.length > 1 ? ` (${lines.length} lines)` : ''}`;
}

function renderDocument(session: Session, ctx: RenderContext): MemoryDraft {
  const document = session.document!;
  const data = deepClean(document.data, ctx) as Record<string, unknown>;
  const { tags: ownTags, kind, importance, ...extra } = data;
  const zoneDate = document.date && dayOfInstant(document.date, ctx.timezone) ? document.date : undefined;
  const date = zoneDate ?? isoInZone(ctx.fallback, ctx.timezone);
  const day = dayOfInstant(date, ctx.timezone)!.day;
  const body = cleanText(document.body, ctx);
  const tags = unique([
    ...(Array.isArray(ownTags) ? ownTags.map(String) : typeof ownTags === 'string' ? ownTags.split(',').map((t) => t.trim()) : []),
    ...ctx.tags,
  ]);
  const draft: MemoryDraft = {
    day,
    date,
    title: cleanText(session.title ?? 'Notes', ctx),
    kind: typeof kind === 'string' && kind ? kind : 'session',
    tags,
    body,
    source: { ...ctx.source, format: 'markdown', session: session.id, body_sha256: bodyHash(body) },
    extra,
  };
  if (importance === 'low' || importance === 'normal' || importance === 'high' || importance === 'pinned') draft.importance = importance;
  return draft;
}

/** Redacts every string in frontmatter data, each seen with its key (`api_key: …` is a secret by context). */
function deepClean(value: unknown, ctx: RenderContext, key?: string): unknown {
  if (typeof value === 'string') {
    if (key === undefined) return cleanText(value, ctx);
    const prefix = `${key}: `;
    const cleaned = cleanText(`${prefix}${value}`, ctx);
    return cleaned.startsWith(prefix) ? cleaned.slice(prefix.length) : cleanText(value, ctx);
  }
  if (Array.isArray(value)) return value.map((item) => deepClean(item, ctx, key));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepClean(v, ctx, k)]));
  return value;
}

/** An ISO datetime with the zone's offset, to the second: `2026-02-13T14:05:12+01:00`. */
export function isoInZone(date: Date, zone: string): string {
  return DateTime.fromJSDate(date, { zone }).set({ millisecond: 0 }).toISO({ suppressMilliseconds: true })!;
}

function clock(date: Date, zone: string): string {
  return DateTime.fromJSDate(date, { zone }).toFormat('HH:mm');
}

/** Cuts a long message at a line break, closing an open code fence, and says how much was left out. */
function cutLong(text: string): string {
  if (text.length <= MAX_TURN_CHARS) return text;
  let cut = text.lastIndexOf('\n', MAX_TURN_CHARS);
  if (cut < MAX_TURN_CHARS / 2) cut = text.lastIndexOf(' ', MAX_TURN_CHARS);
  if (cut < MAX_TURN_CHARS / 2) cut = MAX_TURN_CHARS;
  // Never end inside a redaction marker.
  const open = text.lastIndexOf('[REDACTED:', cut);
  if (open !== -1 && text.indexOf(']', open) >= cut) cut = open;
  let kept = text.slice(0, cut).trimEnd();
  if ((kept.match(/^(```|~~~)/gm)?.length ?? 0) % 2 === 1) kept += '\n```';
  return `${kept}\n\n[… ${(text.length - cut).toLocaleString('en-US')} more characters not kept]`;
}

function startsBlock(text: string): boolean {
  return /^(#{1,6}\s|```|~~~|>|[-*+]\s|\d+[.)]\s|\||\s{4})/.test(text);
}

/** First line, cut to the tool summary length. */
function oneLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim().length > 0);
  const first = shorten(lines[0] ?? '', MAX_TOOL_CHARS);
  return lines.length > 1 ? `${first} …` : first;
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}

function relativeTo(cwd: string | undefined, file: string): string {
  if (!cwd || !file.startsWith('/')) return file;
  const relative = path.posix.relative(cwd, file);
  return relative.startsWith('..') ? file : relative;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}
