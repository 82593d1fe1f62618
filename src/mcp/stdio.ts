import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { diagnostic, formatDiagnostic } from '../messages/index.js';

/**
 * The stdio transport of `memvault mcp`: the SDK's `Transport` contract, one
 * JSON-RPC message per line, like its `StdioServerTransport` but bounded and
 * answering what it cannot pass on. The SDK's transport buffers up to 10 MiB
 * and, past that, throws the buffer away and closes itself: the server then
 * stayed up reading nothing, answering nothing, logging nothing. Its bad
 * lines (not JSON, not JSON-RPC) went to `onerror`, which the server ignores,
 * so the client waited for an answer that never came.
 *
 * Here every line gets an answer or is passed on:
 * - a line over `maxMessageBytes` is dropped as it streams in (only its
 *   first and last 256 bytes are kept, to find its id), answered with
 *   -32600 Invalid Request and logged; the next line is read as usual;
 * - a line that is not JSON: -32700 Parse error, id null;
 * - JSON that is not a JSON-RPC message: -32600, with its id when it has one;
 * - `screen` may refuse a message (params that do not fit their method).
 * Messages go to the SDK's schema and serializer (`JSONRPCMessageSchema`,
 * `serializeMessage`), so what passes is what the SDK's transport passes.
 */

/** Largest message read, in bytes of its line (4 MiB: a 1 MiB memory escaped as JSON, with room to spare). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Bytes kept of a dropped line's start and end: enough for its `id`. */
const EDGE_BYTES = 256;

export interface LineTransportOptions {
  input?: Readable;
  output?: Writable;
  maxMessageBytes?: number;
  /** Where a refused line is reported, one line each. */
  log: (line: string) => void;
  /** A JSON-RPC error for a request that must not reach the server, or undefined to pass it on. */
  screen?: (message: JSONRPCMessage) => { code: number; message: string } | undefined;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly max: number;
  /** The current line's pieces while it is within the limit. */
  private pieces: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the limit: its size so far and its edges. */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  /** Lines read so far (the place of a logged line: `stdin:<line>:1`). */
  private line = 0;
  private closed = false;

  constructor(private readonly options: LineTransportOptions) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pieces = [];
    this.dropping = undefined;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
      this.take(bytes.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < bytes.length) this.take(bytes.subarray(start));
  };

  private readonly onInputError = (error: Error): void => this.onerror?.(error);
  private readonly onEnd = (): void => void this.close();

  /** Adds a piece of the current line, or counts it when the line is over the limit. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes([this.dropping.tail, piece]);
      return;
    }
    if (this.size + piece.length <= this.max) {
      this.pieces.push(piece);
      this.size += piece.length;
      return;
    }
    const all = [...this.pieces, piece];
    this.dropping = { bytes: this.size + piece.length, head: firstBytes(all), tail: lastBytes(all) };
    this.pieces = [];
    this.size = 0;
  }

  private endLine(): void {
    this.line++;
    const dropped = this.dropping;
    if (dropped) {
      this.dropping = undefined;
      this.refuse(
        'mcp/too-large',
        sniffId(dropped.head.toString('utf8'), dropped.tail.toString('utf8')),
        ErrorCode.InvalidRequest,
        `message of ${count(dropped.bytes)} bytes is over the limit of ${limit(this.max)}; it was not read`,
      );
      return;
    }
    const text = Buffer.concat(this.pieces, this.size).toString('utf8').replace(/\r$/, '');
    this.pieces = [];
    this.size = 0;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.refuse('mcp/parse', null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse('mcp/invalid', idOf(value), ErrorCode.InvalidRequest, `Invalid Request: ${notAMessage(value)}`);
      return;
    }
    const refusal = this.options.screen?.(parsed.data);
    if (refusal && 'id' in parsed.data) {
      void this.reply(parsed.data.id as RequestId, refusal.code, refusal.message);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** Answers a line that is not passed on, and says so on stderr. */
  private refuse(rule: 'mcp/too-large' | 'mcp/parse' | 'mcp/invalid', id: RequestId | null, code: number, reason: string): void {
    // One line, and no control character of the client's bytes (V8 quotes a few in its parse errors) reaches a terminal.
    const message = reason
      .replace(/\s*\n\s*/g, ' ')
      .replace(/[\u0000-\u001F\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .slice(0, 500);
    this.options.log(formatDiagnostic(diagnostic(rule, { path: 'stdin', line: this.line, column: 1 }, message)));
    void this.reply(id, code, message);
  }

  private reply(id: RequestId | null, code: number, message: string): Promise<void> {
    // JSON-RPC answers a request whose id cannot be told with id null, which the SDK's message types do not allow: written here.
    return this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }
}

/**
 * The id of a line too large to parse, from its edges: a top-level `"id"` at
 * the start (`{"jsonrpc":"2.0","id":7,…`) or as the last member (the SDK's
 * client writes it last: `…,"id":7}`). In valid JSON, `"id":7}` at the very
 * end can only be a member of the outermost object. Null when neither holds.
 */
export function sniffId(head: string, tail: string): RequestId | null {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const atStart = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*${value}\s*[,}]`).exec(
    head,
  );
  const atEnd = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const found = atStart?.[1] ?? atEnd?.[1];
  if (found === undefined) return null;
  try {
    // `found` matched a JSON number or string above: parsing it gives a number or a string, a RequestId.
    const id: unknown = JSON.parse(found);
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** The id of a parsed value that is not a valid message, when it has a usable one. */
function idOf(value: unknown): RequestId | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Why a JSON value is not a JSON-RPC message (the SDK's schema said no). */
function notAMessage(value: unknown): string {
  if (Array.isArray(value)) return 'a JSON array (a batch); send one message per line';
  if (value === null || typeof value !== 'object') return `a JSON-RPC message is an object, not ${value === null ? 'null' : typeof value}`;
  if ((value as { jsonrpc?: unknown }).jsonrpc !== '2.0') return '`jsonrpc` must be "2.0"';
  return 'not a request (`id`, `method`), a notification (`method`) or a response (`id`, `result` or `error`) of JSON-RPC 2.0';
}

function firstBytes(pieces: Buffer[]): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= EDGE_BYTES) break;
    out.push(piece.subarray(0, EDGE_BYTES - size));
    size += out[out.length - 1]!.length;
  }
  return Buffer.concat(out);
}

function lastBytes(pieces: Buffer[]): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = pieces.length - 1; i >= 0 && size < EDGE_BYTES; i--) {
    const piece = pieces[i]!;
    out.unshift(piece.subarray(Math.max(0, piece.length - (EDGE_BYTES - size))));
    size += out[0]!.length;
  }
  return Buffer.concat(out);
}

const count = (n: number): string => n.toLocaleString('en-US');
const limit = (bytes: number): string =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB (${count(bytes)} bytes)` : `${count(bytes)} bytes`;
