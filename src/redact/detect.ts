import type { Finding } from './finding.js';
import { SECRET_RULES, type SecretRule } from './rules.js';
import { secretlintFindings } from './secretlint.js';

export { DETECTOR_VERSION } from './version.js';

/**
 * The secret detector, one for every path: `add` and `ingest` redact with it,
 * the build holds back memories it finds a secret in, `memvault redact`
 * rewrites files with it, and LLM replies are redacted with it.
 * secretlint's recommended preset plus memvault's own rules (rules.ts).
 *
 * False positives are allowed two ways: `memvault:allow-secret` anywhere on
 * the line (an HTML comment `<!-- memvault:allow-secret -->` keeps it out of
 * rendered markdown), or an entry of `secrets.allow` in memory.config.yaml:
 * an exact string, or `/regex/flags`, matched against the secret found.
 */

/** The inline marker that allows whatever is found on its line. */
export const ALLOW_MARKER = 'memvault:allow-secret';

/** A secret found, with its place as an editor shows it (1-based line and column). */
export interface SecretFinding extends Finding {
  line: number;
  column: number;
  /** The text found (what the allowlist is matched against). */
  secret: string;
}

export interface SecretPolicy {
  /** `secrets.allow` of memory.config.yaml: exact strings or `/regex/flags`. */
  allow?: readonly string[];
}

/** Every secret in `text` not allowed by a marker on its line or by `policy`, in text order, without overlaps. */
export function findSecrets(text: string, policy: SecretPolicy = {}): SecretFinding[] {
  const markers = markerSpans(text);
  const raw = [...secretlintFindings(text), ...ruleFindings(text, SECRET_RULES)].filter(
    (f) => f.end > f.start && !overlapsMarker(markers, f),
  );
  const allowed = allowlistMatcher(policy.allow ?? []);
  const lines = lineStarts(text);
  // Lines holding the allow marker, found once: testing each finding's line would be quadratic on one long line.
  const allowedLines = new Set<number>();
  for (let at = text.indexOf(ALLOW_MARKER); at !== -1; at = text.indexOf(ALLOW_MARKER, at + 1)) allowedLines.add(position(lines, at)[0]);
  const out: SecretFinding[] = [];
  for (const finding of resolveOverlaps(raw)) {
    const secret = text.slice(finding.start, finding.end);
    const [line, column] = position(lines, finding.start);
    if (allowedLines.has(line)) continue;
    if (allowed(secret)) continue;
    out.push({ ...finding, secret, line, column });
  }
  return out;
}

/** Findings of memvault's own rules: the `secret` group when a rule has one, else the whole match. */
function ruleFindings(text: string, rules: readonly SecretRule[]): Finding[] {
  const found: Finding[] = [];
  for (const rule of rules) {
    if (rule.prefilter && !rule.prefilter.test(text)) continue;
    for (const match of text.matchAll(rule.regex)) {
      const group = match.groups?.secret;
      let start = match.index;
      let value = match[0];
      if (group !== undefined) {
        // The secret ends the match, or comes just before its closing `@` (URLs): its last occurrence is it.
        start = match.index + match[0].lastIndexOf(group);
        value = group;
      }
      if (rule.accept && !rule.accept(value)) continue;
      // `"hunter2"` → `"[REDACTED:password]"`: quotes stay, so JSON and code keep their shape.
      if (/^(["'`]).+\1$/s.test(value)) {
        start += 1;
        value = value.slice(1, -1);
      }
      if (value.length > 0) found.push({ kind: rule.kind, start, end: start + value.length });
    }
  }
  return found;
}

/** Kinds secretlint reports as a whole URL where memvault's own rules find just the password in it. */
const WHOLE_URL_KINDS = new Set(['database-password', 'url-password']);

/** Kinds found by context (a key name, a phrase) rather than by a vendor's shape. */
const GENERIC_KINDS = new Set(['api-key', 'secret', 'password', 'bearer-token']);

/**
 * One finding per stretch of text. A finding inside another gives way to it,
 * except inside a whole connection string (then the password alone is
 * replaced and the user and host stay); partly overlapping ones are merged.
 */
function resolveOverlaps(findings: Finding[]): Finding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (!last || f.start >= last.end) {
      out.push({ ...f });
      continue;
    }
    if (f.end <= last.end) {
      // `f` lies inside `last`: a vendor's name beats `api-key`; a password beats the whole connection string it is in.
      if (WHOLE_URL_KINDS.has(last.kind) && WHOLE_URL_KINDS.has(f.kind)) out[out.length - 1] = { ...f };
      else if (GENERIC_KINDS.has(last.kind) && !GENERIC_KINDS.has(f.kind)) last.kind = f.kind;
      continue;
    }
    last.end = f.end;
    if (GENERIC_KINDS.has(last.kind) && !GENERIC_KINDS.has(f.kind)) last.kind = f.kind;
  }
  return out;
}

/** Where the `[REDACTED:kind]` markers of `text` are, in order. */
function markerSpans(text: string): Finding[] {
  return [...text.matchAll(/\[REDACTED(?::[\w-]*)?\]/g)].map((m) => ({ kind: 'marker', start: m.index, end: m.index + m[0].length }));
}

/** A match over an existing marker is not a new secret: redacting stays idempotent. */
function overlapsMarker(markers: readonly Finding[], f: Finding): boolean {
  // The first marker ending after `f` starts: `f` overlaps it when it starts before `f` ends.
  let low = 0;
  let high = markers.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (markers[mid]!.end <= f.start) low = mid + 1;
    else high = mid;
  }
  return low < markers.length && markers[low]!.start < f.end;
}

/**
 * Whether a secret found is allowed by `secrets.allow`: an entry is the exact
 * secret, or `/regex/flags` tested on it. The config schema checks the regexes.
 */
export function allowlistMatcher(entries: readonly string[]): (secret: string) => boolean {
  const tests = entries.map((entry) => {
    const re = /^\/(.+)\/([a-z]*)$/s.exec(entry);
    if (re) {
      const regex = new RegExp(re[1]!, re[2]!.replace(/[gy]/g, ''));
      return (secret: string) => regex.test(secret);
    }
    return (secret: string) => secret === entry;
  });
  return (secret) => tests.some((test) => test(secret));
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function position(starts: readonly number[], offset: number): [number, number] {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return [low + 1, offset - starts[low]! + 1];
}
