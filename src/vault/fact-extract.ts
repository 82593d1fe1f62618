import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import { parseFrontmatter } from './frontmatter.js';
import type { Memory } from './model.js';
import type { Fact } from './fact-model.js';

/**
 * Reads the facts of one memory file from its raw text: the frontmatter of a
 * `kind: fact` memory and the inline `Fact: key = value (scope)` lines of any
 * memory (outside code blocks). Pure and cheap (no markdown parse), so every
 * memory can be read on every build.
 */

export interface FactSource {
  memoryId: string;
  /** Vault-relative path. */
  path: string;
  /** The memory's day (`YYYY-MM-DD`). */
  day: string;
  /** The whole file, frontmatter included. */
  raw: string;
}

/** A fact that could not be read, with its place (rule `fact/…`): the rest of the memory and the vault are unaffected. */
export type FactProblem = Diagnostic;

export interface ExtractedFacts {
  facts: Fact[];
  problems: FactProblem[];
}

/** `Fact: key = value (scope)`, optionally a list item and in bold; the scope is the last parenthesised group. */
const INLINE = /^\s{0,3}(?:[-*+]\s+)?(?:\*\*)?fact:(?:\*\*)?\s*(?<key>[^=\n]+?)\s*=\s*(?<value>.+?)\s*(?:\((?<scope>[^()]+)\))?\s*$/i;
/** The start of an `INLINE` line anywhere in a text. */
const INLINE_START = /^\s{0,3}(?:[-*+]\s+)?(?:\*\*)?fact:/im;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const DAY = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/** Lower case, trimmed, inner whitespace as `_`: `Primary DB` and `primary_db` are one key. */
export function normalizeKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, '_');
}

/** Values compare without case and surrounding space or quotes: `PostgreSQL` and `postgresql` agree. */
export function sameValue(a: string, b: string): boolean {
  const norm = (value: string) =>
    value
      .trim()
      .replace(/^["'`]|["'`]$/g, '')
      .toLowerCase();
  return norm(a) === norm(b);
}

export function extractFacts(source: FactSource): ExtractedFacts {
  // A file whose text has no fact marker at all costs one scan.
  if (!/fact/i.test(source.raw)) return { facts: [], problems: [] };
  const front = parseFrontmatter(source.raw);
  if (front.error) return { facts: [], problems: [] }; // the loader reports broken frontmatter
  const problems: FactProblem[] = [];
  const data = front.data;
  // The window is the memory's (its frontmatter), read when its first fact is: a bad date is reported once, and only
  // for a memory that states a fact.
  let window: { validFrom: string; validTo: string | undefined } | undefined;
  const memory: FactMemory = {
    source,
    front,
    supersedes: idList(data.supersedes),
    compatibleWith: idList(data.compatible_with),
    validity: () => (window ??= readValidity(data, source, front.positionOf, problems)),
  };
  const facts: Fact[] = [];
  const stated = frontmatterFact(memory);
  if (stated.fact) facts.push(stated.fact);
  inlineFacts(memory, facts);
  // `memvault add --kind fact "Fact: cache = redis"` writes just that: the inline fact is the memory's fact, as the
  // facts in force count it, so there is nothing missing to warn about.
  if (stated.incomplete && !facts.some((fact) => fact.source === 'inline')) problems.unshift(stated.incomplete);
  return { facts, problems };
}

/** What every fact of one memory shares: where it is, its frontmatter, links and validity window. */
interface FactMemory {
  source: FactSource;
  front: ReturnType<typeof parseFrontmatter>;
  supersedes: string[];
  compatibleWith: string[];
  /** The memory's validity window, read (and a bad date reported) on first use. */
  validity: () => { validFrom: string; validTo: string | undefined };
}

/**
 * The fact a `kind: fact` memory states in its frontmatter (`key`, `value`,
 * `scope`, `confidence`); without `key` and `value`, the problem reported
 * unless its body states its facts on `Fact:` lines; neither for any other kind.
 */
function frontmatterFact(memory: FactMemory): { fact?: Fact; incomplete?: FactProblem } {
  const { source, front } = memory;
  const data = front.data;
  if (String(data.kind ?? '').toLowerCase() !== 'fact') return {};
  const key = typeof data.key === 'string' || typeof data.key === 'number' ? String(data.key) : '';
  const value = data.value === undefined || data.value === null ? '' : String(data.value);
  const at = front.positionOf(key ? 'key' : 'kind');
  if (!key.trim() || !value.trim()) {
    const reason =
      `a \`kind: fact\` memory needs \`key\` and \`value\` (${key.trim() ? 'value' : 'key'} is missing), ` +
      'or a `Fact: key = value` line in its body';
    return { incomplete: diagnostic('fact/incomplete', { path: source.path, ...at }, reason) };
  }
  const { validFrom, validTo } = memory.validity();
  const fact: Fact = {
    id: source.memoryId,
    memoryId: source.memoryId,
    path: source.path,
    line: at.line,
    key: normalizeKey(key),
    value: value.trim(),
    scope: typeof data.scope === 'string' ? normalizeKey(data.scope) : '',
    confidence: typeof data.confidence === 'number' ? data.confidence : undefined,
    supersedes: memory.supersedes,
    compatibleWith: memory.compatibleWith,
    validFrom,
    validTo,
    day: source.day,
    source: 'frontmatter',
  };
  return { fact };
}

/** Appends the facts stated on `Fact: key = value` lines of the body, code fences skipped, to `facts`. */
function inlineFacts(memory: FactMemory, facts: Fact[]): void {
  const { source, front } = memory;
  let fence: string | undefined;
  front.body.split('\n').forEach((text, index) => {
    const opened = FENCE.exec(text);
    if (opened) {
      if (!fence) fence = opened[1]![0]!.repeat(3);
      else if (text.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (fence) return;
    const match = INLINE.exec(text);
    if (!match?.groups) return;
    const line = front.bodyLine + index;
    const { validFrom, validTo } = memory.validity();
    const key = normalizeKey(match.groups.key!);
    const scope = match.groups.scope ? normalizeKey(match.groups.scope) : '';
    facts.push({
      id: inlineId(source.memoryId, key, scope, facts),
      memoryId: source.memoryId,
      path: source.path,
      line,
      key,
      value: match.groups.value!.trim(),
      scope,
      confidence: undefined,
      supersedes: memory.supersedes,
      compatibleWith: memory.compatibleWith,
      validFrom,
      validTo,
      day: source.day,
      source: 'inline',
    });
  });
}

/**
 * What the parser keeps on a memory (`Memory.facts`, `Memory.factProblems`, absent when none), so the parse cache
 * holds a memory's facts and no stage reads the file again for them. `raw`: the whole file.
 */
export function memoryFactFields(raw: string, memory: Pick<Memory, 'id' | 'path' | 'day'>): Pick<Memory, 'facts' | 'factProblems'> {
  const found = extractFacts({ memoryId: memory.id, path: memory.path, day: memory.day, raw });
  return {
    ...(found.facts.length > 0 ? { facts: found.facts.map(({ memoryId: _id, path: _path, day: _day, ...kept }) => kept) } : {}),
    ...(found.problems.length > 0 ? { factProblems: found.problems } : {}),
  };
}

/**
 * True when a memory may state a fact (`kind: fact`, or a line starting as an inline fact does): only those are read
 * for facts, so `artifact: x` in a sentence costs nothing.
 */
export function mayStateFact(kind: string, body: string): boolean {
  return kind.toLowerCase() === 'fact' || INLINE_START.test(body);
}

/** A memory's facts (kept by the parser) as full facts, with the memory's id, path and day. */
export function factsOf(memory: Pick<Memory, 'id' | 'path' | 'day' | 'facts'>): Fact[] {
  return (memory.facts ?? []).map((fact) => ({ ...fact, memoryId: memory.id, path: memory.path, day: memory.day }));
}

/**
 * `<memory id>#<key>` (`@<scope>` when scoped; `~2`, `~3` for a repeated key): stable when lines above move,
 * so a contradiction keeps its id while a person edits the memory.
 */
function inlineId(memoryId: string, key: string, scope: string, earlier: readonly Fact[]): string {
  const base = `${memoryId}#${key}${scope ? `@${scope}` : ''}`;
  const seen = earlier.filter((fact) => fact.id === base || fact.id.startsWith(`${base}~`)).length;
  return seen === 0 ? base : `${base}~${seen + 1}`;
}

function idList(value: unknown): string[] {
  if (typeof value === 'string' && value.trim()) return [value.trim()];
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
  return [];
}

function readValidity(
  data: Record<string, unknown>,
  source: FactSource,
  positionOf: (key: string) => { line: number; column: number },
  problems: FactProblem[],
): { validFrom: string; validTo: string | undefined } {
  const day = (key: 'valid_from' | 'valid_to'): string | undefined => {
    const value = data[key];
    if (value === undefined || value === null || value === '') return undefined;
    const match = DAY.exec(String(value));
    if (match) return match[1];
    problems.push(
      diagnostic('fact/invalid-date', { path: source.path, ...positionOf(key) }, `\`${key}\` is "${String(value)}", not a date`),
    );
    return undefined;
  };
  return { validFrom: day('valid_from') ?? source.day, validTo: day('valid_to') };
}
