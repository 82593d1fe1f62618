import type { Diagnostic } from '../vault/model.js';
import { checkUsage, displayUrl, RedirectRefusedError } from './faults.js';

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
