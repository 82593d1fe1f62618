import path from 'node:path';
import { parseChatGpt } from './chatgpt.js';
import { ClaudeCodeParser, parseClaudeCode } from './claude-code.js';
import { jsonSyntaxError } from './json-position.js';
import { parseMarkdownTranscript } from './markdown.js';
import { parseOpenAi } from './openai.js';
import { forEachLine, MAX_STREAMED_BYTES } from './read.js';
import { fail, INGEST_FORMATS, type IngestFormat, type ParsedTranscript } from './session.js';

/**
 * Picks the parser for a transcript: by `--format`, else by extension and
 * content (`.jsonl` → Claude Code; `.json` → a ChatGPT export when its
 * objects have a `mapping`, OpenAI messages when they have a `role`;
 * `.md`/`.markdown`/`.txt` → markdown), and runs it.
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
  if (guess.format === 'markdown') return parseMarkdownTranscript(text, file);
  const value = 'value' in guess ? guess.value : parseJson(text, file);
  if (guess.format === 'openai') return parseOpenAi(value, text, file);
  return parseChatGpt(value, text, file);
}

/** Whether a file is read as JSON Lines, one line at a time (`parseStreamedTranscript`), rather than whole. */
export function isStreamed(file: string, format?: IngestFormat): boolean {
  if (format) return format === 'claude-code';
  const extension = path.extname(file).toLowerCase();
  return extension === '.jsonl' || extension === '.ndjson';
}

/**
 * Parses a JSON Lines transcript (Claude Code) from an open file, one line at
 * a time: neither the file's bytes nor its records are held, only the turns
 * they make. Returns the SHA-256 of exactly the bytes parsed (a log still
 * being written may have grown since it was hashed).
 */
export function parseStreamedTranscript(fd: number, file: string): ParsedTranscript & { sha256: string } {
  const parser = new ClaudeCodeParser(file);
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

function guessFormat(text: string, extension: string, file: string): { format: IngestFormat; value?: unknown } {
  if (extension === '.jsonl' || extension === '.ndjson') return { format: 'claude-code' };
  if (MARKDOWN_EXTENSIONS.has(extension)) return { format: 'markdown' };
  const start = text.trimStart();
  if (extension === '.json' || start.startsWith('[') || start.startsWith('{')) {
    // Several lines that each hold an object: JSON Lines without the extension.
    const lines = start.split('\n').filter((line) => line.trim() !== '');
    if (extension !== '.json' && lines.length > 1 && lines.every((line) => line.trim().startsWith('{'))) return { format: 'claude-code' };
    const value = parseJson(text, file);
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
      'unknown JSON transcript: expected OpenAI chat messages (`[{"role": …, "content": …}]` or `{"messages": […]}`) ' +
        'or a ChatGPT export (`[{"title": …, "mapping": {…}}]`)',
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
