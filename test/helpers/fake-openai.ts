import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerFor, bagOfWordsVector, completionBody } from './fake-answers.js';

export { answerFor, bagOfWordsVector } from './fake-answers.js';

/**
 * A fake OpenAI-compatible server for tests: node:http on 127.0.0.1 at a
 * random port, serving `POST /v1/chat/completions` and `POST /v1/completions`
 * the way OpenAI, Ollama or vLLM do, so the real `openai` SDK talks real HTTP
 * to it. It records every request and answers deterministically from the
 * prompt: one bullet per source heading (`### …`) with the source's first
 * sentence, at most six, plus the items a retry asks to keep. Faults are injected on demand, for the next N
 * requests or for requests whose prompt matches a pattern.
 *
 * @example
 *   const server = await startFakeOpenAI();
 *   server.inject({ fault: { kind: 'status', status: 503 }, times: 2 });
 *   // base_url: server.url  →  http://127.0.0.1:PORT/v1
 *   await server.close();
 */

export type FakeFault =
  /** An HTTP error with an OpenAI-style JSON body; `headers` e.g. `{ 'retry-after': '1' }`. */
  | { kind: 'status'; status: number; message?: string; headers?: Record<string, string> }
  /** No answer for `ms` (longer than the client's timeout), then the normal answer if anyone still listens. */
  | { kind: 'hang'; ms: number }
  /** No answer until the test calls `release()`, then the normal answer: a slow model that is exactly as slow as a test needs. */
  | { kind: 'hold' }
  /** The connection is dropped without an answer. */
  | { kind: 'reset' }
  /** 200 with an empty answer. */
  | { kind: 'empty' }
  /** A runaway answer cut off by max_tokens: `finish_reason: length`. */
  | { kind: 'runaway' }
  /** The normal answer behind chatter ("Sure! Here is a summary…") and a closing offer. */
  | { kind: 'meta' }
  /** The normal answer with injected frontmatter and a `---` fence in the middle. */
  | { kind: 'frontmatter' }
  /** A complete but over-budget answer (`tokens` roughly, default 2000). */
  | { kind: 'long'; tokens?: number }
  /** 200 with a body that is not JSON. */
  | { kind: 'garbage' }
  /** 200 and its headers at once, then nothing: the body never comes (until the client gives up). */
  | { kind: 'stall' }
  /** 200 and the normal answer, one byte every `intervalMs` (default 1000): a body that takes forever. */
  | { kind: 'trickle'; intervalMs?: number }
  /** A redirect (`status`, default 307) to `location`, e.g. another fake server's URL. */
  | { kind: 'redirect'; location: string; status?: number }
  /** 200 with `text` as the model's answer (control sequences, secrets… whatever a test needs). */
  | { kind: 'reply'; text: string }
  /** The normal answer with `usage` replaced as given (absurd figures: negative, NaN as a string, 1e12…). */
  | { kind: 'usage'; usage: Record<string, unknown> };

export interface FaultRule {
  fault: FakeFault;
  /** How many matching requests get the fault (default 1; `Infinity` for all). */
  times?: number;
  /** Only requests whose prompt text contains this (or matches it). */
  match?: string | RegExp;
  /** Only requests whose prompt text does not contain this. */
  unless?: string | RegExp;
  endpoint?: 'chat' | 'completion' | 'embeddings';
}

export interface RecordedRequest {
  endpoint: 'chat' | 'completion' | 'embeddings' | 'other';
  path: string;
  /** Request headers, lower-cased names (the Authorization header included: tests check what key was sent). */
  headers: Record<string, string>;
  body: any;
  /** The prompt as one text: system + user messages, or the completion prompt. */
  prompt: string;
  /** The fault applied, if any. */
  fault?: FakeFault['kind'];
  /** Milliseconds since the server started. */
  at: number;
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:50123/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  inject(rule: FaultRule): void;
  /** Drops pending faults and recorded requests. */
  reset(): void;
  /** Answers every request held by a `hold` fault (normally, as if it had been slow). */
  release(): void;
  /** Requests that reached a model endpoint (chat or completion). */
  calls(): RecordedRequest[];
  close(): Promise<void>;
}

export interface FakeOptions {
  /** Report `usage` in answers (default true); without it the client counts tokens itself. */
  usage?: boolean;
  model?: string;
  /** `POST /v1/embeddings`: the vector of one input (default `bagOfWordsVector`, deterministic). */
  embed?: (text: string) => number[];
}

/** Starts the fake server on 127.0.0.1 and a free port. */
export async function startFakeOpenAI(options: FakeOptions = {}): Promise<FakeOpenAI> {
  const rules: (FaultRule & { left: number })[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const held = new Set<() => void>();
  const started = Date.now();
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? '').replace(/\?.*$/, '');
    const endpoint = path.endsWith('/chat/completions')
      ? 'chat'
      : path.endsWith('/completions')
        ? 'completion'
        : path.endsWith('/embeddings')
          ? 'embeddings'
          : 'other';
    let body: any = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = { raw: text };
    }
    const prompt =
      endpoint === 'embeddings'
        ? ([] as unknown[])
            .concat(body.input ?? [])
            .map(String)
            .join('\n')
        : endpoint === 'chat'
          ? (body.messages ?? []).map((m: { content?: unknown }) => String(m.content ?? '')).join('\n\n')
          : String(body.prompt ?? '');
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers))
      headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value ?? '');
    const record: RecordedRequest = { endpoint, path, headers, body, prompt, at: Date.now() - started };
    requests.push(record);

    if (req.method !== 'POST' || endpoint === 'other') {
      sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: 'invalid_request_error' } });
      return;
    }
    const rule = rules.find(
      (r) => r.left > 0 && (!r.endpoint || r.endpoint === endpoint) && matches(prompt, r.match, true) && !matches(prompt, r.unless, false),
    );
    if (rule) {
      rule.left--;
      record.fault = rule.fault.kind;
    }
    const fault = rule?.fault;
    if (endpoint === 'embeddings') {
      if (fault?.kind === 'status' || fault?.kind === 'reset') {
        if (fault.kind === 'reset') req.socket.destroy();
        else
          sendJson(
            res,
            fault.status,
            { error: { message: fault.message ?? `fake error ${fault.status}`, type: 'server_error' } },
            fault.headers,
          );
        return;
      }
      const inputs = ([] as unknown[]).concat(body.input ?? []).map(String);
      const embed = options.embed ?? bagOfWordsVector;
      sendJson(res, 200, {
        object: 'list',
        model: String(body.model ?? options.model ?? 'fake-embed'),
        data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: embed(input) })),
        usage: { prompt_tokens: Math.ceil(prompt.length / 4), total_tokens: Math.ceil(prompt.length / 4) },
      });
      return;
    }
    const answer = answerFor(prompt, endpoint);
    switch (fault?.kind) {
      case 'status':
        sendJson(
          res,
          fault.status,
          {
            error: {
              message: fault.message ?? `fake error ${fault.status}`,
              type: fault.status === 429 ? 'rate_limit_exceeded' : 'server_error',
              code: null,
            },
          },
          fault.headers,
        );
        return;
      case 'hang': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) sendJson(res, 200, completionBody(endpoint, body, prompt, answer, 'stop', options));
        }, fault.ms);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'hold': {
        const answerNow = (): void => {
          held.delete(answerNow);
          if (!res.destroyed) sendJson(res, 200, completionBody(endpoint, body, prompt, answer, 'stop', options));
        };
        held.add(answerNow);
        res.on('close', () => held.delete(answerNow));
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'empty':
        sendJson(res, 200, completionBody(endpoint, body, prompt, '', 'stop', options));
        return;
      case 'runaway':
        sendJson(
          res,
          200,
          completionBody(endpoint, body, prompt, `${answer}\n${'- and then it went on and on and on\n'.repeat(200)}`, 'length', options),
        );
        return;
      case 'meta':
        sendJson(
          res,
          200,
          completionBody(
            endpoint,
            body,
            prompt,
            `Sure! Here is a summary of the memories:\n\n${answer}\n\nLet me know if you would like any changes.`,
            'stop',
            options,
          ),
        );
        return;
      case 'frontmatter':
        sendJson(
          res,
          200,
          completionBody(
            endpoint,
            body,
            prompt,
            `---\nmemvault: summary\ntier: hacked\ninput_hash: forged\n---\n${answer}\n---\nreview: []\n---`,
            'stop',
            options,
          ),
        );
        return;
      case 'long': {
        const words = Math.round((fault.tokens ?? 2000) * 0.75);
        const filler = Array.from({ length: words }, (_, i) => `word${i % 97}`).join(' ');
        sendJson(res, 200, completionBody(endpoint, body, prompt, `${answer}\n\n${filler}.`, 'stop', options));
        return;
      }
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>502 Bad Gateway</html>');
        return;
      case 'stall':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        return;
      case 'trickle': {
        const bytes = Buffer.from(JSON.stringify(completionBody(endpoint, body, prompt, answer, 'stop', options)));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
        res.flushHeaders();
        let at = 0;
        const timer = setInterval(() => {
          if (res.destroyed || at >= bytes.length) {
            clearInterval(timer);
            timers.delete(timer);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(bytes.subarray(at, ++at));
        }, fault.intervalMs ?? 1000);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'redirect':
        res.writeHead(fault.status ?? 307, { location: fault.location, 'content-length': 0 }).end();
        return;
      case 'reply':
        sendJson(res, 200, completionBody(endpoint, body, prompt, fault.text, 'stop', options));
        return;
      case 'usage': {
        const answerBody = completionBody(endpoint, body, prompt, answer, 'stop', options) as Record<string, unknown>;
        sendJson(res, 200, { ...answerBody, usage: fault.usage });
        return;
      }
      default:
        sendJson(res, 200, completionBody(endpoint, body, prompt, answer, 'stop', options));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    inject(rule) {
      rules.push({ ...rule, left: rule.times ?? 1 });
    },
    reset() {
      rules.length = 0;
      requests.length = 0;
    },
    release() {
      for (const answerNow of [...held]) answerNow();
    },
    calls: () => requests.filter((r) => r.endpoint !== 'other'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function matches(text: string, pattern: string | RegExp | undefined, empty: boolean): boolean {
  if (pattern === undefined) return empty;
  return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
}
