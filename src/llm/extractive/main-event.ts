import type { SummaryRequest } from '../types.js';
import type { Unit, UnitSet } from './model.js';
import { contentWords } from './worth.js';

/**
 * The period's main event: what the titles, the first sentences and most
 * sentences are about. A word scores 3 per title naming it, 2 per source whose
 * first sentence names it, 1 per sentence; numbers alone say nothing. The
 * summary always carries the sentence that says most about the top words.
 */

/**
 * Score of the words that say what the period is about (empty when nothing
 * stands out). Worked out once per unit set (every attempt of a rollup asks),
 * on word ids: it was a tenth of a cold build's summarizing.
 */
export function mainWords(set: UnitSet, request: SummaryRequest): Map<string, number> {
  return (set.main ??= scoreMainWords(set, request));
}

function scoreMainWords(set: UnitSet, request: SummaryRequest): Map<string, number> {
  const scores = new Float64Array(set.words.length);
  // Only words that sentences use: a title word no sentence repeats cannot be said.
  const said = new Uint8Array(set.words.length);
  for (const unit of set.units) for (const id of unit.wordIds) said[id] = 1;
  const scored = new Uint8Array(set.words.length);
  const add = (id: number, points: number): void => {
    if (said[id] === 0) return;
    // 0: not looked at yet, 1: has a letter, 2: numbers alone say nothing.
    if (scored[id] === 0) scored[id] = /\p{L}/u.test(set.words[id]!) ? 1 : 2;
    if (scored[id] === 1) scores[id] = scores[id]! + points;
  };
  for (const source of request.sources) {
    if (source.kind === 'summary') continue;
    for (const word of new Set(contentWords(source.label))) {
      const id = set.wordIndex.get(word);
      if (id !== undefined) add(id, 3);
    }
  }
  const firstOf = new Map<number, Unit>();
  for (const unit of set.units) if (!firstOf.has(unit.sourceIndex)) firstOf.set(unit.sourceIndex, unit);
  for (const unit of firstOf.values()) for (const id of unit.wordIds) add(id, 2);
  for (const unit of set.units) for (const id of unit.wordIds) add(id, 1);
  const ranked: [string, number][] = [];
  scored.forEach((state, id) => {
    if (state === 1) ranked.push([set.words[id]!, scores[id]!]);
  });
  ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(ranked.slice(0, 5));
}

/**
 * The unit that best says what the period is about: the most main-word score
 * per square root of its length, among units that can be said on their own
 * worth and name the top word. Undefined when the top word stands out nowhere
 * (scored by one sentence only).
 */
export function mainEventUnit(set: UnitSet, request: SummaryRequest): Unit | undefined {
  // Once per unit set, like its main words: every attempt of a rollup asks.
  if (set.mainEvent === undefined) set.mainEvent = bestMainEventUnit(set, request) ?? null;
  return set.mainEvent ?? undefined;
}

function bestMainEventUnit(set: UnitSet, request: SummaryRequest): Unit | undefined {
  const words = mainWords(set, request);
  const top = [...words][0];
  if (!top || top[1] < 4) return undefined;
  let best: Unit | undefined;
  let bestScore = 0;
  for (const unit of set.units) {
    if (unit.choosable === false || !unit.words.has(top[0])) continue;
    let score = 0;
    for (const [word, points] of words) if (unit.words.has(word)) score += points;
    score = (score * unit.quality) / Math.sqrt(Math.max(8, unit.textBytes));
    if (score > bestScore) {
      best = unit;
      bestScore = score;
    }
  }
  return best;
}
