import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUsage, classifyError, RedirectRefusedError, stripControl } from '../../src/llm/faults.js';
import { noRedirectFetch, UsageAudit, withDeadline } from '../../src/llm/transport.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';

/** The guards between the SDK and an untrusted server, against the real fake server over HTTP. */

let server: FakeOpenAI;
let other: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
  other = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  await other.close();
});

const post = (signal?: AbortSignal): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '### A\nsecret memory text.' }] }),
  ...(signal ? { signal } : {}),
});

describe('noRedirectFetch', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`refuses a ${status} and sends nothing to the target`, async () => {
      server.reset();
      other.reset();
      server.inject({ fault: { kind: 'redirect', status, location: `${other.url}/chat/completions` } });
      const error = (await noRedirectFetch(`${server.url}/chat/completions`, post()).catch((e: unknown) => e)) as RedirectRefusedError;
      expect(error).toBeInstanceOf(RedirectRefusedError);
      expect(error).toMatchObject({ status, location: `${other.url}/chat/completions`, url: `${server.url}/chat/completions` });
      expect(other.requests).toEqual([]);
    });
  }
  it('passes other answers through', async () => {
    server.reset();
    const response = await noRedirectFetch(`${server.url}/chat/completions`, post());
    expect(response.status).toBe(200);
    const json = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]!.message.content).toContain('A: secret memory text.');
  });
});

describe('withDeadline', () => {
  it('ends a body that never comes as a TimeoutError', async () => {
    server.reset();
    server.inject({ fault: { kind: 'stall' } });
    const started = Date.now();
    const error = await withDeadline(300, async (signal) => (await fetch(`${server.url}/chat/completions`, post(signal))).json()).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(3000);
  });
  it('ends a trickling body as a TimeoutError', async () => {
    server.reset();
    server.inject({ fault: { kind: 'trickle', intervalMs: 100 } });
    const error = await withDeadline(400, async (signal) => (await fetch(`${server.url}/chat/completions`, post(signal))).text()).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('TimeoutError');
  });
  it('lets a prompt answer through, and other errors keep their kind', async () => {
    server.reset();
    const json = (await withDeadline(5000, async (signal) => (await fetch(`${server.url}/chat/completions`, post(signal))).json())) as {
      object: string;
    };
    expect(json.object).toBe('chat.completion');
    await expect(withDeadline(5000, async () => Promise.reject(new TypeError('boom')))).rejects.toThrow(TypeError);
  });
});

describe('stripControl', () => {
  it('removes ANSI/OSC sequences and C0/C1 controls, keeps newlines, tabs and text', () => {
    expect(stripControl('a\u001b[31mred\u001b[0m\tb\nc')).toBe('ared\tb\nc');
    expect(stripControl('x\u001b]0;title\u0007y\u001b]8;;http://e\u001b\\link\u001b]8;;\u001b\\z')).toBe('xylinkz');
    expect(stripControl('bell\u0007 back\b cr\r del\u007f c1\u0085 csi\u009b2J nul\u0000 esc\u001b')).toBe(
      'bell back cr del c1 csi nul esc',
    );
    expect(stripControl('naïve – 日本語 ✓')).toBe('naïve – 日本語 ✓');
  });
});

describe('usage figures', () => {
  it('accepts whole numbers from 0 to 10^9 only', () => {
    expect(checkUsage(0)).toEqual({ tokens: 0 });
    expect(checkUsage(1_000_000_000)).toEqual({ tokens: 1_000_000_000 });
    expect(checkUsage(undefined)).toEqual({});
    expect(checkUsage(null)).toEqual({});
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1_000_000_001, '12', {}])
      expect(checkUsage(bad).absurd, String(bad)).toBeDefined();
  });
  it('an audit counts instead and warns once per build', () => {
    const audit = new UsageAudit();
    expect(audit.tokens(12, 'prompt_tokens', () => 99)).toBe(12);
    expect(audit.tokens(-5, 'prompt_tokens', () => 99)).toBe(99);
    expect(audit.tokens(-5, 'prompt_tokens', () => 99)).toBe(99);
    const [warning, ...rest] = audit.take({ baseURL: 'http://u:p@127.0.0.1:1/v1', profile: 'local' });
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ severity: 'warning', rule: 'llm/usage' });
    expect(warning!.reason).toContain('(prompt_tokens: -5)');
    expect(warning!.reason).not.toContain('u:p@');
    expect(audit.take({ baseURL: 'http://127.0.0.1:1/v1', profile: 'local' })).toEqual([]);
  });
});

describe('classifyError', () => {
  it('a refused redirect is fatal, names both URLs and strips control sequences from the location', async () => {
    const sdk = await import('openai');
    const cause = new RedirectRefusedError('http://127.0.0.1:1/v1/chat/completions', 302, 'http://evil.example/\u001b[2Jx');
    const fault = classifyError(new sdk.APIConnectionError({ message: 'Connection error.', cause }), sdk, {
      baseURL: 'http://127.0.0.1:1/v1',
      timeoutMs: 1000,
      secrets: [],
    });
    expect(fault).toMatchObject({ kind: 'redirect', retryable: false, fatal: true, status: 302 });
    expect(fault.message).toContain('http://127.0.0.1:1/v1 answered 302 redirecting to http://evil.example/x');
    expect(fault.message).not.toContain('\u001b');
  });
});
