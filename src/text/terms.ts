import { eng } from 'stopword/src/stopwords_eng.js';
import { lazy } from '../util/lazy.js';

// The set is built on first use. The `stopword` package's English list comes from its own file (2 KB, bundled): its
// entry point compiles all 62 languages, ~25 ms of every search (test/read/stopwords.test.ts checks the lists are equal).
const stopWords = lazy(
  () =>
    new Set<string>([
      ...eng,
      'also',
      'just',
      'like',
      'really',
      'today',
      'yesterday',
      'tomorrow',
      'got',
      'get',
      'make',
      'made',
      'still',
      'will',
      'would',
      'could',
      'should',
      'one',
      'two',
      'day',
      'week',
      'month',
      'done',
      'context',
      'keep',
      'state',
      'decisions',
      'mon',
      'tue',
      'wed',
      'thu',
      'fri',
      'sat',
      'sun',
      'pinned',
    ]),
);

/**
 * What the content words of a text are for; each use has its own rules:
 * - `topics` (the default: index topics, search, duplicates, metrics):
 *   lowercased words of three or more letters or digits, the `stopword`
 *   package's English list and a few of the vault's own words removed, no
 *   words of digits and dashes alone;
 * - `summary` (the extractive summarizer's worth and near-duplicates): words
 *   of two or more characters or with a digit, kept whole across `.`, `/`,
 *   `'` and `-` (`v2.1`, `src/auth`), a short stop list, a light plural fold
 *   (`sessions` → `session`) so a sentence saying the same thing counts as
 *   covered;
 * - `retention` (the retention check, on text `normalizeForMatch` lowercased):
 *   words of two or more characters or with a digit, a minimal stop list, no
 *   fold, since a must-keep item is matched closely.
 * The rules differ because each was tuned against its own measure (summary
 * quality, retention, topic tf·idf); changing one changes what the build
 * writes.
 */
export type WordUse = 'topics' | 'summary' | 'retention';

/** Content words of `text` for `use` (see `WordUse`), in order, repeats kept. */
export function contentWords(text: string, use: WordUse = 'topics'): string[] {
  if (use === 'summary') return summaryWords(text);
  if (use === 'retention')
    return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).filter(
      (word) => (word.length >= 2 || /\d/.test(word)) && !RETENTION_STOP.has(word),
    );
  const stop = stopWords();
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
  // Digits and dashes only (dates, ranges, counts) say nothing about a topic.
  return words.filter((word) => word.length >= 3 && !stop.has(word) && !/^[\d-]+$/.test(word));
}

const SUMMARY_STOP = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between ' +
    'both but by can could did do does doing done down during each even few for from further get got gonna wanna had ' +
    "has have having he her here hers him his how i i'm i've i'll i'd if in into is it it's its itself just let like " +
    'me more most my no nor not now of off on once only or other our ours out over own really same she should so some ' +
    "still such than that that's the their theirs them then there these they this those through to too under until " +
    "up us very was we were what when where which while who whom why will with would yes you you're your yours ok okay " +
    'today yesterday tomorrow'
  ).split(' '),
);
const SUMMARY_WORD = /[\p{L}\p{N}][\p{L}\p{N}_\-./']*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

function summaryWords(text: string): string[] {
  const lower = text.toLowerCase();
  const found = ASCII_ONLY.test(lower) ? asciiSummaryWords(lower) : (lower.replace(/’/g, "'").match(SUMMARY_WORD) ?? []);
  const words: string[] = [];
  for (const match of found) {
    // A possessive `'s` off the end (what `replace(/'s$/, '')` did, without a regex run per word).
    let word = match.endsWith("'s") ? match.slice(0, -2) : match;
    if (SUMMARY_STOP.has(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) word = word.slice(0, -1);
    words.push(word);
  }
  return words;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * `SUMMARY_WORD`'s matches in lower-cased ASCII text, without the regex: the
 * summarizer reads every sentence of a period through it, and a scan of
 * char codes is ~1.7× faster than the Unicode-class regex (bench vault blocks). A word starts at a
 * letter or digit and runs over letters, digits and `_ - . / '`, ending at
 * its last letter or digit (the regex's backtracking).
 */
function asciiSummaryWords(text: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isAsciiAlnum(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let last = i;
    let j = i + 1;
    for (; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (isAsciiAlnum(code)) last = j;
      else if (code !== 95 && code !== 45 && code !== 46 && code !== 47 && code !== 39) break; // _ - . / '
    }
    words.push(text.slice(i, last + 1));
    i = last + 1;
  }
  return words;
}

/** A digit or a lower-case letter: `[\p{L}\p{N}]` of lower-cased ASCII. */
function isAsciiAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122);
}

const RETENTION_STOP = new Set(
  (
    'a an and are as at be been but by for from had has have he her his i in into is it its me my of on or our she ' +
    'so than that the their them then there they this to was we were what when which who will with you your'
  ).split(' '),
);

/** Term frequencies of a text's content words. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of contentWords(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * The most distinctive terms of each document against the others (tf·idf),
 * best first; ties broken alphabetically so the result is deterministic.
 */
export function distinctiveTerms(documents: ReadonlyMap<string, ReadonlyMap<string, number>>, limit: number): Map<string, string[]> {
  const documentFrequency = new Map<string, number>();
  for (const counts of documents.values())
    for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const total = documents.size;
  const out = new Map<string, string[]>();
  for (const [key, counts] of documents) {
    const scored = [...counts].map(([term, count]) => [term, count * Math.log((1 + total) / (documentFrequency.get(term) ?? 1))] as const);
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    out.set(
      key,
      scored.slice(0, limit).map(([term]) => term),
    );
  }
  return out;
}
