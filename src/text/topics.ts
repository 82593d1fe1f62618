import { replaceBoldDayLabels } from './summary-labels.js';
import { contentWords } from './terms.js';
import { withoutFrontmatter } from './frontmatter-fence.js';

/**
 * Topics: what a period is about, as noun phrases and identifiers a person
 * would search for (`ADR-012`, `#412`, `sessionPlugin`, `PG16 upgrade`,
 * `Stripe webhooks`), never single common words (`november`, `minus`,
 * `fixed`). Candidates are read from each text:
 *
 * - identifiers: code spans that look like names (`auth.sessions`,
 *   `roundHalfAway()`), issue and record references (`#412`, `ADR-012`,
 *   `GH-7`), camelCase words, words mixing letters and digits (`PG16`,
 *   `v2.0`);
 * - proper-noun phrases: a capitalised word inside a sentence (or a run of
 *   them), followed by up to two lower-case content words, kept when the
 *   same phrase comes back (`Stripe webhooks` twice);
 * - repeated lower-case pairs of content words (`invoice list` three times).
 *
 * A phrase that only ever occurs inside a longer one is said as the longer
 * one. `periodTopics` ranks each text's candidates against the other texts
 * (tf·idf, phrases and identifiers first).
 */

const MONTHS_AND_DAYS = new Set(
  (
    'january february march april may june july august september october november december jan feb mar apr jun jul ' +
    'aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun'
  ).split(' '),
);
/** Capitalised words that open clauses or label lines, not names. */
const NOT_NAMES = new Set(
  (
    "i i’m i'm i’ll i'll i’ve i've i’d i'd the a an and but or so then also this that these those it its we our you " +
    'your he she they my done decision decisions note notes context state pinned week day today yesterday tomorrow ' +
    'milestones direction learnings accomplishments open threads debt summary tests files committed error tool calls ' +
    'requests outcome changes activity before after full ok yes no ' +
    // The redactor's word (`[REDACTED:kind]`, or a person's "the REDACTED key"): where a secret was.
    'redacted'
  ).split(' '),
);

const REFERENCE = /(?:^|[\s(])((?:#\d+)|(?:[A-Z][A-Z0-9]{1,9}-\d+(?:['’]s)?)|(?:[\w.-]+\/[\w.-]+#\d+))\b/g;
const CODE_SPAN = /`([^`\n]{2,40})`/g;
const IDENTIFIER_SPAN = /^[A-Za-z_$][\w$.:/-]*(?:\(\))?$/;
const CAMEL = /\b[a-z]+[A-Z][A-Za-z0-9]*\b/g;
const MIXED = /\b(?:[A-Za-z]+\d+[A-Za-z0-9]*|v\d+(?:\.\d+)+)\b/g;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** Candidate topics of a text with their counts, in display form (`Stripe webhooks`, `#412`). */
export function topicCandidates(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (phrase: string): void => {
    const key = phrase.trim();
    if (key.length < 2 || key.split(' ').some((word) => KEY_LIKE.test(word))) return;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const unfenced = withoutFrontmatter(text)
    .replace(/^(```|~~~)[\s\S]*?^\1/gm, ' ')
    .replace(/^#+ .*$/gm, ' ');
  // A summary's day labels (`**Tue 02-10**`) name no topic, nor do the redactor's `[REDACTED:kind]` markers.
  const prose = replaceBoldDayLabels(unfenced, ' ')
    .replace(REDACTION_MARKER, ' , ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  for (const match of prose.matchAll(CODE_SPAN)) {
    const span = match[1]!.trim();
    if (IDENTIFIER_SPAN.test(span) && /[A-Za-z]{2}/.test(span) && !span.endsWith('/')) add(span);
  }
  const plain = prose.replace(CODE_SPAN, ' , ');
  for (const match of plain.matchAll(REFERENCE)) add(match[1]!.replace(/['’]s$/, ''));
  for (const match of plain.matchAll(CAMEL)) add(match[0]);
  // `PG16`, `v2.0`; not `M3`, `p95`, `v1`: short codes that name nothing on their own.
  for (const match of plain.matchAll(MIXED)) if (match[0].length >= 4 && !REFERENCE_LIKE.test(match[0])) add(match[0]);
  const sentences = plain.split(/(?<=[.!?])\s+|\n+|[;:()"“”]/);
  // A capitalised word that also occurs inside a sentence is a name at a sentence's start too (`Redis Streams carry …`).
  const names = new Set<string>();
  for (const sentence of sentences) {
    const words = [...sentence.matchAll(WORD)].map((match) => match[0]);
    words.forEach((word, index) => {
      if (index > 0 && /^\p{Lu}/u.test(word)) names.add(word);
    });
  }
  for (const sentence of sentences) phrasesOf(sentence, add, names);
  return counts;
}

const REFERENCE_LIKE = /^[A-Z][A-Z0-9]{1,9}-?\d+$/;
/** `[REDACTED:aws_access_key]`: where a secret was (src/redact), not something the period was about. */
const REDACTION_MARKER = /\[REDACTED(?::[\w-]*)?\]/g;
/**
 * A run of 16 or more letters and digits with no separator (`AKIAIOSFODNN7EXAMPLE`, AWS's documented example key; a
 * token, a hash): a credential or an id, never a name a person searches for. (`PG16`, `v2.0`, `ADR-012` are short.)
 */
const KEY_LIKE = /^(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{16,}$/;

/** Proper-noun phrases and lower-case pairs of one sentence. */
function phrasesOf(sentence: string, add: (phrase: string) => void, names: ReadonlySet<string>): void {
  const words = [...sentence.matchAll(WORD)].map((match) => match[0].replace(/['’]s$/, ''));
  const content = new Set(contentWords(sentence));
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    const proper = isProperAt(words, i, names);
    if (proper) {
      let end = i + 1;
      while (end < words.length && end - i < 3 && isProperAt(words, end, names)) end++;
      const name = words.slice(i, end).join(' ');
      add(name);
      // `Stripe webhooks`, `PG16 upgrade`: a name and the lower-case nouns after it.
      for (let tail = end; tail < words.length && tail - end < 2 && isNounLike(words[tail]!, content); tail++)
        add(words.slice(i, tail + 1).join(' '));
      i = end;
      continue;
    }
    const next = words[i + 1];
    if (
      next &&
      /^[a-z]/.test(word) &&
      /^[a-z]/.test(next) &&
      word.length >= 4 &&
      next.length >= 4 &&
      content.has(word) &&
      content.has(next)
    )
      add(`${word} ${next}`);
    i++;
  }
}

/** A capitalised word that names something: not the sentence's first word (unless an acronym or mixed case), not a month or label. */
function isProperAt(words: readonly string[], index: number, names: ReadonlySet<string>): boolean {
  const word = words[index]!;
  if (!/^\p{Lu}/u.test(word)) return false;
  const lower = word.toLowerCase();
  if (MONTHS_AND_DAYS.has(lower) || NOT_NAMES.has(lower)) return false;
  if (index === 0) {
    const next = words[1];
    const nameFollows =
      next !== undefined && /^\p{Lu}/u.test(next) && !NOT_NAMES.has(next.toLowerCase()) && !MONTHS_AND_DAYS.has(next.toLowerCase());
    return names.has(word) || nameFollows || /^\p{Lu}{2,}/u.test(word) || /\p{Ll}\p{Lu}/u.test(word) || /\d/.test(word);
  }
  return true;
}

/** Words that are probably verbs end a phrase: `Stripe webhooks`, not `Stripe webhooks retried`. */
const VERB_LIKE =
  /(?:ed|ing)$|^(?:is|are|was|were|be|has|have|had|ran|runs|run|went|goes|got|gets|uses|needs|takes|took|made|makes|says|said|now|also|only|still)$/;

function isNounLike(word: string, content: ReadonlySet<string>): boolean {
  return /^\p{Ll}/u.test(word) && content.has(word.toLowerCase()) && !VERB_LIKE.test(word);
}

/** How much a candidate counts: identifiers and phrases over single names; plain pairs must repeat. */
function weightOf(phrase: string, count: number): number {
  const words = phrase.split(' ').length;
  const identifier = /[#`()_.:/-]|\d|[a-z][A-Z]/.test(phrase) && words === 1;
  // A reference or a name in code says what the period is about; a file path or a one-off less so.
  if (identifier) return (/^#\d|^[A-Z][A-Z0-9]+-\d/.test(phrase) ? 1.5 : /\/|\.\w{1,4}$/.test(phrase) ? 0.6 : 1) * (count >= 2 ? 1.2 : 0.6);
  if (/^\p{Ll}/u.test(phrase)) return count >= 3 ? 1 : 0;
  if (words === 1) return count >= 2 ? 0.8 : 0;
  return count >= 2 ? 1.8 : 0.3;
}

/**
 * The `limit` best topics of each text against the others, best first (ties
 * alphabetical): tf·idf over the texts, times `weightOf`; a phrase found only
 * inside a longer chosen one is dropped.
 *
 * @example
 *   periodTopics(new Map([['2026-09', monthlyBody]]), 8).get('2026-09'); // ['PG16 upgrade', 'ADR-008', '#434', …]
 */
export function periodTopics(texts: ReadonlyMap<string, string>, limit: number): Map<string, string[]> {
  const candidates = new Map([...texts].map(([key, text]) => [key, topicCandidates(text)]));
  const df = new Map<string, number>();
  for (const counts of candidates.values())
    for (const phrase of counts.keys()) df.set(phrase.toLowerCase(), (df.get(phrase.toLowerCase()) ?? 0) + 1);
  const total = candidates.size;
  const out = new Map<string, string[]>();
  for (const [key, counts] of candidates) {
    const scored = [...counts]
      .map(
        ([phrase, count]) =>
          [phrase, count * Math.log((1 + total) / (df.get(phrase.toLowerCase()) ?? 1)) * weightOf(phrase, count)] as const,
      )
      .filter(([, score]) => score > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const chosen: string[] = [];
    for (const [phrase] of scored) {
      if (chosen.length >= limit) break;
      const lower = phrase.toLowerCase();
      // `Stripe` when `Stripe webhooks` is in, or the other way round: one of them.
      if (chosen.some((other) => containsWords(other.toLowerCase(), lower) || containsWords(lower, other.toLowerCase()))) continue;
      chosen.push(phrase);
    }
    out.set(key, chosen);
  }
  return out;
}

function containsWords(longer: string, shorter: string): boolean {
  return longer !== shorter && ` ${longer} `.includes(` ${shorter} `);
}
