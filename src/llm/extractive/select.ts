import { normalizeForMatch } from '../../retention/items.js';
import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import { DECISION_SECTION, type Budget, type Layout, type MatchTexts, type Unit, type UnitSet } from './model.js';
import { closureOf } from './links.js';
import { boldDayLabel, PINNED_BULLET_LABEL } from '../../text/summary-labels.js';
import { contentWords, gainAlone, ITEM_WEIGHT } from './worth.js';

/**
 * Chooses the units to say: the items a previous attempt lost first, then a
 * greedy fill by worth per token within the budget.
 */

/** The decisions section takes at most this share, unless the caller forces items in: must-keep decisions cannot crowd out the rest. */
const DECISION_MAX_SHARE = 0.5;
/** Near-duplicates: content-word sets at least this similar (Jaccard) are said once. */
const DUPLICATE_JACCARD = 0.6;
/** Worth per token is worth / tokens^COST_EXPONENT: below 1, longer sentences that say more are not punished for their length alone. */
const COST_EXPONENT = 0.85;
/** A sentence adding less than this much is not worth a line, whatever the room left. */
const MIN_GAIN = 2;

/**
 * For each item the previous attempt lost, the sentence that names it and says
 * the most besides. A proper name is forced only by a sentence that is not
 * small talk ("Thanks, Mel!" is not worth a line for the name in it); a lost
 * name that stays out is listed as dropped.
 */
export function forcedUnits(set: UnitSet, missing: readonly string[], weights: Float64Array): Unit[] {
  const forced: Unit[] = [];
  if (missing.length === 0) return forced;
  const units = set.units;
  const match = (set.match ??= matchTexts(set));
  const forcedIndices: number[] = [];
  const hits = new Uint8Array(units.length);
  // Per unit: how many of an item's words it has, and its worth alone (NaN until asked; weights are the set's).
  const shared = new Uint32Array(units.length);
  const worthAlone = new Float64Array(units.length).fill(Number.NaN);
  // An item's candidate depends on the item and the set alone: a retry often names the items the previous one did.
  const candidates = (set.forcedCandidates ??= new Map());
  for (const item of missing) {
    const needle = normalizeForMatch(item);
    if (needle.length === 0) continue;
    if (forcedIndices.some((index) => match.texts[index]!.includes(needle))) continue;
    let best = candidates.get(item);
    if (best === undefined) candidates.set(item, (best = candidateFor(item, needle, set, weights, hits, shared, worthAlone)));
    if (best >= 0 && !forcedIndices.includes(best)) {
      forcedIndices.push(best);
      forced.push(units[best]!);
    }
  }
  return forced;
}

/** The unit that names `item` (or most of its words) and is worth most alone, or -1; the arrays are scratch space. */
function candidateFor(
  item: string,
  needle: string,
  set: UnitSet,
  weights: Float64Array,
  hits: Uint8Array,
  shared: Uint32Array,
  worthAlone: Float64Array,
): number {
  const units = set.units;
  const match = set.match!;
  const nameOnly = match.nameKeys.has(needle) && !match.otherKeys.has(needle);
  const needleWords = new Set(contentWords(item));
  unitsContaining(match, needle, hits);
  // The item may be an identifier inside a sentence, or a whole sentence the caller quoted (most of its words).
  const byWords = needleWords.size >= 3;
  if (byWords) {
    shared.fill(0);
    for (const word of needleWords) {
      const id = set.wordIndex.get(word);
      if (id !== undefined) for (const index of match.unitsOfWord[id] ?? []) shared[index]!++;
    }
  }
  let best = -1;
  let bestWorth = -Infinity;
  for (let index = 0; index < units.length; index++) {
    const hit = hits[index] === 1 || (byWords && shared[index]! / needleWords.size >= 0.8);
    const unit = units[index]!;
    if (!hit || (nameOnly && unit.quality < 0.5)) continue;
    if (Number.isNaN(worthAlone[index]!)) worthAlone[index] = unit.quality * gainAlone(unit, weights);
    const worth = worthAlone[index]!;
    if (worth > bestWorth) {
      best = index;
      bestWorth = worth;
    }
  }
  return best;
}

const SEPARATOR = '\u0001';

function matchTexts(set: UnitSet): MatchTexts {
  const units = set.units;
  const unitsOfWord: number[][] = [];
  units.forEach((unit, index) => {
    for (const id of unit.wordIds) (unitsOfWord[id] ??= []).push(index);
  });
  const texts = units.map((unit) => ` ${normalizeForMatch(unit.text)} `);
  const starts: number[] = [];
  let offset = 0;
  for (const text of texts) {
    starts.push(offset);
    offset += text.length + SEPARATOR.length;
  }
  const nameKeys = new Set(
    units.flatMap((unit) => unit.items.filter((item) => item.kind === 'name').map((item) => normalizeForMatch(item.text))),
  );
  const otherKeys = new Set(
    units.flatMap((unit) => unit.items.filter((item) => item.kind !== 'name').map((item) => normalizeForMatch(item.text))),
  );
  return { texts, joined: texts.join(SEPARATOR), starts, nameKeys, otherKeys, unitsOfWord };
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
export class Selection {
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
    sections: readonly string[],
    private readonly layout: Layout,
    private readonly tokenizer: TokenizerName,
    private readonly dedupe: boolean,
  ) {
    this.units = set.units;
    this.coveredWords = new Uint8Array(set.words.length);
    this.coveredItems = new Uint8Array(set.itemKeys);
    this.sectionTokens = sections.map(() => 0);
    this.headingTokens = sections.map((name) => headingTokens(name, tokenizer));
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
      const label = `- ${boldDayLabel(day, form)}`;
      cost = { tokens: countTokens(label, this.tokenizer) + 1, bytes: countBytes(label) + 1 };
      this.dayLabelCosts.set(day, cost);
    }
    return cost;
  }

  private measure(unit: Unit): void {
    if (unit.tokens !== undefined) return;
    const line = `  - ${unit.speaker ? `${unit.speaker}: ` : ''}${unit.pinned ? PINNED_BULLET_LABEL : ''}${unit.text}`;
    unit.tokens = countTokens(line, this.tokenizer) + 1;
    unit.bytes = countBytes(line) + 1;
  }

  private isDuplicate(unit: Unit): boolean {
    if (!this.dedupe) return this.selected.some((other) => other.text === unit.text);
    for (const other of this.selected) if (jaccard(unit.words, other.words) >= DUPLICATE_JACCARD) return true;
    return false;
  }

  /** The units not yet said that saying `unit` takes: what it needs first, itself last. */
  private closure(unit: Unit): Unit[] {
    return unit.needs ? closureOf(unit, (other) => this.chosen.has(other)) : [unit];
  }

  /** `gain` of `unit` with what it needs (words said by both are counted twice: a slight bias for linked pairs). */
  gainWithNeeds(unit: Unit): number {
    if (!unit.needs) return this.gain(unit);
    let gain = 0;
    for (const part of this.closure(unit)) gain += this.gain(part);
    return gain;
  }

  /** `cost` of `unit` with what it needs (each part's heading and day label counted: an upper bound). */
  costWithNeeds(unit: Unit, estimate = false): Budget {
    if (!unit.needs) return this.cost(unit, estimate);
    const total = { tokens: 0, bytes: 0 };
    for (const part of this.closure(unit)) {
      const cost = this.cost(part, estimate);
      total.tokens += cost.tokens;
      total.bytes += cost.bytes;
    }
    return total;
  }

  /** Adds `unit`, and what it needs, if all fit `limit`; forced units skip the duplicate check. */
  add(unit: Unit, limit: Budget, options: { force?: boolean } = {}): boolean {
    if (this.chosen.has(unit)) return false;
    if (!options.force && this.isDuplicate(unit)) return false;
    const parts = this.closure(unit);
    if (parts.length > 1) {
      const cost = this.costWithNeeds(unit);
      if (this.tokens + cost.tokens > limit.tokens || this.bytes + cost.bytes > limit.bytes) return false;
      for (const part of parts) this.addOne(part, { tokens: Infinity, bytes: Infinity });
      return true;
    }
    return this.addOne(unit, limit);
  }

  private addOne(unit: Unit, limit: Budget): boolean {
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
    this.greedy(
      target,
      (unit) =>
        sections.size === 1 ||
        unit.section !== DECISION_SECTION ||
        (this.sectionTokens[DECISION_SECTION] ?? 0) + this.costWithNeeds(unit, true).tokens <= cap,
    );
  }

  private greedy(limit: Budget, allowed: (unit: Unit) => boolean): void {
    for (;;) {
      if (limit.tokens - this.tokens < 4 || limit.bytes - this.bytes < 8) return;
      let best: Unit | undefined;
      let bestRatio = 0;
      for (const unit of this.units) {
        if (this.chosen.has(unit) || this.setAside.has(unit) || unit.choosable === false || !allowed(unit)) continue;
        const gain = this.gainWithNeeds(unit);
        if (gain < MIN_GAIN) continue;
        const cost = this.costWithNeeds(unit, true);
        if (this.tokens + cost.tokens > limit.tokens || this.bytes + cost.bytes > limit.bytes) continue;
        const ratio = gain / Math.max(1, cost.tokens) ** COST_EXPONENT;
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

/** Tokens of a section heading with the blank line after it, by tokenizer and name: a handful of values, asked by every attempt. */
const headingTokenCounts = new Map<string, number>();

function headingTokens(name: string, tokenizer: TokenizerName): number {
  const key = `${tokenizer}\u0000${name}`;
  let tokens = headingTokenCounts.get(key);
  if (tokens === undefined) headingTokenCounts.set(key, (tokens = countTokens(`## ${name}`, tokenizer) + 2));
  return tokens;
}

/** A pinned memory's lead or a `#critical` line: taken before anything else. */
export function isVital(unit: Unit): boolean {
  return unit.pinned || unit.items.some((item) => item.kind === 'pinned' || item.kind === 'critical');
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}
