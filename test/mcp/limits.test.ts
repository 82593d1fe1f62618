import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, createProject, listFiles, removeProject } from '../helpers/project.js';

/**
 * `memvault mcp` fed raw lines, as a buggy or hostile client could send
 * them: the real CLI in a child process, one server for the whole file (so
 * every test after the oversized line also shows the server still answers).
 * A line over the 4 MiB limit, a line that is not JSON, a request whose
 * params do not fit its method, arguments of the wrong type, and memories
 * `memvault add` refuses too (over the build's 1 MiB file limit, a NUL byte,
 * a title of two lines): each gets one answer with a one-line reason
 * (-32602 Invalid params for a bad argument), and the next request is
 * answered. `add_memory` and `memvault add` refuse with the same words.
 */

const NOW = '2026-03-20T12:00:00Z';
const MiB = 1024 * 1024;
/** Long enough for an answer on a busy 2-core machine; the old server never answered at all. */
const ANSWER_MS = 15_000;

type Message = {
  jsonrpc: '2.0';
  id?: number | string | null;
  result?: any;
  error?: { code: number; message: string; data?: { rule?: string; hint?: string } };
};

/** A `memvault mcp` child process spoken to in raw lines. */
class RawSession {
  readonly messages: Message[] = [];
  /** stdout lines that were not JSON (there must be none). */
  readonly noise: string[] = [];
  stderr = '';
  private pending = '';
  private waiters: (() => void)[] = [];

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
      let newline = this.pending.indexOf('\n');
      while (newline >= 0) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        try {
          this.messages.push(JSON.parse(line) as Message);
        } catch {
          this.noise.push(line);
        }
        newline = this.pending.indexOf('\n');
      }
      this.wake();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.wake();
    });
  }

  static async start(root: string): Promise<RawSession> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: root, env: { ...env, MEMVAULT_NOW: NOW, NO_COLOR: '1' } });
    // A server that stopped reading (the old one, past 10 MiB) must fail a test, not the runner with EPIPE.
    child.stdin.on('error', () => {});
    const session = new RawSession(child);
    await session.until(() => session.stderr.includes('serving'), 60_000);
    session.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await session.answer(0);
    session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return session;
  }

  /** Writes one line: an object as JSON (keys in the order given), a string as it is. */
  send(line: object | string): void {
    this.child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  }

  /** A tool call as the SDK's client writes it: method and params first, the id last. */
  call(id: number, name: string, args: unknown): void {
    this.send({ method: 'tools/call', params: { name, arguments: args }, jsonrpc: '2.0', id });
  }

  /** The answer with this id (null: the next answer with id null after `after` messages). */
  async answer(id: number | null, after = 0): Promise<Message> {
    let found: Message | undefined;
    await this.until(() => {
      found = this.messages.slice(after).find((m) => m.id === id && ('result' in m || 'error' in m));
      return found !== undefined;
    }, ANSWER_MS);
    return found!;
  }

  until(done: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms; stderr:\n${this.stderr.slice(-2000)}`)), ms);
      const check = (): void => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  stop(): void {
    this.child.kill();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Runs `memvault add <args>` with `input` on stdin. */
function addWithStdin(root: string, args: string[], input: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
    const child = spawn(process.execPath, [CLI, 'add', ...args], { cwd: root, env: { ...env, MEMVAULT_NOW: NOW, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
    child.stdin.end(input);
  });
}

/** The text of a tool answer, and whether it is a tool error. */
const toolText = (m: Message): { isError: boolean; text: string } => ({
  isError: m.result?.isError === true,
  text: m.result?.content?.[0]?.text ?? '',
});

describe('memvault mcp: raw lines a client should not send', () => {
  let root: string;
  let s: RawSession;
  const memories = (): string[] => listFiles(root, 'vault/main/memories');

  beforeAll(async () => {
    root = createProject({});
    s = await RawSession.start(root);
  }, 90_000);
  afterAll(() => {
    s?.stop();
    removeProject(root);
  });

  it('a line over 4 MiB is answered with an error and logged on stderr; the next request is answered', async () => {
    // 11 MiB: over the SDK's own 10 MiB read buffer too, which made the old server deaf.
    s.call(1, 'add_memory', { text: 'a'.repeat(11 * MiB) });
    const refused = await s.answer(1);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/^message of 11,534,\d{3} bytes is over the limit of 4 MiB \(4,194,304 bytes\)/);
    expect(refused.error?.message).not.toContain('\n');
    expect(s.stderr).toMatch(
      /^memvault mcp: stdin:\d+:1 error message of 11,534,\d{3} bytes is over the limit of 4 MiB .*\[mcp\/too-large\]$/m,
    );
    // A line whose id cannot be told (no JSON at all) is answered with id null.
    const before = s.messages.length;
    s.send('x'.repeat(5 * MiB));
    const anonymous = await s.answer(null, before);
    expect(anonymous.error?.code).toBe(-32600);
    s.call(2, 'status', {});
    expect(toolText(await s.answer(2)).isError).toBe(false);
    expect(memories()).toEqual([]);
  }, 60_000);

  it('a line that is not JSON gets -32700 Parse error with id null; one that is not JSON-RPC gets -32600', async () => {
    const before = s.messages.length;
    s.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{');
    const parse = await s.answer(null, before);
    expect(parse.error?.code).toBe(-32700);
    expect(parse.error?.message).toMatch(/^Parse error: /);
    await s.until(() => /^memvault mcp: stdin:\d+:1 error Parse error: .*\[mcp\/parse\]$/m.test(s.stderr), ANSWER_MS);
    s.send({ jsonrpc: '2.0', id: 4, hello: 'world' });
    const invalid = await s.answer(4);
    expect(invalid.error?.code).toBe(-32600);
    expect(invalid.error?.message).not.toContain('\n');
    s.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect((await s.answer(5)).result).toEqual({});
  });

  it('params that do not fit the method (arguments: null) are -32602 in one line, not -32603 with a zod dump', async () => {
    s.call(6, 'add_memory', null);
    const answer = await s.answer(6);
    expect(answer.error).toEqual({ code: -32602, message: 'tools/call: params.arguments must be an object (got null)' });
    s.send({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 5 } });
    expect((await s.answer(7)).error).toEqual({ code: -32602, message: 'resources/read: params.uri must be a string (got 5)' });
    expect(memories()).toEqual([]);
  });

  it('arguments of the wrong type are -32602 (Invalid params) of one line naming the argument', async () => {
    const invalid = async (id: number) => {
      const { error } = await s.answer(id);
      return { code: error?.code, message: error?.message };
    };
    s.call(8, 'add_memory', { text: 42 });
    expect(await invalid(8)).toEqual({ code: -32602, message: 'text must be a string (got 42)' });
    s.call(9, 'search', { query: 'x', limit: 0, tier: 'nope' });
    expect(await invalid(9)).toEqual({
      code: -32602,
      message:
        'limit must be at least 1 (got 0); tier must be one of all, memories, daily, weekly, monthly, longterm, waterfall-recent, waterfall-longterm (got "nope")',
    });
    s.call(10, 'add_memory', {});
    expect(await invalid(10)).toEqual({ code: -32602, message: 'text is required' });
    // A CLI-only field of the operation is not an argument of the tool.
    s.call(16, 'add_memory', { text: 'x', create_stream: true });
    expect(await invalid(16)).toEqual({ code: -32602, message: '`create_stream` is not an argument' });
    expect(memories()).toEqual([]);
  });

  it('add_memory refuses what memvault add refuses, in the same words, and writes nothing', async () => {
    // 5 MB does not even pass the message limit; 2 MB passes it and is refused as a memory over the build's 1 MiB file limit.
    s.call(11, 'add_memory', { text: 'b'.repeat(5_000_000) });
    expect((await s.answer(11)).error?.message).toMatch(/over the limit of 4 MiB/);
    const big = 'word '.repeat(400_000);
    s.call(12, 'add_memory', { text: big });
    const refused = async (id: number) => {
      const { error } = await s.answer(id);
      expect(error?.code).toBe(-32602);
      return { text: error!.message, hint: error!.data?.hint };
    };
    const tooLarge = await refused(12);
    expect(tooLarge.text).toMatch(/^the memory text is 2,000,000 bytes; a memory file holds at most 1 MiB \(1,048,576 bytes\)/);
    s.call(13, 'add_memory', { text: 'before\u0000after' });
    const nul = await refused(13);
    expect(nul.text).toMatch(/^the memory text holds a NUL byte \(U\+0000\) at line 1, column 7/);
    s.call(14, 'add_memory', { text: 'fine text', title: 'two\nlines' });
    const title = await refused(14);
    expect(title.text).toMatch(/^the title must be one line/);
    for (const answer of [tooLarge, nul, title]) expect(answer.text).not.toContain('internal error');
    expect(memories()).toEqual([]);
    expect(s.stderr).not.toContain('internal error');

    // `memvault add` says the same: its reason and hint are the error's message and `data.hint`.
    const cli = await Promise.all([
      addWithStdin(root, [], big),
      addWithStdin(root, [], 'before\u0000after'),
      addWithStdin(root, ['--title', 'two\nlines'], 'fine text'),
    ]);
    for (const [i, answer] of [tooLarge, nul, title].entries()) {
      expect(cli[i]!.code).toBe(1);
      const printed = /^memvault: (.*)\n {2}hint: (.*) \[add\/[a-z-]+\]\n$/.exec(cli[i]!.stderr);
      expect(printed, cli[i]!.stderr).not.toBeNull();
      expect(answer).toEqual({ text: printed![1], hint: printed![2] });
    }
    expect(memories()).toEqual([]);
    // Text at the limit is still taken.
    s.call(15, 'add_memory', { text: 'ok '.repeat(10_000) });
    expect(toolText(await s.answer(15)).isError).toBe(false);
    expect(memories()).toHaveLength(1);
  }, 60_000);

  it('stdout carried protocol messages only', () => {
    expect(s.noise).toEqual([]);
  });
});
