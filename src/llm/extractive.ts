import { itemKey, itemsOfSentence, normalizeForMatch, type MustKeepItem, type MustKeepKind } from '../retention/items.js';
import { weekRange } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import type { SentenceRole, Tier } from '../vault/model.js';
import type { Summarizer, SummaryRequest, SummarySource } from './types.js';

/**
 * The embedded summarizer: offline, deterministic, no model. It picks the
 * sentences of the sources that add the most information not said yet, per
 * token (a greedy budgeted-coverage selection):
 *
 * - information is the sum of the weights of a sentence's content words not
 *   yet covered, plus its must-keep items not yet covered (see
 *   `src/retention/items.ts`); a word's weight is its inverse frequency among
 *   the period's sentences, so the distinctive terms of the period count most
 *   and a fact said on three days of a week is said once;
 * - chit-chat (greetings, thanks, compliments, questions) is worth less, and
 *   opening interjections ("Wow, ", "Hey Mel! ") are cut;
 * - the decisions section gets at most half the budget, so must-keep
 *   decisions cannot crowd out accomplishments (a retry may still force a
 *   lost decision in);
 * - items the caller names in `missing` (the retention check of the previous
 *   attempt) are forced in first.
 *
 * The survivors are laid out in the tier's sections, in the order things
 * happened; in tiers above the daily one, bullets are grouped by day, and a
 * speaker (`Caroline: …`) is named whenever the speaker changes.
 */

/** Bump when the selection or the layout changes: it is hashed into every `promptId`, so old summaries regenerate. */
const ALGORITHM_VERSION = 'memvault-extractive/2';

interface Layout {
  /** Section titles indexed by role: done, decision, state, context (one title: everything goes there). */
  sections: readonly string[];
  /** Day label of each group of bullets: none, `Tue 02-10`, or `Tue 2026-02-10` (long-term spans years). */
  dayPrefix: 'none' | 'short' | 'long';
  /** Rewrite subject-less past-tense openings as `I …` (waterfall summaries are the agent's own memory). */
  firstPerson: boolean;
  /** Where the source labels go when no source has a sentence. */
  fallbackSection: string;
}

const LAYOUTS: Record<Tier, Layout> = {
  daily: { sections: ['Done', 'Decisions', 'State', 'Context to keep'], dayPrefix: 'none', firstPerson: false, fallbackSection: 'Context to keep' },
  weekly: { sections: ['Accomplishments', 'Architecture and decisions', 'Open threads', 'Learnings'], dayPrefix: 'short', firstPerson: false, fallbackSection: 'Context' },
  monthly: { sections: ['Milestones', 'Direction', 'Debt and open threads', 'Context'], dayPrefix: 'short', firstPerson: false, fallbackSection: 'Context' },
  longterm: { sections: ['Milestones', 'Decisions in effect', 'Open threads', 'Context'], dayPrefix: 'long', firstPerson: false, fallbackSection: 'Context' },
  'waterfall-recent': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
  'waterfall-longterm': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
};

const ROLE_INDEX: Record<Exclude<SentenceRole, 'heading'>, number> = { done: 0, decision: 1, state: 2, context: 3 };
const DECISION_SECTION = ROLE_INDEX.decision;

/** Worth of a must-keep item not yet said, in the same unit as a word's weight (a rare word is worth ~4–6). */
const ITEM_WEIGHT: Record<MustKeepKind, number> = { pinned: 1000, critical: 500, decision: 12, code: 8, issue: 8, date: 6, number: 5, name: 3 };

/** The decisions section takes at most this share, unless the caller forces items in: must-keep decisions cannot crowd out the rest. */
const DECISION_MAX_SHARE = 0.5;
/** Near-duplicates: content-word sets at least this similar (Jaccard) are said once. */
const DUPLICATE_JACCARD = 0.6;
/** Worth per token is worth / tokens^COST_EXPONENT: below 1, longer sentences that say more are not punished for their length alone. */
const COST_EXPONENT = 0.85;
/** A sentence adding less than this much is not worth a line, whatever the room left. */
const MIN_GAIN = 2;

/**
 * Creates the embedded summarizer (`provider: extractive`, `model: memvault-extractive-1`).
 * It makes no call and reports zero usage. Tokens are counted with `tokenizer` (default `o200k_base`).
 *
 * @example
 * const summarizer = createExtractiveSummarizer();
 * const { body } = await summarizer.summarize(request); // "## Done\n\n- Replaced JWT with …"
 */
export function createExtractiveSummarizer(options: { tokenizer?: TokenizerName } = {}): Summarizer {
  const tokenizer = options.tokenizer ?? 'o200k_base';
  return {
    provider: 'extractive',
    model: 'memvault-extractive-1',
    promptId(tier: Tier): string {
      const layout = LAYOUTS[tier];
      const description = [
        ALGORITHM_VERSION,
        `tier=${tier}`,
        `sections=${layout.sections.join('|')}`,
        `day=${layout.dayPrefix}`,
        `first-person=${layout.firstPerson}`,
        `fallback=${layout.fallbackSection}`,
        `tokenizer=${tokenizer}`,
      ].join('\n');
      return `${tier}@${sha256(description).slice(0, 8)}`;
    },
    // async so that a fault surfaces as a rejected promise, like every other provider's.
    async summarize(request: SummaryRequest) {
      const body = summarizeExtractive(request, tokenizer);
      return { body, usage: { calls: 0, inputTokens: 0, outputTokens: 0 } };
    },
  };
}

/** One sentence that could be said. */
interface Unit {
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
}

interface Budget {
  tokens: number;
  bytes: number;
}

/**
 * The units of a request and what is derived from them alone, kept for the
 * request's retries (the extractive summarizer is asked up to three times per
 * period when items are lost). Words and item keys get small integer ids, so
 * coverage is an array lookup instead of hashing the string at every step.
 */
interface UnitSet {
  units: Unit[];
  /** Vocabulary: the word of each word id. */
  words: string[];
  /** Number of distinct item keys. */
  itemKeys: number;
  /** Inverse-frequency weight of each word id (`termWeights`), computed on first use. */
  weights?: Float64Array;
  /** Normalised texts for `forcedUnits`, computed on first use. */
  match?: MatchTexts;
}

/** Assigns ids to words and item keys while the units are built. */
class Vocabulary {
  readonly words: string[] = [];
  private readonly wordIds = new Map<string, number>();
  private readonly itemIds = new Map<string, number>();

  wordIdsOf(words: ReadonlySet<string>): Int32Array {
    const ids = new Int32Array(words.size);
    let i = 0;
    for (const word of words) {
      let id = this.wordIds.get(word);
      if (id === undefined) {
        id = this.words.length;
        this.words.push(word);
        this.wordIds.set(word, id);
      }
      ids[i++] = id;
    }
    return ids;
  }

  itemIdsOf(keys: readonly string[]): Int32Array {
    return Int32Array.from(keys, (key) => {
      let id = this.itemIds.get(key);
      if (id === undefined) this.itemIds.set(key, (id = this.itemIds.size));
      return id;
    });
  }

  unitSet(units: Unit[]): UnitSet {
    return { units, words: this.words, itemKeys: this.itemIds.size };
  }
}

/** Pure core of the extractive summarizer: the summary body for a request. */
function summarizeExtractive(request: SummaryRequest, tokenizer: TokenizerName): string {
  const layout = LAYOUTS[request.tier];
  let set = cachedUnits(request, layout);
  let sections = layout.sections;
  let dedupe = true;
  if (set.units.length === 0) {
    set = labelUnits(request);
    sections = [layout.fallbackSection];
    dedupe = false;
  }
  const units = set.units;
  if (units.length === 0) return '';

  const hard: Budget = { tokens: Math.max(0, request.budget.tokens), bytes: Math.max(0, request.budget.bytes) };
  // A retry for lost items uses the whole budget; a retry for any other reason aims lower (85 %, 70 %, … 40 %).
  const factor = request.missing.length > 0 ? 1 : Math.max(0.4, 1 - 0.15 * Math.max(0, request.attempt));
  const target: Budget = { tokens: Math.floor(hard.tokens * factor), bytes: Math.floor(hard.bytes * factor) };

  const weights = (set.weights ??= termWeights(set));
  const forced = forcedUnits(set, request.missing, weights);
  const selection = new Selection(set, weights, sections, layout, tokenizer, dedupe);
  // Pinned leads and #critical lines first, then what the previous attempt lost: why this attempt exists.
  for (const unit of units) if (isVital(unit)) selection.add(unit, hard, { force: true });
  for (const unit of forced) selection.add(unit, hard, { force: true });
  selection.fill(target);

  // Safety check on the real body: the estimates are close to, not exactly, the whole.
  const selected = selection.selected;
  let body = render(selected, sections, layout);
  let bodyFits = fits(body, hard, tokenizer);
  while (selected.length > 1 && !bodyFits) {
    selected.pop(); // the last one taken is the least worth
    body = render(selected, sections, layout);
    bodyFits = fits(body, hard, tokenizer);
  }
  if (selected.length > 0 && bodyFits) return body;
  // Nothing fits whole: the single most important sentence, cut at a word boundary.
  const best = selected[0] ?? forced[0] ?? [...units].sort((a, b) => b.quality * gainAlone(b, weights) - a.quality * gainAlone(a, weights))[0];
  return best ? truncateToFit(best, sections, layout, hard, tokenizer) : '';
}

// ---------------------------------------------------------------------------
// Units

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
/** A day label written by this summarizer one tier below (bold markers are gone once parsed). */
const DAY_PREFIX = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:(\d{4})-)?(\d{2})-(\d{2})(?:\s+|$)/;
const PINNED_PREFIX = /^Pinned:\s+/;
/** `Caroline: …`, `Dr Amy Ellis: …`, `user: …`: a label of one to three words opening a sentence. */
const SPEAKER = /^((?:[\p{Lu}][\p{L}\p{N}'’.-]*)(?: [\p{Lu}][\p{L}\p{N}'’.-]*){0,2}|user|assistant):\s+(?=\S)/u;
/** Labels that open a sentence without naming who speaks. */
const NOT_SPEAKERS = new Set(
  'decision decisions note notes todo to-do update fix fixed problem result results outcome context why how status next summary question answer idea risk warning important critical action blocker blockers done learned lesson pinned q a tl;dr tldr eta edit ps re fyi nb goal plan cause impact follow-up reason rationale example update owner deadline'.split(' '),
);

/**
 * The day a merged summary's heading gives a sentence (`### 2026-02-10`, or a
 * week `#### 2026-W07` → its Monday): merges keep sources under such headings.
 */
function dayFromSection(section: string): string | undefined {
  const days = section.match(/\b\d{4}-\d{2}-\d{2}\b/g);
  if (days) return days[days.length - 1];
  const weeks = section.match(/\b\d{4}-W\d{2}\b/g);
  if (weeks) {
    try {
      return weekRange(weeks[weeks.length - 1]!).start;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Labels opening at least two sentences across the request: a conversation's speakers. */
function speakersOf(request: SummaryRequest): Set<string> {
  const counts = new Map<string, number>();
  for (const source of request.sources) {
    for (const sentence of source.sentences) {
      const text = sentence.text.trim().replace(DAY_PREFIX, '').replace(PINNED_PREFIX, '');
      const label = SPEAKER.exec(text)?.[1];
      if (label && !NOT_SPEAKERS.has(label.toLowerCase())) counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  }
  return new Set([...counts].filter(([, n]) => n >= 2).map(([label]) => label));
}

/** Units by sources array and tier: a retry gets the same sources, and need not cut and measure them again. */
const unitCache = new WeakMap<readonly SummarySource[], Map<Tier, UnitSet>>();

function cachedUnits(request: SummaryRequest, layout: Layout): UnitSet {
  let byTier = unitCache.get(request.sources);
  if (!byTier) unitCache.set(request.sources, (byTier = new Map()));
  let units = byTier.get(request.tier);
  if (!units) byTier.set(request.tier, (units = buildUnits(request, layout)));
  return units;
}

function buildUnits(request: SummaryRequest, layout: Layout): UnitSet {
  const units: Unit[] = [];
  const vocabulary = new Vocabulary();
  const speakers = speakersOf(request);
  request.sources.forEach((source, sourceIndex) => {
    // A bullet of a finer summary may carry on over several sentences, or be a day label over nested bullets.
    let blockDay: { block: number; day: string } | undefined;
    let labelDay: { section: string; day: string } | undefined;
    let blockSpeaker: { block: number; speaker: string } | undefined;
    source.sentences.forEach((sentence, sentenceIndex) => {
      if (sentence.role === 'heading') return;
      let text = sentence.text.trim();
      let day = blockDay?.block === sentence.block ? blockDay.day : labelDay?.section === sentence.section ? labelDay.day : (dayFromSection(sentence.section) ?? source.day);

      const dated = parseDayPrefix(text, source.day);
      if (dated) {
        text = text.slice(dated.length).trim();
        day = dated.day;
        if (text.length === 0) {
          // `- **Mon 05-08**` over nested bullets: the day of what follows in this section.
          labelDay = { section: sentence.section, day };
          return;
        }
        blockDay = { block: sentence.block, day };
      }
      // Only the lead sentence of a pinned memory is marked (see extractSentences): the package's critical section carries the rest.
      let pinned = sentence.mustKeep.includes('pinned');
      if (PINNED_PREFIX.test(text)) {
        text = text.replace(PINNED_PREFIX, '');
        pinned = true;
      }
      let speaker: string | undefined;
      const label = SPEAKER.exec(text);
      if (label && speakers.has(label[1]!)) {
        speaker = label[1]!;
        text = text.slice(label[0].length);
        blockSpeaker = { block: sentence.block, speaker };
      } else if (blockSpeaker?.block === sentence.block) speaker = blockSpeaker.speaker;
      text = trimOpening(text);
      if (text.length === 0) return;
      if (layout.firstPerson) text = toFirstPerson(text);

      const mustKeep = pinned && !sentence.mustKeep.includes('pinned') ? (['pinned', ...sentence.mustKeep] as typeof sentence.mustKeep) : sentence.mustKeep;
      const items = itemsOfSentence({ text, role: sentence.role, mustKeep });
      const words = new Set(contentWords(text));
      const section = layout.sections.length === 1 ? 0 : ROLE_INDEX[sentence.role];
      units.push({
        sourceIndex,
        sentenceIndex,
        block: sentence.block,
        day,
        section,
        speaker,
        pinned,
        text,
        textBytes: countBytes(text),
        words,
        wordIds: vocabulary.wordIdsOf(words),
        items,
        itemIds: vocabulary.itemIdsOf(items.map(itemKey)),
        group: `${section}|${day}`,
        quality: qualityOf(text, sentence.role),
        tokens: undefined,
        bytes: 0,
      });
    });
  });
  return vocabulary.unitSet(units);
}

/** Sources without a single sentence (bodies of code blocks only) are still named, so a period is never blank. */
function labelUnits(request: SummaryRequest): UnitSet {
  const vocabulary = new Vocabulary();
  const units = request.sources.map((source: SummarySource, sourceIndex): Unit => {
    const time = request.tier === 'daily' && source.time ? `${source.time} ` : '';
    const kind = request.tier === 'daily' && source.kind ? ` (${source.kind})` : '';
    const text = `${time}${source.label}${kind}`;
    const pinned = source.importance === 'pinned';
    const words = new Set(contentWords(text));
    return {
      sourceIndex,
      sentenceIndex: 0,
      block: 0,
      day: source.day,
      section: 0,
      speaker: undefined,
      pinned: false,
      text,
      textBytes: countBytes(text),
      words,
      wordIds: vocabulary.wordIdsOf(words),
      items: pinned ? [{ kind: 'pinned' as const, text }] : [],
      itemIds: vocabulary.itemIdsOf(pinned ? [`pinned:${text}`] : []),
      group: `0|${source.day}`,
      quality: 1,
      tokens: undefined,
      bytes: 0,
    };
  });
  return vocabulary.unitSet(units);
}

function parseDayPrefix(text: string, sourceDay: string): { day: string; length: number } | undefined {
  const match = DAY_PREFIX.exec(text);
  if (!match) return undefined;
  const [whole, weekday, year, month, day] = match;
  if (whole === undefined || month === undefined || day === undefined) return undefined;
  const anchor = Date.parse(`${sourceDay}T00:00:00Z`);
  const anchorYear = Number.isNaN(anchor) ? Number(sourceDay.slice(0, 4)) : new Date(anchor).getUTCFullYear();
  // `Tue 01-02` in a week that starts on 2025-12-29 is in 2026: take the year that puts it nearest the source.
  const years = year !== undefined ? [Number(year)] : [anchorYear - 1, anchorYear, anchorYear + 1];
  let best: { iso: string; distance: number } | undefined;
  for (const y of years) {
    const iso = `${String(y).padStart(4, '0')}-${month}-${day}`;
    const time = Date.parse(`${iso}T00:00:00Z`);
    if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== iso) continue;
    if (WEEKDAYS[new Date(time).getUTCDay()] !== weekday) continue;
    const distance = Number.isNaN(anchor) ? 0 : Math.abs(time - anchor);
    if (!best || distance < best.distance) best = { iso, distance };
  }
  return best ? { day: best.iso, length: whole.length } : undefined;
}

function formatDay(day: string, form: 'short' | 'long'): string {
  const time = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(time)) return day;
  const weekday = WEEKDAYS[new Date(time).getUTCDay()] ?? '';
  return `${weekday} ${form === 'long' ? day : day.slice(5)}`;
}

/**
 * Cuts what opens a sentence without saying anything: interjections and a
 * name called out (`Wow, Mel, I'm …` → `I'm …`, `Hey Caroline! Since …`).
 * Only when enough is left to stand alone.
 */
function trimOpening(text: string): string {
  const match = /^(?:(?:oh|ah|aw+|wow|whoa|hey|hi|hello|yeah|yep|yes|yup|ok|okay|haha+|lol|hmm+|um+|well|so|btw|by the way|anyway|omg|sure|right|thanks|thank you|cool|great|awesome|nice)(?:\s+[\p{Lu}][\p{L}'’-]+)?\s*[,!.]+\s*)+(?:[\p{Lu}][\p{L}'’-]+[,!]\s+)?/iu.exec(text);
  if (!match || match[0].length === 0) return text;
  const rest = text.slice(match[0].length);
  if (rest.split(/\s+/).length < 4) return text;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

const FIRST_PERSON_VERBS = new Set(
  'added analysed analyzed built changed checked cleaned completed configured created cut debugged decided deleted deployed documented dropped explored finished fixed found implemented improved installed investigated landed learned learnt merged migrated moved noticed opened profiled realised realized reduced refactored released removed renamed replaced resolved reviewed rewrote ran set shipped started switched tested tried updated upgraded wrote'.split(' '),
);

/** `Replaced JWT …` → `I replaced JWT …`; anything with a subject is left alone. */
function toFirstPerson(text: string): string {
  const match = /^([A-Z][a-z]+)\b/.exec(text);
  const verb = match?.[1];
  if (!verb || !FIRST_PERSON_VERBS.has(verb.toLowerCase())) return text;
  return `I ${verb.toLowerCase()}${text.slice(verb.length)}`;
}

// ---------------------------------------------------------------------------
// Worth

const STOPWORDS = new Set(
  "a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing done down during each even few for from further get got gonna wanna had has have having he her here hers him his how i i'm i've i'll i'd if in into is it it's its itself just let like me more most my no nor not now of off on once only or other our ours out over own really same she should so some still such than that that's the their theirs them then there these they this those through to too under until up us very was we were what when where which while who whom why will with would yes you you're your yours ok okay today yesterday tomorrow".split(' '),
);
/** Words that praise, thank or react: frequent in conversations, never the fact a later question asks about. */
const GENERIC = new Set(
  'amazing awesome great cool nice good glad happy love loved lovely wow wonderful fantastic incredible super really so totally definitely absolutely thanks thank appreciate sounds sound feel feeling felt think thought know knew thing things stuff lot lots much many always never ever sure hope hoping proud excited exciting fun beautiful inspiring inspired keep going time way something anything everything someone people life'.split(' '),
);
const WORD = /[\p{L}\p{N}][\p{L}\p{N}_\-./']*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** Lower-cased words that carry content, with a light plural fold so `session` and `sessions` match. */
function contentWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().replace(/’/g, "'").matchAll(WORD)) {
    let word = match[0].replace(/'s$/, '');
    if (STOPWORDS.has(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) word = word.slice(0, -1);
    words.push(word);
  }
  return words;
}

/** Inverse frequency of each word among the period's sentences; praise and reactions count for little. */
function termWeights(set: UnitSet): Float64Array {
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

const CHIT_CHAT = /\b(?:thanks|thank you|thx|hello|hey|hi there|good morning|good night|good evening|cheers|lol|haha|bye|see you|talk (?:to you )?(?:soon|later)|take care|how are you|how have you been|good to see you|nice to (?:see|hear|meet)|have a (?:nice|good|great)|good luck|no problem|you too|same here|me too)\b/i;
const REACTION = /^(?:that'?s|that is|this is|it'?s|it is|you'?re|you are|you'?ve|you have|sounds|what a|how|so|such|glad|congrats|congratulations|wow|omg|aww|i'?m so (?:happy|glad|proud)|i love (?:that|it|this)|i bet|i can imagine|i hear you|i agree|totally|exactly|absolutely|definitely|keep (?:it up|going|up))\b/i;
const OUTCOME = /\b(?:fixed|shipped|released|merged|deployed|resolved|reduced|improved|migrated|implemented|launched|completed|landed|closed|removed|replaced|sped up|raised|increased|decreased|halved|doubled|passed|succeeded|unblocked|won|bought|moved|started|joined|finished|adopted|married|graduated|signed up|applied|got)\b/i;

function qualityOf(text: string, role: SentenceRole): number {
  const wordCount = text.split(/\s+/).filter(Boolean).length;
  let quality = 1;
  if (/\?\s*$/.test(text)) quality *= 0.45;
  if (CHIT_CHAT.test(text)) quality *= 0.3;
  if (REACTION.test(text)) quality *= 0.55;
  if (OUTCOME.test(text) || role === 'done' || role === 'decision') quality *= 1.15;
  if (wordCount < 4) quality *= 0.5;
  return quality;
}

function gainAlone(unit: Unit, weights: Float64Array): number {
  let gain = 0;
  for (const id of unit.wordIds) gain += weights[id]!;
  for (const item of unit.items) gain += ITEM_WEIGHT[item.kind];
  return gain;
}

// ---------------------------------------------------------------------------
// Selection

/**
 * For each item the previous attempt lost, the sentence that names it and says
 * the most besides. A proper name is forced only by a sentence that is not
 * small talk ("Thanks, Mel!" is not worth a line for the name in it); a lost
 * name that stays out is listed as dropped.
 */
function forcedUnits(set: UnitSet, missing: readonly string[], weights: Float64Array): Unit[] {
  const forced: Unit[] = [];
  if (missing.length === 0) return forced;
  const units = set.units;
  const match = (set.match ??= matchTexts(units));
  const forcedIndices: number[] = [];
  const hits = new Uint8Array(units.length);
  for (const item of missing) {
    const needle = normalizeForMatch(item);
    if (needle.length === 0) continue;
    const nameOnly = match.nameKeys.has(needle) && !match.otherKeys.has(needle);
    const needleWords = new Set(contentWords(item));
    if (forcedIndices.some((index) => match.texts[index]!.includes(needle))) continue;
    unitsContaining(match, needle, hits);
    let best: number | undefined;
    let bestWorth = -Infinity;
    units.forEach((unit, index) => {
      // The item may be an identifier inside a sentence, or a whole sentence the caller quoted.
      let hit = hits[index] === 1;
      if (!hit && needleWords.size >= 3) {
        let shared = 0;
        for (const word of needleWords) if (unit.words.has(word)) shared++;
        hit = shared / needleWords.size >= 0.8;
      }
      if (!hit || (nameOnly && unit.quality < 0.5)) return;
      const worth = unit.quality * gainAlone(unit, weights);
      if (worth > bestWorth) {
        best = index;
        bestWorth = worth;
      }
    });
    if (best !== undefined && !forcedIndices.includes(best)) {
      forcedIndices.push(best);
      forced.push(units[best]!);
    }
  }
  return forced;
}

/** Units' texts as the retention check compares them, padded with a space, and all of them joined (`unitsContaining`). */
interface MatchTexts {
  texts: string[];
  /** `texts` joined by `SEPARATOR`; text i starts at `starts[i]`. */
  joined: string;
  starts: number[];
  /** Normalised texts of the units' name items, and of their other items. */
  nameKeys: Set<string>;
  otherKeys: Set<string>;
}

const SEPARATOR = '\u0001';

function matchTexts(units: readonly Unit[]): MatchTexts {
  const texts = units.map((unit) => ` ${normalizeForMatch(unit.text)} `);
  const starts: number[] = [];
  let offset = 0;
  for (const text of texts) {
    starts.push(offset);
    offset += text.length + SEPARATOR.length;
  }
  const nameKeys = new Set(units.flatMap((unit) => unit.items.filter((item) => item.kind === 'name').map((item) => normalizeForMatch(item.text))));
  const otherKeys = new Set(units.flatMap((unit) => unit.items.filter((item) => item.kind !== 'name').map((item) => normalizeForMatch(item.text))));
  return { texts, joined: texts.join(SEPARATOR), starts, nameKeys, otherKeys };
}

/**
 * Sets `hits[i]` to 1 where text i contains `needle`, else 0: one search of
 * the joined texts instead of one per unit (a retry names up to 40 items).
 */
function unitsContaining(match: MatchTexts, needle: string, hits: Uint8Array): void {
  hits.fill(0);
  if (needle.includes(SEPARATOR)) {
    match.texts.forEach((text, index) => (hits[index] = text.includes(needle) ? 1 : 0));
    return;
  }
  // A match never spans two texts: the needle has no separator in it.
  let from = 0;
  for (;;) {
    const at = match.joined.indexOf(needle, from);
    if (at < 0) return;
    let low = 0;
    let high = match.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (match.starts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    hits[low] = 1;
    from = match.starts[low + 1] ?? match.joined.length;
  }
}

/** The growing selection: what is said so far, what it covers, and what it costs. */
class Selection {
  readonly selected: Unit[] = [];
  private readonly chosen = new Set<Unit>();
  /** Near-duplicates and units longer than their estimate: not tried again. */
  private readonly setAside = new Set<Unit>();
  /** 1 for each word id and item-key id already said. */
  private readonly coveredWords: Uint8Array;
  private readonly coveredItems: Uint8Array;
  private readonly units: readonly Unit[];
  private readonly sectionTokens: number[];
  private readonly openSections = new Set<number>();
  private readonly openGroups = new Set<string>();
  private readonly headingTokens: number[];
  private readonly headingBytes: number[];
  /** Day labels' cost by day: `cost` is asked for every candidate at every step of the greedy fill. */
  private readonly dayLabelCosts = new Map<string, Budget>();
  private tokens = 0;
  private bytes = 0;

  constructor(
    set: UnitSet,
    private readonly weights: Float64Array,
    private readonly sections: readonly string[],
    private readonly layout: Layout,
    private readonly tokenizer: TokenizerName,
    private readonly dedupe: boolean,
  ) {
    this.units = set.units;
    this.coveredWords = new Uint8Array(set.words.length);
    this.coveredItems = new Uint8Array(set.itemKeys);
    this.sectionTokens = sections.map(() => 0);
    this.headingTokens = sections.map((name) => countTokens(`## ${name}`, tokenizer) + 2);
    this.headingBytes = sections.map((name) => countBytes(`## ${name}`) + 4);
  }

  /** Worth of `unit` given what is already said: new words and new items, times its quality. */
  gain(unit: Unit): number {
    let gain = 0;
    const wordIds = unit.wordIds;
    for (let i = 0; i < wordIds.length; i++) {
      const id = wordIds[i]!;
      if (this.coveredWords[id] === 0) gain += this.weights[id]!;
    }
    const itemIds = unit.itemIds;
    for (let i = 0; i < itemIds.length; i++) if (this.coveredItems[itemIds[i]!] === 0) gain += ITEM_WEIGHT[unit.items[i]!.kind];
    return gain * unit.quality;
  }

  /**
   * Tokens and bytes `unit` would add, its day label and section heading
   * included when it opens them. `estimate` ranks by a byte-based guess
   * instead of running the tokenizer on every sentence of the period.
   */
  cost(unit: Unit, estimate = false): Budget {
    let tokens: number;
    let bytes: number;
    if (estimate && unit.tokens === undefined) {
      bytes = unit.textBytes + (unit.speaker?.length ?? 0) + 6;
      tokens = Math.ceil(bytes / 4);
    } else {
      this.measure(unit);
      tokens = unit.tokens ?? 0;
      bytes = unit.bytes;
    }
    if (!this.openSections.has(unit.section)) {
      tokens += this.headingTokens[unit.section] ?? 0;
      bytes += this.headingBytes[unit.section] ?? 0;
    }
    if (this.layout.dayPrefix !== 'none' && !this.openGroups.has(unit.group)) {
      const label = this.dayLabelCost(unit.day, this.layout.dayPrefix);
      tokens += label.tokens;
      bytes += label.bytes;
    }
    return { tokens, bytes };
  }

  private dayLabelCost(day: string, form: 'short' | 'long'): Budget {
    let cost = this.dayLabelCosts.get(day);
    if (!cost) {
      const label = `- **${formatDay(day, form)}**`;
      cost = { tokens: countTokens(label, this.tokenizer) + 1, bytes: countBytes(label) + 1 };
      this.dayLabelCosts.set(day, cost);
    }
    return cost;
  }

  private measure(unit: Unit): void {
    if (unit.tokens !== undefined) return;
    const line = `  - ${unit.speaker ? `${unit.speaker}: ` : ''}${unit.pinned ? '**Pinned:** ' : ''}${unit.text}`;
    unit.tokens = countTokens(line, this.tokenizer) + 1;
    unit.bytes = countBytes(line) + 1;
  }

  private isDuplicate(unit: Unit): boolean {
    if (!this.dedupe) return this.selected.some((other) => other.text === unit.text);
    for (const other of this.selected) if (jaccard(unit.words, other.words) >= DUPLICATE_JACCARD) return true;
    return false;
  }

  /** Adds `unit` if it fits `limit`; forced units skip the duplicate check. */
  add(unit: Unit, limit: Budget, options: { force?: boolean } = {}): boolean {
    if (this.chosen.has(unit)) return false;
    if (!options.force && this.isDuplicate(unit)) return false;
    const cost = this.cost(unit);
    if (this.tokens + cost.tokens > limit.tokens || this.bytes + cost.bytes > limit.bytes) return false;
    this.tokens += cost.tokens;
    this.bytes += cost.bytes;
    this.sectionTokens[unit.section] = (this.sectionTokens[unit.section] ?? 0) + cost.tokens;
    this.openSections.add(unit.section);
    if (this.layout.dayPrefix !== 'none') this.openGroups.add(unit.group);
    this.chosen.add(unit);
    this.selected.push(unit);
    for (const id of unit.wordIds) this.coveredWords[id] = 1;
    for (const id of unit.itemIds) this.coveredItems[id] = 1;
    return true;
  }

  /** Greedy by worth per token, the decisions section capped at `DECISION_MAX_SHARE` of the target. */
  fill(target: Budget): void {
    const sections = new Set(this.units.map((unit) => unit.section));
    const cap = Math.floor(target.tokens * DECISION_MAX_SHARE);
    this.greedy(target, (unit) => sections.size === 1 || unit.section !== DECISION_SECTION || (this.sectionTokens[DECISION_SECTION] ?? 0) + this.cost(unit, true).tokens <= cap);
  }

  private greedy(limit: Budget, allowed: (unit: Unit) => boolean): void {
    for (;;) {
      if (limit.tokens - this.tokens < 4 || limit.bytes - this.bytes < 8) return;
      let best: Unit | undefined;
      let bestRatio = 0;
      for (const unit of this.units) {
        if (this.chosen.has(unit) || this.setAside.has(unit) || !allowed(unit)) continue;
        const gain = this.gain(unit);
        if (gain < MIN_GAIN) continue;
        const cost = this.cost(unit, true);
        if (this.tokens + cost.tokens > limit.tokens || this.bytes + cost.bytes > limit.bytes) continue;
        const ratio = gain / Math.pow(Math.max(1, cost.tokens), COST_EXPONENT);
        if (ratio > bestRatio) {
          best = unit;
          bestRatio = ratio;
        }
      }
      if (!best) return;
      if (!this.add(best, limit)) {
        // A near-duplicate, or longer than its estimate and over the limit: set aside so the loop moves on.
        this.setAside.add(best);
      }
    }
  }
}

/** A pinned memory's lead or a `#critical` line: taken before anything else. */
function isVital(unit: Unit): boolean {
  return unit.pinned || unit.items.some((item) => item.kind === 'pinned' || item.kind === 'critical');
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

// ---------------------------------------------------------------------------
// Layout

/**
 * Sections in the tier's order, bullets in the order things happened (not in
 * worth order). Consecutive sentences of one block (a turn, a paragraph) share
 * a bullet; a speaker is named when the bullet starts or the speaker changes.
 * Above the daily tier, a day with one bullet in a section gets it inline
 * (`- **Tue 02-10** …`), a day with several gets them nested under its label.
 */
function render(selected: readonly Unit[], sections: readonly string[], layout: Layout): string {
  const groups = sections.map(() => [] as Unit[]);
  for (const unit of selected) groups[unit.section]?.push(unit);
  const parts: string[] = [];
  groups.forEach((group, index) => {
    if (group.length === 0) return;
    group.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) || a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex);
    const lines: string[] = [];
    if (layout.dayPrefix === 'none') {
      for (const bullet of bullets(group)) lines.push(`- ${bullet}`);
    } else {
      for (const day of [...new Set(group.map((unit) => unit.day))]) {
        const label = `**${formatDay(day, layout.dayPrefix)}**`;
        const dayBullets = bullets(group.filter((unit) => unit.day === day));
        if (dayBullets.length === 1) lines.push(`- ${label} ${dayBullets[0]}`);
        else lines.push(`- ${label}`, ...dayBullets.map((bullet) => `  - ${bullet}`));
      }
    }
    parts.push(`## ${sections[index] ?? ''}\n\n${lines.join('\n')}`);
  });
  return parts.join('\n\n');
}

/** Bullet texts of units in order: one per run of sentences from the same block. */
function bullets(units: readonly Unit[]): string[] {
  const out: string[] = [];
  let previous: Unit | undefined;
  let speaker: string | undefined;
  for (const unit of units) {
    const sameRun = previous !== undefined && previous.sourceIndex === unit.sourceIndex && previous.block === unit.block && previous.day === unit.day && !unit.pinned && !previous.pinned;
    const pinned = unit.pinned ? '**Pinned:** ' : '';
    if (sameRun) {
      const label = unit.speaker && unit.speaker !== speaker ? `${unit.speaker}: ` : '';
      out[out.length - 1] += ` ${label}${unit.text}`;
    } else {
      out.push(`${unit.speaker ? `${unit.speaker}: ` : ''}${pinned}${unit.text}`);
    }
    speaker = unit.speaker;
    previous = unit;
  }
  return out;
}

function fits(body: string, budget: Budget, tokenizer: TokenizerName): boolean {
  return countBytes(body) <= budget.bytes && countTokens(body, tokenizer) <= budget.tokens;
}

/**
 * The one sentence, cut at the longest word boundary that fits (binary search on
 * the real body). A budget too small for even one word and the ellipsis yields
 * an empty body: the budget is never exceeded.
 */
function truncateToFit(unit: Unit, sections: readonly string[], layout: Layout, budget: Budget, tokenizer: TokenizerName): string {
  const one = (candidate: Unit): string => render([{ ...candidate, section: Math.min(candidate.section, sections.length - 1) }], sections, layout);
  const whole = one(unit);
  if (fits(whole, budget, tokenizer)) return whole;
  const words = unit.text.split(' ');
  const cut = (count: number): string => {
    let text = words.slice(0, count).join(' ').replace(/[\s,;:.!?-]+$/, '');
    if ((text.match(/`/g)?.length ?? 0) % 2 === 1) text += '`';
    return one({ ...unit, text: `${text}…` });
  };
  let low = 0;
  let high = words.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(cut(middle), budget, tokenizer)) low = middle;
    else high = middle - 1;
  }
  return low > 0 ? cut(low) : '';
}
