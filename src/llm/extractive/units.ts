import { itemKey, itemsOfSentence } from '../../retention/items.js';
import { weekRange } from '../../time/periods.js';
import { countBytes } from '../../util/tokens.js';
import type { Tier } from '../../vault/model.js';
import { hasPinnedLabel, readDayLabel, stripDayLabel, stripPinnedLabel } from '../../text/summary-labels.js';
import type { SummaryRequest, SummarySource } from '../types.js';
import { ROLE_INDEX, type Layout, type Unit, type UnitSet } from './model.js';
import { linkUnits } from './links.js';
import { isToolCallLine } from './standalone.js';
import { contentWords, qualityOf } from './worth.js';

/**
 * Cuts a request's sources into units: one per sentence, with the day, speaker
 * and `Pinned:` labels of finer summaries read back and taken off the text.
 */

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
    return { units, words: this.words, wordIndex: this.wordIds, itemKeys: this.itemIds.size };
  }
}

/** `Caroline: …`, `Dr Amy Ellis: …`, `user: …`: a label of one to three words opening a sentence. */
const SPEAKER = /^((?:[\p{Lu}][\p{L}\p{N}'’.-]*)(?: [\p{Lu}][\p{L}\p{N}'’.-]*){0,2}|user|assistant):\s+(?=\S)/u;
/** Labels that open a sentence without naming who speaks. */
const NOT_SPEAKERS = new Set(
  (
    'decision decisions note notes todo to-do update fix fixed problem result results outcome context why how status ' +
    'next summary question answer idea risk warning important critical action blocker blockers done learned lesson ' +
    'pinned q a tl;dr tldr eta edit ps re fyi nb goal plan cause impact follow-up reason rationale example update owner ' +
    'deadline'
  ).split(' '),
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
      const text = stripPinnedLabel(stripDayLabel(sentence.text.trim(), { alone: true }));
      const label = SPEAKER.exec(text)?.[1];
      if (label && !NOT_SPEAKERS.has(label.toLowerCase())) counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  }
  return new Set([...counts].filter(([, n]) => n >= 2).map(([label]) => label));
}

/** Units by sources array and tier: a retry gets the same sources, and need not cut and measure them again. */
const unitCache = new WeakMap<readonly SummarySource[], Map<Tier, UnitSet>>();

export function cachedUnits(request: SummaryRequest, layout: Layout): UnitSet {
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
    const own: Unit[] = [];
    const state: SourceState = { blockDay: undefined, labelDay: undefined, blockSpeaker: undefined };
    source.sentences.forEach((sentence, sentenceIndex) => {
      const cut = cutSentence(sentence, source.day, state, speakers, layout);
      if (cut) own.push(sentenceUnit(cut, { sourceIndex, sentenceIndex, first: own.length === 0 }, sentence, layout, vocabulary));
    });
    const retext = (unit: Unit, text: string): void => {
      unit.text = text;
      unit.textBytes = countBytes(text);
      unit.words = new Set(contentWords(text));
      unit.wordIds = vocabulary.wordIdsOf(unit.words);
    };
    units.push(...linkUnits(own, source.kind === 'summary' ? undefined : source.label, retext));
  });
  return vocabulary.unitSet(units);
}

/**
 * What the sentences before this one in a source say about it: a bullet of a
 * finer summary may carry on over several sentences, or be a day label over
 * nested bullets, and a speaker's label holds for the rest of the bullet.
 */
interface SourceState {
  blockDay: { block: number; day: string } | undefined;
  labelDay: { section: string; day: string } | undefined;
  blockSpeaker: { block: number; speaker: string } | undefined;
}

/** A sentence with its labels read and taken off: what a unit is made of. */
interface CutSentence {
  /** The sentence's role (never `heading`: a heading makes no unit). */
  role: keyof typeof ROLE_INDEX;
  text: string;
  day: string;
  pinned: boolean;
  speaker: string | undefined;
}

/**
 * Reads a sentence's day, `Pinned:` and speaker labels (updating `state` for
 * the sentences after it) and returns what is left to say, or undefined for
 * a sentence that makes no unit (a heading, tool activity, a bare day label).
 */
function cutSentence(
  sentence: SummarySource['sentences'][number],
  sourceDay: string,
  state: SourceState,
  speakers: ReadonlySet<string>,
  layout: Layout,
): CutSentence | undefined {
  if (sentence.role === 'heading') return undefined;
  // An ingested session's tool activity is bookkeeping, and a tool-call line is never a summary line.
  if (ACTIVITY_SECTION.test(sentence.section) || isToolCallLine(sentence.text)) return undefined;
  let text = sentence.text.trim();
  let day =
    state.blockDay?.block === sentence.block
      ? state.blockDay.day
      : state.labelDay?.section === sentence.section
        ? state.labelDay.day
        : (dayFromSection(sentence.section) ?? sourceDay);

  const dated = readDayLabel(text, sourceDay);
  if (dated) {
    text = text.slice(dated.length).trim();
    day = dated.day;
    if (text.length === 0) {
      // `- **Mon 05-08**` over nested bullets: the day of what follows in this section.
      state.labelDay = { section: sentence.section, day };
      return undefined;
    }
    state.blockDay = { block: sentence.block, day };
  }
  // Only the lead sentence of a pinned memory is marked (see extractSentences): the package's critical section carries the rest.
  let pinned = sentence.mustKeep.includes('pinned');
  if (hasPinnedLabel(text)) {
    text = stripPinnedLabel(text);
    pinned = true;
  }
  let speaker: string | undefined;
  const label = SPEAKER.exec(text);
  if (label && speakers.has(label[1]!)) {
    speaker = label[1]!;
    text = text.slice(label[0].length);
    state.blockSpeaker = { block: sentence.block, speaker };
  } else if (state.blockSpeaker?.block === sentence.block) speaker = state.blockSpeaker.speaker;
  text = trimOpening(text);
  if (text.length === 0) return undefined;
  if (layout.firstPerson) text = toFirstPerson(text);
  return { role: sentence.role, text, day, pinned, speaker };
}

/** The unit of a cut sentence: its items, words (with ids in `vocabulary`), section, group and quality. */
function sentenceUnit(
  cut: CutSentence,
  at: { sourceIndex: number; sentenceIndex: number; first: boolean },
  sentence: SummarySource['sentences'][number],
  layout: Layout,
  vocabulary: Vocabulary,
): Unit {
  const { role, text, day, pinned, speaker } = cut;
  const mustKeep =
    pinned && !sentence.mustKeep.includes('pinned') ? (['pinned', ...sentence.mustKeep] as typeof sentence.mustKeep) : sentence.mustKeep;
  const items = itemsOfSentence({ text, role, mustKeep });
  const words = new Set(contentWords(text));
  const section = layout.sections.length === 1 ? 0 : ROLE_INDEX[role];
  // A source's first sentence says what it is about: it weighs more (unless it is small talk).
  const quality = qualityOf(text, role);
  const lead = at.first && quality >= 1 ? FIRST_SENTENCE_BONUS : 1;
  return {
    sourceIndex: at.sourceIndex,
    sentenceIndex: at.sentenceIndex,
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
    quality: quality * lead,
    tokens: undefined,
    bytes: 0,
  };
}

/** The aggregated tool activity of an ingested session (`## Activity`). */
const ACTIVITY_SECTION = /(?:^|\/ )Activity$/;
/** Quality factor of a source's first sentence. */
const FIRST_SENTENCE_BONUS = 1.2;

/** Sources without a single sentence (bodies of code blocks only) are still named, so a period is never blank. */
export function labelUnits(request: SummaryRequest): UnitSet {
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

/** Interjections and a name called out, opening a sentence (`trimOpening`): built once, it runs on every sentence. */
const OPENING = new RegExp(
  '^(?:(?:oh|ah|aw+|wow|whoa|hey|hi|hello|yeah|yep|yes|yup|ok|okay|haha+|lol|hmm+|um+|well|so|btw|by the way|anyway' +
    String.raw`|omg|sure|right|thanks|thank you|cool|great|awesome|nice)(?:\s+[\p{Lu}][\p{L}'’-]+)?\s*[,!.]+\s*)+(?:[\p{Lu}][\p{L}'’-]+[,!]\s+)?`,
  'iu',
);

/**
 * Cuts what opens a sentence without saying anything: interjections and a
 * name called out (`Wow, Mel, I'm …` → `I'm …`, `Hey Caroline! Since …`).
 * Only when enough is left to stand alone.
 */
function trimOpening(text: string): string {
  const match = OPENING.exec(text);
  if (!match || match[0].length === 0) return text;
  const rest = text.slice(match[0].length);
  if (rest.split(/\s+/).length < 4) return text;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

const FIRST_PERSON_VERBS = new Set(
  (
    'added analysed analyzed built changed checked cleaned completed configured created cut debugged decided deleted ' +
    'deployed documented dropped explored finished fixed found implemented improved installed investigated landed learned ' +
    'learnt merged migrated moved noticed opened profiled realised realized reduced refactored released removed renamed ' +
    'replaced resolved reviewed rewrote ran set shipped started switched tested tried updated upgraded wrote'
  ).split(' '),
);

/** `Replaced JWT …` → `I replaced JWT …`; anything with a subject is left alone. */
function toFirstPerson(text: string): string {
  const match = /^([A-Z][a-z]+)\b/.exec(text);
  const verb = match?.[1];
  if (!verb || !FIRST_PERSON_VERBS.has(verb.toLowerCase())) return text;
  return `I ${verb.toLowerCase()}${text.slice(verb.length)}`;
}
