import { stemmer } from 'stemmer';
import { contentWords } from '../text/terms.js';

/**
 * How text becomes index terms, for the SQLite index and for the passages of
 * a context alike: the project's content words (src/text/terms.ts:
 * lowercased, stop words out), stemmed with Porter's stemmer so `deploys`
 * finds `deploying`. SQLite is given the stems, not the text, so the index,
 * the query and the snippets agree on every word (FTS5's own porter tokenizer
 * keeps stop words and splits on `-` and `_`).
 */

/** Bump when tokenizing or stemming changes: an index on disk with another version is rebuilt. */
export const ANALYZER_VERSION = 2;

/** Stemmed form of one word; also how a snippet recognises the words a hit matched. */
export function processTerm(term: string): string {
  return stemmer(term.toLowerCase());
}

/** Words of a text as the index sees them (before stemming). */
export function tokenize(text: string): string[] {
  return contentWords(text);
}

/** The stems of a text, space-separated: what the index stores for it. */
export function analyze(text: string): string {
  return tokenize(text).map(processTerm).join(' ');
}

/** Shortest query word matched as a prefix (`auth` finds `authentication`). */
export const PREFIX_FROM = 4;
/** Shortest query word that may match a misspelling (one edit in five letters). */
export const FUZZY_FROM = 6;
export const FUZZY_RATIO = 0.2;
