import type { MustKeepItem } from '../../retention/items.js';
import type { SentenceRole, Tier } from '../../vault/model.js';

/**
 * What every stage of the extractive summarizer shares: each tier's layout and
 * the unit (one sentence that could be said) the stages pass along.
 */

export interface Layout {
  /** Section titles indexed by role: done, decision, state, context (one title: everything goes there). */
  sections: readonly string[];
  /** Day label of each group of bullets: none, `Tue 02-10`, or `Tue 2026-02-10` (long-term spans years). */
  dayPrefix: 'none' | 'short' | 'long';
  /** Rewrite subject-less past-tense openings as `I …` (waterfall summaries are the agent's own memory). */
  firstPerson: boolean;
  /** Where the source labels go when no source has a sentence. */
  fallbackSection: string;
}

export const LAYOUTS: Record<Tier, Layout> = {
  daily: {
    sections: ['Done', 'Decisions', 'State', 'Context to keep'],
    dayPrefix: 'none',
    firstPerson: false,
    fallbackSection: 'Context to keep',
  },
  weekly: {
    sections: ['Accomplishments', 'Architecture and decisions', 'Open threads', 'Learnings'],
    dayPrefix: 'short',
    firstPerson: false,
    fallbackSection: 'Context',
  },
  monthly: {
    sections: ['Milestones', 'Direction', 'Debt and open threads', 'Context'],
    dayPrefix: 'short',
    firstPerson: false,
    fallbackSection: 'Context',
  },
  longterm: {
    sections: ['Milestones', 'Decisions in effect', 'Open threads', 'Context'],
    dayPrefix: 'long',
    firstPerson: false,
    fallbackSection: 'Context',
  },
  'waterfall-recent': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
  'waterfall-longterm': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
};

export const ROLE_INDEX: Record<Exclude<SentenceRole, 'heading'>, number> = { done: 0, decision: 1, state: 2, context: 3 };
export const DECISION_SECTION = ROLE_INDEX.decision;

/** One sentence that could be said. */
export interface Unit {
  sourceIndex: number;
  sentenceIndex: number;
  /** Block (paragraph, list item, turn) of its source: consecutive sentences of one block share a bullet. */
  block: number;
  /** Day the sentence is about (`YYYY-MM-DD`): orders bullets and groups them. */
  day: string;
  section: number;
  /** Who said it (`Caroline`), when the source is a conversation. */
  speaker: string | undefined;
  pinned: boolean;
  /** The sentence without day, speaker or `Pinned:` labels. */
  text: string;
  /** UTF-8 length of `text`: the greedy fill's cost estimate. */
  textBytes: number;
  words: Set<string>;
  /** `words` as ids of the unit set's vocabulary, in the same order: the greedy fill sums their weights at every step. */
  wordIds: Int32Array;
  items: MustKeepItem[];
  /** Each item's key (`itemKey`) as an id of the unit set's item keys. */
  itemIds: Int32Array;
  /** Section and day: the bullets under one day label. */
  group: string;
  /** Chit-chat, questions, fragments are worth less: a factor on the gain. */
  quality: number;
  /** Measured once, on first use. */
  tokens: number | undefined;
  bytes: number;
  /**
   * Units this one cannot be said without (see `linkUnits`): the sentence a
   * pronoun opening refers to, the first item of a lead-in's list, the lead-in
   * over a timeline entry. Choosing this unit chooses them too; they share its bullet.
   */
  needs?: Unit[];
  /** False for units never chosen on their own worth (fragments, a lead-in without its list); a retry may still force them in. */
  choosable?: boolean;
}

export interface Budget {
  tokens: number;
  bytes: number;
}

/**
 * The units of a request and what is derived from them alone, kept for the
 * request's retries (the extractive summarizer is asked up to three times per
 * period when items are lost). Words and item keys get small integer ids, so
 * coverage is an array lookup instead of hashing the string at every step.
 */
export interface UnitSet {
  units: Unit[];
  /** Vocabulary: the word of each word id. */
  words: string[];
  /** Vocabulary: the id of each word. */
  wordIndex: ReadonlyMap<string, number>;
  /** Number of distinct item keys. */
  itemKeys: number;
  /** Inverse-frequency weight of each word id (`termWeights`), computed on first use. */
  weights?: Float64Array;
  /** Normalised texts for `forcedUnits`, computed on first use. */
  match?: MatchTexts;
  /** Per lost item a retry named: the index of the unit `forcedUnits` would force for it (-1: none), found once per set. */
  forcedCandidates?: Map<string, number>;
  /** The period's main words and their scores (`mainWords`), computed on first use: every attempt asks for them. */
  main?: Map<string, number>;
  /** `mainEventUnit`'s answer (null: none), asked by every attempt. */
  mainEvent?: Unit | null;
}

/** Units' texts as the retention check compares them, padded with a space, and all of them joined (`unitsContaining`). */
export interface MatchTexts {
  texts: string[];
  /** `texts` joined by `SEPARATOR`; text i starts at `starts[i]`. */
  joined: string;
  starts: number[];
  /** Normalised texts of the units' name items, and of their other items. */
  nameKeys: Set<string>;
  otherKeys: Set<string>;
  /** The units (indices) whose words include each word id: which units share an item's words, without looking at every unit. */
  unitsOfWord: number[][];
}
