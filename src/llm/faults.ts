import type { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import stripAnsi from 'strip-ansi';
import type { SummaryUsage } from './types.js';
import { MemvaultError } from '../util/errors.js';

/**
 * What can go wrong when calling a model, and what to do about it: which
 * faults are worth a retry (timeouts, refused connections, 429, 5xx, empty
 * answers), how long to wait (`retry-after`, else exponential backoff), which
 * ones stop every later call too (a bad key, an unknown model, a server that
 * cannot be reached), and how to say it without leaking a secret.
 */

/** What went wrong with a call, as reported in `streams[].failed[].kind`. */
export type FaultKind =
  | 'timeout'
  | 'connection'
  | 'rate-limit'
  | 'server'
  | 'empty'
  | 'auth'
  | 'not-found'
  | 'bad-request'
  | 'http'
  /** The server answered 3xx: never followed, memory text goes to the configured origin only. */
  | 'redirect';

/** A classified fault: what happened (one line, no secrets) and what to do about it. */
export interface Fault {
  kind: FaultKind;
  /** One line, secrets redacted. */
  message: string;
  /** Worth asking again after a pause. */
  retryable: boolean;
  /** Every later call would fail the same way: stop calling (a bad key, an unknown model). */
  fatal: boolean;
  status?: number;
  /** The server said how long to wait (`retry-after-ms` / `retry-after`). */
  retryAfterMs?: number;
}

/** A summarizer call that failed for good, after its retries. Carries what the attempts cost. */
export class SummarizerError extends MemvaultError {
  readonly kind: FaultKind;
  readonly fatal: boolean;
  readonly status: number | undefined;
  constructor(
    readonly fault: Fault,
    readonly usage: SummaryUsage,
    /** Requests made for this summary, the failed ones included. */
    readonly requests: number,
  ) {
    super('llm/failed', fault.message);
    this.name = 'SummarizerError';
    this.kind = fault.kind;
    this.fatal = fault.fatal;
    this.status = fault.status;
  }
}

/** Thrown by memvault's `fetch` for a 3xx answer (redirects are not followed: see openai.ts `noRedirectFetch`). */
export class RedirectRefusedError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly location: string,
  ) {
    super(`${displayUrl(url)} answered ${status} redirecting to ${displayUrl(location)}`);
    this.name = 'RedirectRefusedError';
  }
}

/** The SDK's error classes; passed in so that this module does not load the SDK (it is imported lazily, on the first call). */
export interface SdkErrors {
  APIError: typeof APIError;
  APIConnectionError: typeof APIConnectionError;
  APIConnectionTimeoutError: typeof APIConnectionTimeoutError;
  APIUserAbortError: typeof APIUserAbortError;
}

/**
 * Classifies an error thrown by the openai SDK (or by fetch under it).
 * `where` names the endpoint in messages (its userinfo, if any, is masked).
 */
export function classifyError(
  error: unknown,
  sdk: SdkErrors,
  where: { baseURL: string; timeoutMs: number; secrets: readonly string[] },
): Fault {
  const { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } = sdk;
  const endpoint = displayUrl(where.baseURL);
  const clean = (text: string): string => oneLine(redactSecrets(stripControl(text), where.secrets));
  const redirect = findCause(error, RedirectRefusedError);
  if (redirect) {
    return {
      kind: 'redirect',
      message:
        `${endpoint} answered ${redirect.status} redirecting to ${clean(displayUrl(stripControl(redirect.location))) || '(no location)'}: ` +
        'not followed, so the request (memory text) went nowhere else; set base_url to the address that answers',
      retryable: false,
      fatal: true,
      status: redirect.status,
    };
  }
  if (error instanceof APIConnectionTimeoutError || (error instanceof Error && error.name === 'TimeoutError')) {
    return {
      kind: 'timeout',
      message: `no answer from ${endpoint} within ${formatSeconds(where.timeoutMs)}`,
      retryable: true,
      fatal: false,
    };
  }
  if (error instanceof APIUserAbortError) {
    return { kind: 'timeout', message: `the request to ${endpoint} was aborted`, retryable: true, fatal: false };
  }
  if (error instanceof APIConnectionError) {
    return { kind: 'connection', message: `cannot reach ${endpoint} (${connectionProblem(error, clean)})`, retryable: true, fatal: false };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const retryAfterMs = parseRetryAfter(error.headers);
    return httpFault(endpoint, error.status, clean(apiErrorDetail(error)), retryAfterMs);
  }
  const message = error instanceof Error ? error.message : String(error);
  // A 200 answer that is not JSON (a proxy's HTML page, a truncated body) is a server fault.
  return { kind: 'server', message: `unusable answer from ${endpoint}: ${clean(message)}`, retryable: true, fatal: false };
}

/** Why a connection failed, in a few words: refused, host not found, the system's code, or the SDK's message. */
function connectionProblem(error: Error, clean: (text: string) => string): string {
  const code = causeCode(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  return code ? code : clean(error.message || 'connection error');
}

/**
 * The fault an HTTP error status means: 429 a rate limit (retried) or an
 * exhausted quota (fatal: OpenAI answers 429 for both), 401/403 a refused
 * key, 404 an unknown model or endpoint, 408/409 and 5xx retried, any other
 * a bad request. Pure: `detail` is the server's message, cleaned.
 */
function httpFault(endpoint: string, status: number, detail: string, retryAfterMs: number | undefined): Fault {
  const base = { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const said = detail ? `: ${detail}` : '';
  if (status === 429) {
    const quota = /insufficient_quota|exceeded your current quota|billing/i.test(detail);
    const message = `${endpoint} answered 429 ${quota ? 'quota exceeded' : 'too many requests'}${said}`;
    return { kind: 'rate-limit', message, retryable: !quota, fatal: quota, ...base };
  }
  if (status === 401 || status === 403) {
    return { kind: 'auth', message: `${endpoint} refused the API key (${status})${said}`, retryable: false, fatal: true, ...base };
  }
  if (status === 404) {
    const message = `${endpoint} answered 404 (unknown model or endpoint)${said}`;
    return { kind: 'not-found', message, retryable: false, fatal: true, ...base };
  }
  if (status === 408 || status === 409) {
    return { kind: 'http', message: `${endpoint} answered ${status}${said}`, retryable: true, fatal: false, ...base };
  }
  if (status >= 500) {
    return { kind: 'server', message: `${endpoint} answered ${status} (server error)${said}`, retryable: true, fatal: false, ...base };
  }
  return { kind: 'bad-request', message: `${endpoint} answered ${status}${said}`, retryable: false, fatal: false, ...base };
}

/**
 * Milliseconds the server asked to wait: `retry-after-ms`, else `retry-after`
 * in seconds or as an HTTP date. Undefined when absent or unparsable.
 */
export function parseRetryAfter(
  headers: Headers | Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | undefined => (headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name]);
  const ms = get('retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = get('retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter: `base · 2^retry`, ±25 %, capped at `capMs`.
 *
 * @example
 *   backoffDelay(0, 1000) // ≈ 1000; backoffDelay(2, 1000) ≈ 4000
 */
export function backoffDelay(retry: number, baseMs: number, capMs = 30_000, random: () => number = Math.random): number {
  const plain = Math.min(capMs, baseMs * 2 ** retry);
  return Math.max(0, Math.round(plain * (0.75 + random() * 0.5)));
}

const SECRET_PATTERNS: readonly RegExp[] = [
  // OpenAI-style keys (sk-…, sk-proj-…), also when an API echoes them half masked (sk-abc***xyz).
  /\bsk-[A-Za-z0-9_\-*.]{6,}/g,
  /\bBearer\s+[A-Za-z0-9_\-.~+/=*]{6,}/gi,
];

/**
 * Removes secrets from text meant for people: every value in `secrets`
 * (the configured key), anything shaped like an OpenAI key, bearer tokens.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_PATTERNS)
    out = out.replace(pattern, (match) => (match.toLowerCase().startsWith('bearer') ? 'Bearer [redacted]' : 'sk-[redacted]'));
  return out;
}

/** A base URL fit for messages: credentials in it masked, no trailing slash. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = parsed.username ? '***' : '';
      parsed.password = parsed.password ? '***' : '';
    }
    for (const key of [...parsed.searchParams.keys()]) if (/key|token|secret/i.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

function apiErrorDetail(error: InstanceType<SdkErrors['APIError']>): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string') return body.message;
  // The SDK's message starts with the status, which we print ourselves.
  return (error.message ?? '').replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
}

function causeCode(error: Error): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Text from a server made safe for a terminal and for the vault: ANSI/OSC
 * escape sequences removed (strip-ansi), then every remaining C0 and C1
 * control character but newline and tab (a bare ESC, BEL, backspace, CR, CSI U+009B…).
 */
export function stripControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return stripAnsi(text).replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '');
}

/** Token counts of an API's `usage` taken as real: whole numbers from 0 to a billion (no request is bigger). */
export const MAX_USAGE_TOKENS = 1_000_000_000;

/**
 * A `usage` figure as reported, if it is believable (an integer in
 * [0, 10^9]); undefined when absent. `absurd` is set for a figure that was
 * sent but is not believable (negative, NaN, fractional, huge, a string).
 */
export function checkUsage(value: unknown): { tokens?: number; absurd?: string } {
  if (value === undefined || value === null) return {};
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_USAGE_TOKENS) return { tokens: value };
  return { absurd: oneLine(stripControl(typeof value === 'string' ? JSON.stringify(value) : String(value))).slice(0, 40) };
}

function findCause<T>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s` : `${Math.round(ms / 1000)} s`;
}
