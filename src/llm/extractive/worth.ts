import type { MustKeepKind } from '../../retention/items.js';
import { contentWords as wordsOf } from '../../text/terms.js';
import type { SentenceRole } from '../../vault/model.js';
import type { Unit, UnitSet } from './model.js';
import { wordCount } from './standalone.js';

/**
 * What a sentence is worth: its content words, their inverse-frequency weights
 * over the period, its must-keep items, and a quality factor for chit-chat.
 */

/** Worth of a must-keep item not yet said, in the same unit as a word's weight (a rare word is worth ~4–6). */
export const ITEM_WEIGHT: Record<MustKeepKind, number> = {
  pinned: 1000,
  critical: 500,
  decision: 12,
  code: 8,
  issue: 8,
  date: 6,
  number: 5,
  name: 3,
};

/** Words that praise, thank or react: frequent in conversations, never the fact a later question asks about. */
const GENERIC = new Set(
  (
    'amazing awesome great cool nice good glad happy love loved lovely wow wonderful fantastic incredible super really ' +
    'so totally definitely absolutely thanks thank appreciate sounds sound feel feeling felt think thought know knew ' +
    'thing things stuff lot lots much many always never ever sure hope hoping proud excited exciting fun beautiful ' +
    'inspiring inspired keep going time way something anything everything someone people life'
  ).split(' '),
);
/** Lower-cased words that carry content, with a light plural fold so `session` and `sessions` match: `contentWords(text, 'summary')` of src/text/terms.ts. */
export function contentWords(text: string): string[] {
  return wordsOf(text, 'summary');
}

/** Inverse frequency of each word among the period's sentences; praise and reactions count for little. */
export function termWeights(set: UnitSet): Float64Array {
  const df = new Int32Array(set.words.length);
  for (const unit of set.units) for (const id of unit.wordIds) df[id]!++;
  const n = Math.max(1, set.units.length);
  const weights = new Float64Array(set.words.length);
  set.words.forEach((word, id) => {
    const weight = Math.log(1 + n / df[id]!);
    weights[id] = GENERIC.has(word) ? weight * 0.2 : weight;
  });
  return weights;
}

const CHIT_CHAT = new RegExp(
  String.raw`\b(?:thanks|thank you|thx|hello|hey|hi there|good morning|good night|good evening|cheers|lol|haha|bye|see you|talk (?:to you )?(?:soon` +
    '|later)|take care|how are you|how have you been|good to see you|nice to (?:see|hear|meet)|have a (?:nice|good|great)' +
    String.raw`|good luck|no problem|you too|same here|me too)\b`,
  'i',
);
const REACTION = new RegExp(
  "^(?:that'?s|that is|this is|it'?s|it is|you'?re|you are|you'?ve|you have|sounds|what a|how|so|such|glad|congrats" +
    "|congratulations|wow|omg|aww|i'?m so (?:happy|glad|proud)|i love (?:that|it|this)|i bet|i can imagine|i hear you" +
    String.raw`|i agree|totally|exactly|absolutely|definitely|keep (?:it up|going|up))\b`,
  'i',
);
const OUTCOME = new RegExp(
  String.raw`\b(?:fixed|shipped|released|merged|deployed|resolved|reduced|improved|migrated|implemented|launched|completed|landed` +
    '|closed|removed|replaced|sped up|raised|increased|decreased|halved|doubled|passed|succeeded|unblocked|won|bought' +
    String.raw`|moved|started|joined|finished|adopted|married|graduated|signed up|applied|got)\b`,
  'i',
);

export function qualityOf(text: string, role: SentenceRole): number {
  const words = wordCount(text);
  let quality = 1;
  if (/\?\s*$/.test(text)) quality *= 0.45;
  if (CHIT_CHAT.test(text)) quality *= 0.3;
  if (REACTION.test(text)) quality *= 0.55;
  if (OUTCOME.test(text) || role === 'done' || role === 'decision') quality *= 1.15;
  if (words < 4) quality *= 0.5;
  return quality;
}

export function gainAlone(unit: Unit, weights: Float64Array): number {
  let gain = 0;
  for (const id of unit.wordIds) gain += weights[id]!;
  for (const item of unit.items) gain += ITEM_WEIGHT[item.kind];
  return gain;
}
