import { FUZZY_FROM, FUZZY_RATIO, PREFIX_FROM, processTerm, tokenize } from './analyzer.js';

/**
 * A query's words as an FTS5 MATCH expression. Every word is a stem (the
 * index holds stems, analyzer.ts); words of four letters or more also match
 * as a prefix (`auth` finds `authentication`); any word is enough (OR), BM25
 * ranks documents with more and rarer words first; each quoted phrase is
 * required as a phrase of stems. Misspellings: FTS5 has no fuzzy matching,
 * so a word of six letters or more that is not a term of the index at all is
 * replaced by the index terms within one edit per five letters of it, rounded (the
 * terms sharing its first two letters are read from the vocabulary table and
 * compared here). A correctly spelt word is never expanded, which keeps
 * precision and costs one vocabulary lookup per long word.
 */

export interface MatchPlan {
  /** The MATCH expression; empty when the query has no indexable word. */
  expression: string;
  /** Stems the expression matches exactly, for snippets. */
  terms: string[];
  /** Stems it matches as a prefix. */
  prefixes: string[];
}

/** What the plan needs of the index: the vocabulary. */
export interface Vocabulary {
  hasTerm(stem: string): boolean;
  /** At most `limit` terms when given. */
  termsBetween(low: string, high: string, limit?: number): string[];
}

const quote = (term: string): string => `"${term.replaceAll('"', '""')}"`;

/**
 * Builds the plan for a query's words and phrases.
 *
 * @example
 *   matchPlan('deploy rollback', [], index) // { expression: '"deploi"* OR "rollback"*', terms: ['deploi', 'rollback'], … }
 */
export function matchPlan(text: string, phrases: readonly string[], vocabulary: Vocabulary): MatchPlan {
  const terms = new Set<string>();
  const prefixes = new Set<string>();
  const alternatives: string[] = [];
  for (const word of new Set(tokenize(text))) {
    const stem = processTerm(word);
    if (!stem) continue;
    const prefix = word.length >= PREFIX_FROM;
    if (word.length >= FUZZY_FROM && !vocabulary.hasTerm(stem) && !(prefix && hasPrefix(vocabulary, stem))) {
      const near = nearTerms(vocabulary, stem, Math.round(word.length * FUZZY_RATIO));
      for (const term of near) {
        terms.add(term);
        alternatives.push(quote(term));
      }
      if (near.length > 0) continue;
    }
    terms.add(stem);
    if (prefix) prefixes.add(stem);
    alternatives.push(prefix ? `${quote(stem)}*` : quote(stem));
  }
  const required = phrases
    .map((phrase) => tokenize(phrase).map(processTerm).filter(Boolean))
    .filter((stems) => stems.length > 0)
    .map((stems) => quote(stems.join(' ')));
  if (alternatives.length === 0) return { expression: '', terms: [], prefixes: [] };
  const any = alternatives.length > 1 ? `(${[...new Set(alternatives)].join(' OR ')})` : alternatives[0]!;
  return { expression: [any, ...required].join(' AND '), terms: [...terms], prefixes: [...prefixes] };
}

function hasPrefix(vocabulary: Vocabulary, stem: string): boolean {
  return vocabulary.termsBetween(stem, `${stem}\u{10FFFF}`, 1).length > 0;
}

/** Index terms within `edits` edits of `stem` that share its first two letters. */
function nearTerms(vocabulary: Vocabulary, stem: string, edits: number): string[] {
  if (edits < 1 || stem.length < 3) return [];
  const head = stem.slice(0, 2);
  const next = head.slice(0, -1) + String.fromCodePoint(head.codePointAt(1)! + 1);
  return vocabulary
    .termsBetween(head, next)
    .filter((term) => Math.abs(term.length - stem.length) <= edits && distance(term, stem, edits) <= edits);
}

/** Levenshtein distance, stopping early past `max`. */
export function distance(a: string, b: string, max: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length]!;
}
