import type { OpenAI } from 'openai';
import type { Diagnostic } from '../vault/model.js';
import { checkUsage, displayUrl, RedirectRefusedError, type SdkErrors } from './faults.js';

/**
 * What memvault puts between the openai SDK and an untrusted server: a
 * deadline on the whole request, no redirects, and `usage` figures checked
 * before they are summed into reports.
 */

/**
 * Runs `send` with a signal that aborts after `timeoutMs`. The SDK's own
 * `timeout` ends when the headers arrive; the signal also bounds reading the
 * body (a server that stalls after its headers, or trickles a byte a second).
 * An abort is rethrown as a `TimeoutError`, which `classifyError` reports as
 * a timeout.
 */
export async function withDeadline<T>(timeoutMs: number, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await send(deadline);
  } catch (error) {
    if (deadline.aborted)
      throw Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { name: 'TimeoutError', cause: error });
    throw error;
  }
}

/**
 * The SDK's `fetch`, refusing redirects: a 3xx answer is an error naming the
 * configured URL and where it pointed (`RedirectRefusedError`), so a request
 * carrying memory text never reaches another origin (fetch would resend the
 * body on 307/308, and follow 301/302 anywhere).
 */
export async function noRedirectFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, redirect: 'manual' });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    throw new RedirectRefusedError(url, response.status, response.headers.get('location') ?? '');
  }
  return response;
}

/** A model's text, or '' for anything that is not a string (a server that sends `content: {…}`). */
export function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Token counts as a server reports them, checked: absurd ones are replaced by memvault's count and reported once. */
export class UsageAudit {
  private readonly absurd: string[] = [];

  /** The reported count if believable (an integer in [0, 10^9]); else `count()`, and the figure is remembered. */
  tokens(reported: unknown, field: string, count: () => number): number {
    const checked = checkUsage(reported);
    if (checked.tokens !== undefined) return checked.tokens;
    if (checked.absurd !== undefined && this.absurd.length < 20) this.absurd.push(`${field}: ${checked.absurd}`);
    return count();
  }

  /** One warning for the figures seen since the last call, none when all were believable. */
  take(settings: { baseURL: string; profile: string }): Diagnostic[] {
    if (this.absurd.length === 0) return [];
    const seen = [...new Set(this.absurd.splice(0))];
    return [
      {
        path: 'memory.config.yaml',
        line: 1,
        column: 1,
        severity: 'warning',
        reason:
          `${displayUrl(settings.baseURL)} (profile \`${settings.profile}\`) reported token usage that cannot be real ` +
          `(${seen.slice(0, 3).join(', ')}${seen.length > 3 ? ', …' : ''}): ignored, the tokens were counted instead`,
        hint: "the server or a proxy in front of it misreports `usage`; the figures in this report are memvault's own counts",
        rule: 'llm/usage',
      },
    ];
  }
}

/** What a client of an OpenAI-compatible endpoint needs from its resolved settings. */
export interface ClientSettings {
  apiKey: string;
  baseURL: string;
  timeoutMs: number;
  /** api.openai.com itself: only then may OpenAI's organization and project settings be sent. */
  official: boolean;
}

/**
 * The official SDK's client for one endpoint, loaded on the first call (a
 * build or search that calls nothing never loads the SDK) and shared after.
 * The summarizer and the embeddings client both get theirs here, so both
 * send memory text the same guarded way.
 */
export function lazyOpenAiClient(settings: ClientSettings): () => Promise<{ client: OpenAI; errors: SdkErrors }> {
  let sdk: Promise<{ client: OpenAI; errors: SdkErrors }> | undefined;
  return () =>
    (sdk ??= import('openai').then((module) => ({
      client: new module.OpenAI({
        apiKey: settings.apiKey,
        baseURL: settings.baseURL,
        // Retries are ours: bounded, counted, with configurable backoff.
        maxRetries: 0,
        timeout: settings.timeoutMs,
        logLevel: 'off',
        // Redirects are not followed: memory text goes to the configured origin or nowhere.
        fetch: noRedirectFetch,
        // OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to OpenAI; other hosts do not get them.
        ...(settings.official ? {} : { organization: null, project: null }),
      }),
      errors: module,
    })));
}
