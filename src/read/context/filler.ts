/**
 * Filler inside a quoted passage: the sentences that carry nothing a reader
 * could use ("Wow, Caroline!", "Thanks, Mel!", "That's awesome!", "haha",
 * an emoji alone), left out so the room goes to evidence. A sentence is
 * filler when every word of it is common among the blocks being quoted
 * (in at least one block of `COMMON_SHARE`, and in at least `COMMON_MIN`
 * blocks): no rare word, no number, no question, no word of the query.
 * Rarity rather than a word list: it follows each vault's own words and
 * any language the analyzer reads. Pure.
 */

/** A stem in at least this share of the blocks (and `COMMON_MIN` of them) is common: it marks no one turn. */
const COMMON_SHARE = Number(process.env.MEMVAULT_EXP_SHARE ?? 0.04);
const COMMON_MIN = 5;

/** The stems found in a common share of the blocks (`terms`: each block's stem counts). */
export function commonStems(terms: readonly ReadonlyMap<string, number>[]): Set<string> {
  const df = new Map<string, number>();
  for (const counts of terms) for (const s of counts.keys()) df.set(s, (df.get(s) ?? 0) + 1);
  const floor = Math.max(COMMON_MIN, COMMON_SHARE * terms.length);
  const out = new Set<string>();
  for (const [s, n] of df) if (n >= floor) out.add(s);
  return out;
}

export interface FillerRule {
  /** Stems of a text (the analyzer's: content words, stemmed). */
  stemsOf: (text: string) => string[];
  common: ReadonlySet<string>;
  /** A stem the query (or its feedback round) matches: a sentence holding one is never filler. */
  wanted: (stem: string) => boolean;
}

/** `Caroline: ` opening a chat turn: kept whatever follows, so the turn still says who speaks. */
const SPEAKER = /^[^\s:][^:\n]{0,39}:\s+/;

/** Whether a sentence is filler by `rule` (see the file's comment). */
function isFiller(sentence: string, rule: FillerRule): boolean {
  if (/\d/.test(sentence) || /\?["'’”)\]]*$/.test(sentence)) return false;
  return rule.stemsOf(sentence).every((s) => rule.common.has(s) && !rule.wanted(s));
}

/**
 * A block without its filler sentences; '' when nothing else is left. `answers`: the block replies to a question
 * (the block before it asks), so its first sentence is the answer ("Yes, last year") and stays.
 */
export function withoutFiller(block: string, rule: FillerRule, answers: boolean): string {
  const speaker = SPEAKER.exec(block)?.[0] ?? '';
  // Sentences and the white space after each (kept as written: a line break stays a line break).
  const parts = block.slice(speaker.length).split(/(?<=[.!?])(\s+)/);
  let out = '';
  let dropped = false;
  for (let i = 0; i < parts.length; i += 2) {
    const sentence = parts[i]!;
    if (!(answers && i === 0) && isFiller(sentence, rule)) dropped = true;
    else out += `${out ? (parts[i - 1] ?? ' ') : ''}${sentence}`;
  }
  if (!dropped) return block;
  return out ? `${speaker}${out}` : '';
}
