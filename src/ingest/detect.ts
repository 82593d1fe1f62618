import { readSync } from 'node:fs';
import path from 'node:path';
import { parseChatGpt } from './chatgpt.js';
import { ClaudeCodeParser, parseClaudeCode } from './claude-code.js';
import { CodexParser, isCodexLine, parseCodex } from './codex.js';
import { CursorParser, isCursorLine, parseCursor } from './cursor.js';
import { GeminiParser, isGeminiRecord, parseGeminiLines, parseGeminiRecord } from './gemini.js';
import { jsonSyntaxError } from './json-position.js';
import { parseMarkdownTranscript } from './markdown.js';
import { parseOpenAi } from './openai.js';
import { forEachLine, MAX_STREAMED_BYTES } from './read.js';
import { fail, INGEST_FORMATS, type IngestFormat, type ParsedTranscript } from './session.js';

/**
 * Picks the parser for a transcript: by `--format`, else by extension and
 * content (`.jsonl` → by its first line: a Codex rollout (`type` and
 * `payload`), a Gemini CLI recording (`sessionId` and `projectHash`), a
 * Cursor transcript (`role` and `message`), else Claude Code; `.json` → a
 * Gemini CLI recording, a ChatGPT export when its objects have a `mapping`,
 * OpenAI messages when they have a `role`; `.md`/`.markdown`/`.txt` →
 * markdown), and runs it.
 */

const RULE = 'ingest/format';
const MARKDOWN_EXTENSIONS = new Set(['.md', '.markdown', '.mdown', '.txt', '.text']);

/** Parses the bytes of one input file; throws `IngestError` with the place and what was expected. */
export function parseTranscript(bytes: Uint8Array, file: string, format?: IngestFormat): ParsedTranscript {
  if (bytes.includes(0))
    fail(file, 1, 1, 'binary content (a NUL byte)', 'ingest reads text transcripts: JSONL, JSON, markdown or text', RULE);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return fail(file, 1, 1, 'not valid UTF-8 text', 're-save the file as UTF-8', RULE);
  }
  if (text.trim() === '') fail(file, 1, 1, 'empty file', 'nothing to import', RULE);
  const extension = path.extname(file).toLowerCase();
  // Detection may have parsed the JSON already: the parser gets the same value.
  const guess: { format: IngestFormat; value?: unknown } = format ? { format } : guessFormat(text, extension, file);
  if (guess.format === 'claude-code') return parseClaudeCode(text, file);
  if (guess.format === 'codex') return parseCodex(text, file);
  if (guess.format === 'cursor') return parseCursor(text, file);
  if (guess.format === 'markdown') return parseMarkdownTranscript(text, file);
  if (guess.format === 'gemini' && !('value' in guess) && isJsonLines(text, extension)) return parseGeminiLines(text, file);
  const value = 'value' in guess ? guess.value : parseJson(text, file);
  if (guess.format === 'gemini') return parseGeminiRecord(value, file);
  if (guess.format === 'openai') return parseOpenAi(value, text, file);
  return parseChatGpt(value, text, file);
}

/** Formats that are JSON Lines whatever the file is called. */
const JSON_LINES_FORMATS: ReadonlySet<IngestFormat> = new Set(['claude-code', 'codex', 'cursor']);

/** Whether a file is read as JSON Lines, one line at a time (`parseStreamedTranscript`), rather than whole. */
export function isStreamed(file: string, format?: IngestFormat): boolean {
  const extension = path.extname(file).toLowerCase();
  const jsonLines = extension === '.jsonl' || extension === '.ndjson';
  // Gemini CLI wrote one JSON document per session (`.json`) before it wrote JSON Lines (`.jsonl`).
  if (format === 'gemini') return jsonLines;
  if (format) return JSON_LINES_FORMATS.has(format);
  return jsonLines;
}

/** A parser fed one line at a time: every JSON Lines format has one. */
interface LineParser {
  line(text: string, lineNo: number): void;
  finish(endsWithNewline: boolean): ParsedTranscript;
}

function lineParser(format: IngestFormat, file: string): LineParser {
  if (format === 'codex') return new CodexParser(file);
  if (format === 'gemini') return new GeminiParser(file);
  if (format === 'cursor') return new CursorParser(file);
  return new ClaudeCodeParser(file);
}

/**
 * Parses a JSON Lines transcript (Claude Code, Codex, Gemini CLI, Cursor) from
 * an open file, one line at a time: neither the file's bytes nor its records
 * are held, only the turns they make. Without `format`, the first line decides
 * (`sniffJsonLines`). Returns the SHA-256 of exactly the bytes parsed (a log
 * still being written may have grown since it was hashed).
 */
export function parseStreamedTranscript(fd: number, file: string, format?: IngestFormat): ParsedTranscript & { sha256: string } {
  const parser = lineParser(format ?? sniffJsonLines(fd), file);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const read = forEachLine(fd, MAX_STREAMED_BYTES, (bytes, lineNo) => {
    if (bytes.includes(0))
      fail(file, lineNo, 1, 'binary content (a NUL byte)', 'ingest reads text transcripts: JSONL, JSON, markdown or text', RULE);
    let line: string;
    try {
      line = decoder.decode(bytes);
    } catch {
      return fail(file, lineNo, 1, 'not valid UTF-8 text', 're-save the file as UTF-8', RULE);
    }
    parser.line(line, lineNo);
  });
  return { ...parser.finish(read.endsWithNewline), sha256: read.sha256 };
}

/** Bytes read from the start of a JSON Lines file to find its first line. */
const SNIFF_BYTES = 1024 * 1024;
/** The start of a Codex rollout line, for a first line longer than `SNIFF_BYTES` (a long `session_meta`). */
const CODEX_LINE_START =
  /^\s*\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context|compacted)"/;

/** The format of an open JSON Lines file, from its first non-empty line (read from position 0; the fd's position is not moved). */
export function sniffJsonLines(fd: number): IngestFormat {
  const chunk = Buffer.allocUnsafe(SNIFF_BYTES);
  const n = readSync(fd, chunk, 0, SNIFF_BYTES, 0);
  return jsonLinesFormat(chunk.subarray(0, n).toString('utf8'));
}

/** The JSON Lines format a text starts with (its first non-empty line); Claude Code when nothing else fits. */
export function jsonLinesFormat(text: string): IngestFormat {
  const start = text.replace(/^\uFEFF/, '').replace(/^\s+/, '');
  const end = start.indexOf('\n');
  const first = end === -1 ? start : start.slice(0, end);
  let value: unknown;
  try {
    value = JSON.parse(first);
  } catch {
    return CODEX_LINE_START.test(first) ? 'codex' : 'claude-code';
  }
  if (isCodexLine(value)) return 'codex';
  if (isGeminiRecord(value)) return 'gemini';
  if (isCursorLine(value)) return 'cursor';
  return 'claude-code';
}

/** Several non-empty lines that each hold an object (or a `.jsonl` name): JSON Lines. */
function isJsonLines(text: string, extension: string): boolean {
  if (extension === '.jsonl' || extension === '.ndjson') return true;
  if (extension === '.json') return false;
  const lines = text
    .trimStart()
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.length > 1 && lines.every((line) => line.trim().startsWith('{'));
}

function guessFormat(text: string, extension: string, file: string): { format: IngestFormat; value?: unknown } {
  if (extension === '.jsonl' || extension === '.ndjson') return { format: jsonLinesFormat(text) };
  if (MARKDOWN_EXTENSIONS.has(extension)) return { format: 'markdown' };
  const start = text.trimStart();
  if (extension === '.json' || start.startsWith('[') || start.startsWith('{')) {
    // Several lines that each hold an object: JSON Lines without the extension.
    if (isJsonLines(text, extension)) return { format: jsonLinesFormat(text) };
    const value = parseJson(text, file);
    if (isGeminiRecord(value)) return { format: 'gemini', value };
    const first = Array.isArray(value) ? value.find((item) => typeof item === 'object' && item !== null) : value;
    if (typeof first === 'object' && first !== null) {
      const record = first as Record<string, unknown>;
      if ('mapping' in record) return { format: 'chatgpt', value };
      if ('role' in record || Array.isArray(record.messages)) return { format: 'openai', value };
    }
    fail(
      file,
      1,
      1,
      'unknown JSON transcript: expected OpenAI chat messages (`[{"role": …, "content": …}]` or `{"messages": […]}`), ' +
        'a ChatGPT export (`[{"title": …, "mapping": {…}}]`) or a Gemini CLI chat (`{"sessionId": …, "projectHash": …}`)',
      `choose the format with --format (${INGEST_FORMATS.join(', ')})`,
      RULE,
    );
  }
  return fail(
    file,
    1,
    1,
    `unknown transcript format${extension ? ` (\`${extension}\`)` : ''}`,
    `name the file .jsonl, .json, .md or .txt, or choose the format with --format (${INGEST_FORMATS.join(', ')})`,
    RULE,
  );
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = jsonSyntaxError(text, error);
    return fail(
      file,
      where.line,
      where.column,
      `not valid JSON: ${where.reason}`,
      'is the file complete? A ChatGPT export is `conversations.json` from the data export zip',
      RULE,
    );
  }
}
