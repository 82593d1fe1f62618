import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SummarizerError } from '../../src/llm/faults.js';
import { createOpenAiSummarizer } from '../../src/llm/openai.js';
import type { OpenAiSettings } from '../../src/llm/openai-settings.js';
import { loadPrompts } from '../../src/llm/prompts.js';
import type { SummaryRequest, SummarySource } from '../../src/llm/types.js';
import { parseMarkdown } from '../../src/vault/markdown.js';
import { extractSentences } from '../../src/vault/sentences.js';
import { closedPort, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';

/**
 * The `openai` summarizer in process, against the fake server over real
 * HTTP: what it sends in chat and completion mode, and what it does with
 * every fault. Waits between retries are recorded, not slept. Settings
 * from the config: openai-settings.test.ts.
 */

const KEY = 'sk-test-4f9a2c7e1b8d6a3f5e0c9b7a';
const prompts = loadPrompts().prompts;

function source(id: string, label: string, body: string, extra: Partial<SummarySource> = {}): SummarySource {
  return {
    id,
    label,
    day: '2026-02-10',
    kind: 'session',
    importance: 'normal',
    body,
    sentences: extractSentences(parseMarkdown(body), { pinned: false }),
    ...extra,
  };
}

const request = (over: Partial<SummaryRequest> = {}): SummaryRequest => ({
  tier: 'daily',
  stream: 'main',
  period: '2026-02-10',
  start: '2026-02-10',
  end: '2026-02-10',
  sources: [
    source(
      '2026-02/auth',
      'Auth refactor',
      'Replaced JWT with server sessions: tokens grew past the cookie limit.\n\n## Decision\n\nSessions live in Postgres, 30-day expiry.',
      { time: '09:05' },
    ),
    source('2026-02/ci', 'CI cache', 'Cut CI time from 14 min to 6 min by caching `node_modules`.', {
      time: '14:40',
      importance: 'pinned',
      kind: 'note',
    }),
  ],
  budget: { tokens: 300, bytes: 1400 },
  attempt: 0,
  missing: [],
  ...over,
});

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function settings(over: Partial<OpenAiSettings> = {}): OpenAiSettings {
  return {
    profile: 'test',
    baseURL: server.url,
    model: 'fake-model',
    apiKey: KEY,
    keySource: 'TEST_KEY',
    mode: 'chat',
    temperature: 0.2,
    maxTokens: undefined,
    stop: undefined,
    timeoutMs: 5000,
    faultRetries: 2,
    backoffMs: 100,
    maxWaitMs: 60_000,
    official: false,
    ...over,
  };
}

function summarizer(over: Partial<OpenAiSettings> = {}) {
  const waits: number[] = [];
  const s = createOpenAiSummarizer(settings(over), prompts, { sleep: async (ms) => void waits.push(ms), random: () => 0.5 });
  return { s, waits };
}

async function failure(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SummarizerError) return error;
    throw error;
  }
  throw new Error('expected a SummarizerError');
}

describe('openai summarizer: requests', () => {
  it('chat mode sends the tier prompt as system + user messages, with the budget from the request', async () => {
    const { s } = summarizer();
    const out = await s.summarize(request());
    expect(out.body).toBe(
      '## Summary\n\n- 09:05 Auth refactor (session): Replaced JWT with server sessions: tokens grew past the cookie limit.\n' +
        '- 14:40 CI cache (note, pinned): Cut CI time from 14 min to 6 min by caching `node_modules`.',
    );
    expect(out.finish).toBe('stop');
    const [call] = server.calls();
    expect(call?.endpoint).toBe('chat');
    expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call?.body).toMatchObject({ model: 'fake-model', temperature: 0.2, max_tokens: 600 });
    expect(call?.body.max_completion_tokens).toBeUndefined();
    const [system, user] = call!.body.messages;
    expect(system.role).toBe('system');
    expect(user.role).toBe('user');
    expect(user.content).toContain('Summarize the 2 memories of 2026-02-10');
    expect(user.content).toContain('Stay under 270 tokens (about 189 words)');
    expect(user.content).toContain('### 09:05 Auth refactor (session)');
    // Headings inside a source go below the source's own heading.
    expect(user.content).toContain('##### Decision');
    expect(out.usage).toEqual({
      calls: 1,
      inputTokens: Math.ceil(call!.prompt.length / 4),
      outputTokens: Math.ceil(out.body.length / 4),
      retries: 0,
    });
  });

  it('api.openai.com gets max_completion_tokens', async () => {
    const { s } = summarizer({ official: true });
    await s.summarize(request());
    expect(server.calls()[0]?.body).toMatchObject({ max_completion_tokens: 600 });
  });

  it('completion mode sends the `# Memories:` / `# Summary …:` / `>` format with stop sequences to /v1/completions', async () => {
    const { s } = summarizer({ mode: 'completion' });
    const out = await s.summarize(request());
    const [call] = server.calls();
    expect(call?.endpoint).toBe('completion');
    expect(call?.body.stop).toEqual(['\n#']);
    expect(call?.body.prompt.startsWith('# Memories:\n\n### 09:05 Auth refactor')).toBe(true);
    expect(call?.body.prompt.endsWith('# Summary (first-person perspective, I/me/my, no meta-commentary, under 189 words):\n>')).toBe(true);
    expect(out.body.startsWith('I noted 2 things. I remember 09:05 Auth refactor')).toBe(true);
  });

  it('budget retries get progressively tighter instructions, and lost items are named', async () => {
    const { s } = summarizer();
    await s.summarize(request({ attempt: 1, previousTokens: 512 }));
    await s.summarize(request({ attempt: 2, previousTokens: 380, missing: ['AUTH_TTL', 'decided on Postgres'] }));
    const [first, second] = server.calls().map((c) => c.body.messages[1].content as string);
    expect(first).toContain('Your previous answer was 512 tokens, over the limit. Keep output under 225 tokens');
    expect(first).not.toContain('CRITICAL');
    expect(second).toContain('CRITICAL: the answer MUST be under 180 tokens');
    expect(second).toContain('the previous one had 380');
    expect(second).toContain('Keep these items, the previous answer lost them: “AUTH_TTL”; “decided on Postgres”');
  });

  it('a request may name another prompt (session primers), the tier still sets the budget', async () => {
    const { s } = summarizer();
    await s.summarize(request({ prompt: 'session-primer' }));
    const user = server.calls()[0]!.body.messages[1].content as string;
    expect(user).toContain('Below are the 2 messages of a work session');
    expect(user).toContain('Stay under 270 tokens');
  });

  it('estimates input tokens of the rendered prompt', () => {
    const { s } = summarizer();
    const estimate = s.estimateInputTokens!(request());
    expect(estimate).toBeGreaterThan(300);
    expect(estimate).toBeLessThan(700);
  });

  it('prompt ids change with what is sent, not with the key or endpoint', () => {
    const a = summarizer().s.promptId('weekly');
    expect(a).toMatch(/^weekly@[0-9a-f]{8}$/);
    expect(summarizer({ apiKey: 'other', baseURL: 'http://localhost:1/v1' }).s.promptId('weekly')).toBe(a);
    expect(summarizer({ temperature: 0.7 }).s.promptId('weekly')).not.toBe(a);
    expect(summarizer({ mode: 'completion' }).s.promptId('weekly')).not.toBe(a);
    expect(summarizer().s.promptId('daily')).not.toBe(a);
  });
});

describe('openai summarizer: faults', () => {
  it('429: waits what retry-after says (capped by max_wait_s), then succeeds', async () => {
    server.inject({ fault: { kind: 'status', status: 429, headers: { 'retry-after': '2' } } });
    server.inject({ fault: { kind: 'status', status: 429, headers: { 'retry-after-ms': '250' } } });
    server.inject({ fault: { kind: 'status', status: 429, headers: { 'retry-after': '3600' } } });
    const { s, waits } = summarizer({ faultRetries: 3, maxWaitMs: 5000 });
    const out = await s.summarize(request());
    expect(waits).toEqual([2000, 250, 5000]);
    expect(out.usage).toMatchObject({ calls: 4, retries: 3 });
  });

  it('5xx: retried with exponential backoff', async () => {
    server.inject({ fault: { kind: 'status', status: 503 }, times: 2 });
    const { s, waits } = summarizer();
    const out = await s.summarize(request());
    expect(waits).toEqual([100, 200]);
    expect(out.usage).toMatchObject({ calls: 3, retries: 2 });
    expect(out.body).toContain('Auth refactor');
  });

  it('5xx that persists: fails this summary only, after the bounded retries', async () => {
    server.inject({ fault: { kind: 'status', status: 500, message: 'boom' }, times: Infinity, match: 'Auth refactor' });
    const { s } = summarizer();
    const error = await failure(s.summarize(request()));
    expect(error).toMatchObject({ kind: 'server', fatal: false, requests: 3 });
    expect(error.message).toBe(`${server.url} answered 500 (server error): boom (3 attempts)`);
    // Not a reason to stop calling for other summaries.
    const other = await s.summarize(request({ sources: [source('x', 'Other', 'Something else happened today.')] }));
    expect(other.body).toContain('Other');
  });

  it('timeout: retried with a longer timeout each time, then fails', async () => {
    server.inject({ fault: { kind: 'hang', ms: 3000 }, times: Infinity });
    const { s } = summarizer({ timeoutMs: 150, faultRetries: 1 });
    const started = Date.now();
    const error = await failure(s.summarize(request()));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`no answer from ${server.url} within 0.2 s (2 attempts)`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150 + 225 - 20);
    expect(server.calls()).toHaveLength(2);
  });

  it('timeout once: the retry succeeds', async () => {
    server.inject({ fault: { kind: 'hang', ms: 3000 } });
    const { s } = summarizer({ timeoutMs: 150 });
    expect((await s.summarize(request())).usage).toMatchObject({ calls: 2, retries: 1 });
  });

  it('connection refused: fails, and later summaries are not even attempted', async () => {
    const port = await closedPort();
    const { s, waits } = summarizer({ baseURL: `http://127.0.0.1:${port}/v1` });
    const error = await failure(s.summarize(request()));
    expect(error).toMatchObject({ kind: 'connection', requests: 3 });
    expect(error.message).toBe(`cannot reach http://127.0.0.1:${port}/v1 (connection refused) (3 attempts)`);
    expect(waits).toHaveLength(2);
    const next = await failure(s.summarize(request()));
    expect(next.message).toMatch(/^not attempted: cannot reach/);
    expect(next.requests).toBe(0);
  });

  it('a dropped connection is retried', async () => {
    server.inject({ fault: { kind: 'reset' } });
    const { s } = summarizer();
    expect((await s.summarize(request())).usage.calls).toBe(2);
  });

  it('empty answers are retried, then fail', async () => {
    server.inject({ fault: { kind: 'empty' } });
    const { s } = summarizer();
    expect((await s.summarize(request())).usage.calls).toBe(2);
    server.inject({ fault: { kind: 'empty' }, times: Infinity });
    const error = await failure(s.summarize(request()));
    expect(error).toMatchObject({ kind: 'empty', requests: 3 });
    expect(error.message).toBe('fake-model returned an empty answer (3 attempts)');
  });

  it('a non-JSON answer is a server fault, retried', async () => {
    server.inject({ fault: { kind: 'garbage' } });
    const { s } = summarizer();
    expect((await s.summarize(request())).usage.calls).toBe(2);
  });

  it('a runaway answer cut by max_tokens is returned as `length` (the rollup retries it tighter)', async () => {
    server.inject({ fault: { kind: 'runaway' } });
    const { s } = summarizer({ maxTokens: 800 });
    const out = await s.summarize(request());
    expect(out.finish).toBe('length');
    expect(server.calls()[0]?.body.max_tokens).toBe(800);
  });

  it('meta-commentary and injected frontmatter are cleaned out', async () => {
    server.inject({ fault: { kind: 'meta' } });
    server.inject({ fault: { kind: 'frontmatter' } });
    const { s } = summarizer();
    const meta = await s.summarize(request());
    expect(meta.body.startsWith('## Summary')).toBe(true);
    expect(meta.body).not.toMatch(/Sure|Let me know/);
    expect(meta.notes).toEqual(['opening meta-commentary', 'closing meta-commentary']);
    const fm = await s.summarize(request());
    expect(fm.body.startsWith('## Summary')).toBe(true);
    expect(fm.body).not.toMatch(/^---|memvault:|review:/m);
    expect(fm.notes).toContain('frontmatter');
  });

  it('401 echoing the key: fails without the key in the message, and stops later calls', async () => {
    server.inject({
      fault: {
        kind: 'status',
        status: 401,
        message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`,
      },
      times: Infinity,
    });
    const { s, waits } = summarizer();
    const error = await failure(s.summarize(request()));
    expect(error).toMatchObject({ kind: 'auth', fatal: true, requests: 1 });
    expect(waits).toEqual([]);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(KEY.slice(3, 20));
    expect(error.message).toContain('refused the API key (401)');
    expect((await failure(s.summarize(request()))).message).toMatch(/^not attempted: .*401/);
    expect(server.calls()).toHaveLength(1);
  });

  it('counts tokens itself when the server reports no usage', async () => {
    const bare = await startFakeOpenAI({ usage: false });
    try {
      const s = createOpenAiSummarizer(settings({ baseURL: bare.url }), prompts);
      const out = await s.summarize(request());
      expect(out.usage.inputTokens).toBeGreaterThan(200);
      expect(out.usage.outputTokens).toBeGreaterThan(20);
    } finally {
      await bare.close();
    }
  });
});
