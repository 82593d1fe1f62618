import { SECRET_PATTERNS, type SecretPattern } from './patterns.js';

/**
 * Secret redaction for everything `add` and `ingest` write: API keys and
 * tokens become `[REDACTED:kind]` before a byte reaches the vault (and so a
 * commit). Pure and idempotent: redacting redacted text changes nothing.
 *
 * @example
 *   redactSecrets('export OPENAI_API_KEY=sk-proj-…').text // 'export OPENAI_API_KEY=[REDACTED:openai-project]'
 */

export interface RedactionCount {
  kind: string;
  count: number;
}

/** Redacted text and what was replaced. */
export interface RedactResult {
  text: string;
  /** Secrets replaced, per kind, sorted by kind. */
  redactions: RedactionCount[];
  /** Total number of secrets replaced. */
  count: number;
}

/** The marker that replaces a secret of `kind`. */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Replaces every secret in `text` by `[REDACTED:kind]`. */
export function redactSecrets(text: string, patterns: readonly SecretPattern[] = SECRET_PATTERNS): RedactResult {
  const counts = new Map<string, number>();
  let out = text;
  for (const pattern of patterns) {
    pattern.regex.lastIndex = 0;
    out = out.replace(pattern.regex, (...args: unknown[]) => {
      const match = args[0] as string;
      const last = args[args.length - 1];
      const groups = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : undefined;
      let secret = groups?.secret ?? match;
      // `"hunter2"` → `"[REDACTED:password]"`: the quotes stay, so JSON and code keep their shape.
      if (/^(["'`]).+\1$/s.test(secret)) secret = secret.slice(1, -1);
      if (secret.length === 0 || secret.includes('[REDACTED:')) return match;
      if (pattern.accept && !pattern.accept(secret)) return match;
      counts.set(pattern.kind, (counts.get(pattern.kind) ?? 0) + 1);
      // The secret ends the match, or comes just before its closing `@` (URLs): the last occurrence is it.
      const at = match.lastIndexOf(secret);
      return `${match.slice(0, at)}${redactionMarker(pattern.kind)}${match.slice(at + secret.length)}`;
    });
  }
  const redactions = [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => (a.kind < b.kind ? -1 : 1));
  return { text: out, redactions, count: redactions.reduce((sum, r) => sum + r.count, 0) };
}

/** Adds the counts of `more` to `into` (for a report over many texts). */
export function mergeRedactions(into: Map<string, number>, more: readonly RedactionCount[]): void {
  for (const { kind, count } of more) into.set(kind, (into.get(kind) ?? 0) + count);
}

/** `3 secrets redacted (openai 2, password 1)`, or '' when there were none. */
export function describeRedactions(counts: ReadonlyMap<string, number> | readonly RedactionCount[]): string {
  const entries = Array.isArray(counts) ? counts.map((r) => [r.kind, r.count] as const) : [...(counts as ReadonlyMap<string, number>)];
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return '';
  const kinds = [...entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, n]) => `${kind} ${n}`);
  return `${total} secret${total === 1 ? '' : 's'} redacted (${kinds.join(', ')})`;
}
