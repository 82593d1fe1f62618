/**
 * The kind of answer a question asks for, and the blocks that hold one: a
 * question whose answer is a name (`where`, `who`, `which city`) is answered
 * by a turn that names something ("a short trip to Rome"), one whose answer
 * is a time (`when`) by a turn that dates something ("yesterday (7 May
 * 2023)", "in March"), one that asks how many or how long by a turn that
 * counts ("three kids", "for 7 years"), though none holds the question's
 * words. Each kind
 * is a pseudo-term (it starts with a NUL, which no analyzer stem does) that a
 * block holds once per name or date in it; for a question of that kind it is
 * one more query word, weighted 1 like the others and by its rarity among the
 * blocks like any word (BM25). Measured on LoCoMo and the held-out REALTALK
 * (docs/context.md). Pure.
 */

export type AnswerKind = 'name' | 'time' | 'count';

/** The pseudo-term of a kind, as a block's stem counts hold it. */
export const answerTerm = (kind: AnswerKind): string => `\u0000${kind}`;

/** Whether a block stem is an answer kind's pseudo-term (never a feedback word). */
export const isAnswerTerm = (stem: string): boolean => stem.startsWith('\u0000');

/** `where`, `who`, `whom`; `which`/`what` (and a word) + a thing with a name: a place, a person, a title. */
const ASKS_NAME =
  /\b(?:where|who|whom)\b|\b(?:which|what)\s+(?:\w+\s+)?(?:city|cities|country|countries|place|places|state|states|town|towns|name|names|band|bands|book|books|movie|movies|film|films|show|shows|song|songs|game|games|restaurant|restaurants|store|stores|shop|shops|artist|artists|team|teams|brand|brands)\b/i;
/** `when`, `what year/month/day/date/time`, `how long ago`. */
const ASKS_TIME = /\bwhen\b|\bwhat\s+(?:year|month|day|date|time)\b|\bhow long ago\b/i;
/** `how many`, `how much`, `how long`, `how old`, `how often`, `how far`. */
const ASKS_COUNT = /\bhow\s+(?:many|much|long|old|often|far)\b/i;

/** The kinds of answer a question asks for (none for most: "What activities does Melanie partake in?"). */
export function answerKinds(question: string): AnswerKind[] {
  const out: AnswerKind[] = [];
  if (ASKS_NAME.test(question)) out.push('name');
  if (ASKS_TIME.test(question)) out.push('time');
  if (ASKS_COUNT.test(question)) out.push('count');
  return out;
}

/** `Caroline: ` opening a chat turn. */
const SPEAKER = /^([^\s:][^:\n]{0,39}):\s/;

/** Speakers of a chat body (`Caroline: …` opening its blocks), lower case: their names answer nothing. */
export function speakersOf(blocks: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const block of blocks) {
    const m = SPEAKER.exec(block);
    if (m) for (const w of m[1]!.toLowerCase().split(/\s+/)) out.add(w);
  }
  return out;
}

/** The pseudo-terms a block holds, with their counts: its names, its dates and its numbers. */
export function answerTermsOf(block: string, speakers: ReadonlySet<string>): [string, number][] {
  const out: [string, number][] = [];
  const names = namesIn(block, speakers);
  if (names > 0) out.push([answerTerm('name'), names]);
  const dates = datesIn(block);
  if (dates > 0) out.push([answerTerm('time'), dates]);
  const numbers = block.match(NUMBERS)?.length ?? 0;
  if (numbers > 0) out.push([answerTerm('count'), numbers]);
  return out;
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const WEEKDAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';

/** Capitalised words that name no one thing: months and weekdays (a date is no name), `I` (`I'm`). */
const NOT_NAMES = new Set(`${MONTHS}|${WEEKDAYS}|I`.toLowerCase().split('|'));

/** Capitalised words inside a sentence (not its first word) that are no speaker and no month or weekday: names. */
function namesIn(block: string, speakers: ReadonlySet<string>): number {
  let n = 0;
  const text = block.replace(SPEAKER, '');
  for (const m of text.matchAll(/(?<![.!?:]\s|^|["“([]\s*)\b\p{Lu}[\p{L}'’-]+/gu)) {
    const word = m[0].toLowerCase().replace(/['’].*$/, '');
    if (!speakers.has(word) && !NOT_NAMES.has(word)) n++;
  }
  return n;
}

/** A year, a month or weekday by name (capitalised: "may" is a verb), or a relative date ("yesterday", "last week", "ago"). */
const DATES = new RegExp(
  `\\b(?:19|20)\\d{2}\\b|\\b(?:${MONTHS}|${WEEKDAYS})\\b|\\b(?:[Yy]esterday|[Tt]oday|[Tt]onight|[Tt]omorrow|[Ww]eekend)\\b|\\b(?:[Ll]ast|[Nn]ext|[Tt]his) (?:week|month|year|night)\\b|\\bago\\b`,
  'g',
);

function datesIn(block: string): number {
  return block.match(DATES)?.length ?? 0;
}

/** A number in digits or words, or a word that counts (`twice`, `a few`, `a dozen`). */
const NUMBERS =
  /\b\d+(?:[.,]\d+)?\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|hundred|thousand|dozen|once|twice|couple|few|several)\b/gi;
