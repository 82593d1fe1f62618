import { findSecrets, type SecretFinding, type SecretPolicy } from './detect.js';

/**
 * Secret redaction for everything `add`, `ingest`, `memvault redact` and LLM
 * replies write: each secret the detector finds (detect.ts) becomes
 * `[REDACTED:kind]`. Pure and idempotent: redacting redacted text changes
 * nothing.
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
  /** Each replacement, with its place in the original text. */
  findings: SecretFinding[];
}

/** The marker that replaces a secret of `kind`. */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Replaces every secret in `text` (not allowed by `policy` or a marker on its line) by `[REDACTED:kind]`. */
export function redactSecrets(text: string, policy: SecretPolicy = {}): RedactResult {
  const findings = findSecrets(text, policy);
  let out = '';
  let at = 0;
  const counts = new Map<string, number>();
  for (const f of findings) {
    out += text.slice(at, f.start) + redactionMarker(f.kind);
    at = f.end;
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  }
  out += text.slice(at);
  const redactions = [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => (a.kind < b.kind ? -1 : 1));
  return { text: out, redactions, count: findings.length, findings };
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
