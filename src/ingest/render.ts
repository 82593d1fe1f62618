import path from 'node:path';
import { DateTime } from 'luxon';
import { redactSecrets } from '../redact/redact.js';
import type { SecretPolicy } from '../redact/detect.js';
import { dayOfInstant } from '../time/periods.js';
import { MAX_FILE_BYTES } from '../vault/scan.js';
import { sha256 } from '../util/hash.js';
import type { Importance } from '../vault/model.js';
import { distilledSections } from './distill.js';
import { FORMAT_LABELS, isCodingAgentFormat, shorten, type IngestFormat, type Session, type ToolCall, type Turn } from './session.js';

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

/**
 * Largest memory file the build reads (`memory/too-large` beyond it): a
 * session-day whose text is longer becomes several memories, each within it.
 */
export const MAX_MEMORY_BYTES = MAX_FILE_BYTES;
/**
 * Rendered size aimed at per memory when a day's turns are grouped: the
 * limit less room for the frontmatter and for text the estimate counts short
 * (multi-byte characters). A piece still over the limit after rendering is
 * split again at paragraph and line boundaries (`splitBody`).
 */
const PIECE_TARGET_BYTES = 768 * 1024;
/** Longest title written (a session's `summary` line can be anything): the frontmatter stays small. */
const MAX_TITLE_CHARS = 300;

/** The memory drafts of one session (see the module comment). */
export function renderSession(session: Session, ctx: RenderContext): MemoryDraft[] {
  return [...sessionDrafts(session, ctx)];
}

/**
 * The memory drafts of one session, one at a time: per day, or per part of a
 * day whose text does not fit one memory file. Part 1 of a day keeps the
 * day's name (`part: 2026-02-13`), parts 2, 3… are `2026-02-13#2`…, titled
 * `… (part 2)`; a session that grows keeps its earlier parts unchanged.
 */
export function* sessionDrafts(session: Session, ctx: RenderContext): Generator<MemoryDraft> {
  if (session.document) {
    yield* documentDrafts(session, ctx);
    return;
  }
  const parts = splitByDay(session.turns, ctx);
  const fullTitle = cleanText(session.title ?? `${FORMAT_LABELS[session.format]} ${session.id.slice(0, 8)}`, ctx);
  const title = fullTitle.length > MAX_TITLE_CHARS ? shorten(fullTitle, MAX_TITLE_CHARS) : fullTitle;
  for (let index = 0; index < parts.length; index++) {
    const { day } = parts[index]!;
    const previousDay = index > 0 ? parts[index - 1]!.day : undefined;
    let piece = 0;
    for (const turns of groupTurns(parts[index]!.turns, isCodingAgentFormat(session.format))) {
      const content: string[] = [];
      if (isCodingAgentFormat(session.format)) {
        // A coding-agent session is distilled; its transcript is written apart (`renderTranscript`).
        content.push(
          distilledSections(
            session,
            turns.map((t) => t.turn),
            (text) => cleanText(text, ctx),
            transcriptPath(session),
          ),
        );
      } else {
        // Formats without timestamps show no clock time per message.
        for (const { turn, time } of turns) content.push(renderTurn(turn, turn.time ? time : undefined, session, ctx));
      }
      const head = header(session, turns, ctx, previousDay);
      const whole = cleanText([head, ...content].filter(Boolean).join('\n\n'), ctx);
      const pieces = fits(whole) ? undefined : splitBody(content.filter(Boolean).join('\n\n'));
      for (const text of pieces ?? [whole]) {
        piece++;
        // Part 1 keeps the header as it is, so a day that grows past one memory keeps its first part unchanged.
        const body = pieces ? cleanText([piece === 1 ? head : `${head} Part ${piece} of this day.`, text].join('\n\n'), ctx) : text;
        const dayTitle = index === 0 ? title : `${title} (continued)`;
        yield {
          day,
          date: isoInZone(turns[0]!.time, ctx.timezone),
          title: piece === 1 ? dayTitle : `${dayTitle} (part ${piece})`,
          kind: 'session',
          tags: unique([session.format, ...ctx.tags]),
          body,
          source: {
            ...ctx.source,
            format: session.format,
            session: session.id,
            part: piece === 1 ? day : `${day}#${piece}`,
            body_sha256: bodyHash(body),
          },
          extra: isCodingAgentFormat(session.format) ? { transcript: transcriptPath(session) } : {},
        };
      }
    }
  }
}

/** Whether a body leaves room for the frontmatter within the memory limit. */
function fits(body: string): boolean {
  return body.length <= PIECE_TARGET_BYTES && Buffer.byteLength(body, 'utf8') <= PIECE_TARGET_BYTES;
}

/**
 * A day's turns in groups that each render to about `PIECE_TARGET_BYTES` at
 * most, split between turns. The estimate counts what rendering keeps (a
 * message is cut at `MAX_TURN_CHARS`, a tool call is one line); a group that
 * still renders too long is split further by `splitBody`.
 */
function* groupTurns(turns: readonly TimedTurn[], distilled: boolean): Generator<TimedTurn[]> {
  let group: TimedTurn[] = [];
  let size = 0;
  for (const timed of turns) {
    const { turn } = timed;
    // A distilled assistant turn keeps every explanation paragraph (each cut): count its whole text.
    const text = distilled && turn.role === 'assistant' ? turn.text.length : Math.min(turn.text.length, MAX_TURN_CHARS + 100);
    const estimate = text + 80 + turn.tools.length * (MAX_TOOL_CHARS * 2 + 40);
    if (group.length > 0 && size + estimate > PIECE_TARGET_BYTES) {
      yield group;
      group = [];
      size = 0;
    }
    group.push(timed);
    size += estimate;
  }
  if (group.length > 0) yield group;
}

/**
 * Markdown split into pieces of at most `PIECE_TARGET_BYTES`: between
 * paragraphs, a paragraph too long between lines, a line too long between
 * words (or anywhere, never inside a character). A code fence open at a cut is
 * closed and opened again; a piece that starts inside a `## ` section repeats
 * its heading, marked `(continued)`.
 */
export function splitBody(text: string, target = PIECE_TARGET_BYTES): string[] {
  const units: string[] = [];
  for (const paragraph of text.split('\n\n')) {
    if (Buffer.byteLength(paragraph, 'utf8') <= target) units.push(paragraph);
    else for (const line of paragraph.split('\n')) units.push(...cutLine(line, target));
  }
  const pieces: string[] = [];
  let current: string[] = [];
  let size = 0;
  let heading: string | undefined;
  let fence: string | undefined;
  const close = (): void => {
    if (current.length === 0) return;
    let piece = current.join('\n\n');
    if (fence) piece += `\n${fence}`;
    pieces.push(piece);
    current = [];
    size = 0;
  };
  for (const unit of units) {
    const bytes = Buffer.byteLength(unit, 'utf8') + 2;
    // Room for a repeated heading and a closing and opening fence.
    if (current.length > 0 && size + bytes + 400 > target) {
      close();
      if (heading && !unit.startsWith('## ')) {
        current.push(`${heading} (continued)`);
        size += heading.length + 14;
      }
      if (fence) {
        current.push(fence);
        size += fence.length + 2;
      }
    }
    current.push(unit);
    size += bytes;
    for (const line of unit.split('\n')) {
      if (line.startsWith('## ') && !fence) heading = line;
      const marker = /^(```|~~~)/.exec(line)?.[1];
      if (marker) fence = fence ? undefined : marker;
    }
  }
  close();
  return pieces;
}

/** A line cut into pieces of at most `target` bytes, at spaces when there are any. */
function cutLine(line: string, target: number): string[] {
  const out: string[] = [];
  let rest = line;
  // A character is at most 3 bytes of UTF-8 per UTF-16 unit: this many units always fit.
  const units = Math.floor(target / 3);
  while (Buffer.byteLength(rest, 'utf8') > target) {
    let cut = rest.lastIndexOf(' ', units);
    if (cut < units / 2) cut = units;
    // Never between the two halves of a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, '');
  }
  out.push(rest);
  return out;
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
  return [...transcriptParts(session, ctx)].join('');
}

/** `renderTranscript` in pieces to write one after the other: a long session's transcript is never one string. */
export function* transcriptParts(session: Session, ctx: RenderContext): Generator<string> {
  const title = cleanText(session.title ?? `${FORMAT_LABELS[session.format]} ${session.id.slice(0, 8)}`, ctx);
  yield cleanText(`# ${title}`, ctx);
  const parts = splitByDay(session.turns, ctx);
  for (let index = 0; index < parts.length; index++) {
    const { day, turns } = parts[index]!;
    yield `\n\n${cleanText(`## ${day}`, ctx)}`;
    yield `\n\n${cleanText(header(session, turns, ctx, index > 0 ? parts[index - 1]!.day : undefined), ctx)}`;
    for (const { turn, time } of turns) {
      const rendered = renderTurn(turn, turn.time ? time : undefined, session, ctx);
      const shown = turn.compactSummary ? rendered.replace(/^\*\*([^*]*)user:\*\*/, '**$1summary of the conversation so far:**') : rendered;
      yield `\n\n${cleanText(shown, ctx)}`;
    }
  }
  yield '\n';
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
  // A long answer is kept as its first and last lines (`compactResult`) with the count of the whole.
  const count = call.resultLines ?? lines.length;
  if (/^(Read|Glob|Grep|LS|NotebookRead|WebFetch|WebSearch|browser|web\.run|myfiles_browser)$/i.test(call.name))
    return `${count} line${count === 1 ? '' : 's'}`;
  // Commands end with their verdict (`Tests: 3 failed`); other tools lead with it.
  const pick = /^(Bash|python|shell|terminal|exec|run)/i.test(call.name) ? lines[lines.length - 1]! : lines[0]!;
  return `${shorten(pick, MAX_TOOL_CHARS)}${count > 1 ? ` (${count} lines)` : ''}`;
}

/** A markdown or text file as it is: one memory, or several parts (`part: #2`…) when it is longer than a memory file may be. */
function* documentDrafts(session: Session, ctx: RenderContext): Generator<MemoryDraft> {
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
  if (fits(body)) {
    yield draft;
    return;
  }
  const pieces = splitBody(body);
  for (let piece = 1; piece <= pieces.length; piece++) {
    const text = pieces[piece - 1]!;
    yield {
      ...draft,
      title: piece === 1 ? draft.title : `${draft.title} (part ${piece})`,
      body: text,
      source: { ...draft.source, ...(piece === 1 ? {} : { part: `#${piece}` }), body_sha256: bodyHash(text) },
    };
  }
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
