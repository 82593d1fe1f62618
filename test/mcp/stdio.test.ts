import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport, sniffId } from '../../src/mcp/stdio.js';

/**
 * The line transport of `memvault mcp` in-process, on real streams: how lines
 * split over chunks are put together, where the size limit falls, and which
 * id an oversized line is answered with. test/mcp/limits.test.ts drives the
 * same transport through the real server.
 */

function open(max: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const received: JSONRPCMessage[] = [];
  const transport = new LineTransport({ input, output, maxMessageBytes: max, log: (line) => logs.push(line) });
  transport.onmessage = (message) => received.push(message);
  const answers = (): any[] =>
    (output.read()?.toString('utf8') ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line: string) => JSON.parse(line));
  return { input, transport, logs, received, answers };
}

const ping = (id: number | string): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('LineTransport', () => {
  it('puts lines split over chunks together, reads several lines of one chunk, takes CRLF', async () => {
    const t = open(1024);
    await t.transport.start();
    const two = `${ping(1)}\r\n${ping(2)}\n`;
    for (const piece of [two.slice(0, 5), two.slice(5, 30), two.slice(30)]) t.input.write(Buffer.from(piece));
    t.input.write(`\n  \n${ping(3)}\n`);
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(t.answers()).toEqual([]);
  });

  it('reads a line of exactly the limit and refuses one byte more; the line after is read', async () => {
    const max = 200;
    const t = open(max);
    await t.transport.start();
    const padded = (id: number, size: number): string => {
      const base = { jsonrpc: '2.0', id, method: 'ping', params: { _meta: { pad: '' } } };
      const pad = size - JSON.stringify(base).length;
      return JSON.stringify({ ...base, params: { _meta: { pad: 'p'.repeat(pad) } } });
    };
    expect(padded(1, max)).toHaveLength(max);
    t.input.write(`${padded(1, max)}\n`);
    // One byte over, sent a few bytes at a time: never held, still answered with its id.
    const over = padded(2, max + 1);
    for (let i = 0; i < over.length; i += 7) t.input.write(over.slice(i, i + 7));
    t.input.write(`\n${ping(3)}\n`);
    expect(t.received.map((m) => (m as { id: number }).id)).toEqual([1, 3]);
    const [answer] = t.answers();
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: 'message of 201 bytes is over the limit of 200 bytes; it was not read' },
    });
    expect(t.logs).toEqual([expect.stringMatching(/^stdin:2:1 error message of 201 bytes .* \[mcp\/too-large\]$/)]);
  });

  it('answers a line that is not JSON with -32700 and id null, JSON that is not JSON-RPC with -32600', async () => {
    const t = open(1024);
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,\n[1,2]\n{"jsonrpc":"1.0","id":"x","method":"ping"}\n\u001b]0;pwned\u0007\n');
    const answers = t.answers();
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      ['x', -32600],
      [null, -32700],
    ]);
    // The client's control characters, quoted by JSON.parse's message, are escaped in the log and the answer.
    expect(answers[3].error.message).toContain('\\u001b');
    for (const line of [...t.logs, ...answers.map((a) => a.error.message)]) expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(answers[1].error.message).toBe('Invalid Request: a JSON array (a batch); send one message per line');
    expect(t.received).toEqual([]);
    expect(t.logs.map((line) => /\[(mcp\/[a-z-]+)\]$/.exec(line)?.[1])).toEqual(['mcp/parse', 'mcp/invalid', 'mcp/invalid', 'mcp/parse']);
  });

  it('closes when stdin ends', async () => {
    const t = open(1024);
    let closed = false;
    t.transport.onclose = () => {
      closed = true;
    };
    await t.transport.start();
    t.input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });
});

describe('sniffId: the id of a line too large to parse, from its first and last bytes', () => {
  it('finds a top-level id at the start or as the last member', () => {
    expect(sniffId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a', 'x"}}}')).toBe(7);
    expect(sniffId('{"id":"req-1","jsonrpc":"2.0"', '"}}')).toBe('req-1');
    expect(sniffId('{"method":"tools/call","params":{"text":"aaa', 'aaa"}},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(sniffId('{"method":"x","params":{"a', 'a"},"id":"a\\"b"}\r')).toBe('a"b');
  });

  it('does not take an id nested in params, or one inside a string', () => {
    expect(sniffId('{"params":{"id":5,"text":"', 'zz"}}')).toBeNull();
    expect(sniffId('{"method":"x","params":{"text":"', 'zz","id":5}}')).toBeNull();
    expect(sniffId('xxxxxxxx', 'xxxxxxxx')).toBeNull();
  });
});
