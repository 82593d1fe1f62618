import type { Unit } from './model.js';
import { isLeadIn, isTimelineEntry, MIN_WORDS, opensWithReference, wordCount } from './standalone.js';
import { contentWords } from './worth.js';

/**
 * Ties the units of one source together so every line of a summary stands
 * alone:
 *
 * - a lead-in (`Before I leave tomorrow:`) needs the first item of its list;
 *   without one it is never said;
 * - a timeline entry (`05:14 vacuumdb …`) after a lead-in needs the lead-in,
 *   and a lead-in saying less than its source's title (`Timeline of the
 *   window:`) gets the title as its subject;
 * - a sentence opening with a reference (`It …`, `Both …`, `She …`) needs the
 *   sentence before it; the first sentence of a source has none and is never
 *   said;
 * - a fragment of fewer than four words is said only with the sentence before
 *   it in the same block, else never on its own worth.
 *
 * A unit and what it needs share one bullet: the dependent takes the block,
 * section and group of the unit it leans on.
 */
export function linkUnits(units: Unit[], label: string | undefined, retext: (unit: Unit, text: string) => void): Unit[] {
  const out: Unit[] = [];
  // Blocks as parsed: `follow` moves a dependent into its anchor's block, list detection needs the original.
  const blockOf = new Map(units.map((unit) => [unit, unit.block]));
  const subject = label && /\p{L}{3}/u.test(label) && !/^\d{4}-/.test(label) ? label : undefined;
  // The first item of a lead-in's list goes into the lead-in's bullet, so the colon is followed by its list.
  const carried = new Map<Unit, Unit>();
  // Each unit's text is tested once: `leadInOver` walks back over a whole list for every item of it.
  const leadIns = new Set(units.filter((unit) => isLeadIn(unit.text)));
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    const previous = out[out.length - 1];
    const next = units[i + 1];
    const carrier = carried.get(unit);
    if (carrier) align(unit, carrier);
    if (leadIns.has(unit)) {
      // A lead-in at the end of its source, or followed by more of its own paragraph, has no list to carry.
      if (!next || blockOf.get(next) === blockOf.get(unit)) {
        unit.choosable = false;
        out.push(unit);
        continue;
      }
      // `Rewrote the guide. New sections:` leans on the sentence before; `Done. Timeline of the window:` on the title.
      if (previous && blockOf.get(previous) === blockOf.get(unit) && wordCount(previous.text) >= MIN_WORDS) follow(unit, previous);
      else if (subject && contentWords(unit.text).length < 3 && !sharesWords(unit.text, subject)) {
        retext(unit, `${subject} — ${lowerFirst(unit.text)}`);
      }
      (unit.needs ??= []).push(next);
      carried.set(next, unit);
      out.push(unit);
      continue;
    }
    const lead = leadInOver(out, unit, blockOf, leadIns);
    if (lead && isTimelineEntry(unit.text)) {
      follow(unit, lead);
    } else if (opensWithReference(unit.text)) {
      if (previous) follow(unit, previous);
      else unit.choosable = false;
    } else if (wordCount(unit.text) < MIN_WORDS) {
      if (previous && blockOf.get(previous) === blockOf.get(unit)) follow(unit, previous);
      else unit.choosable = false;
    }
    out.push(unit);
  }
  return out;
}

/** The lead-in whose list `unit` is an item of: the nearest lead-in before it with only list items in between. */
function leadInOver(before: readonly Unit[], unit: Unit, blockOf: ReadonlyMap<Unit, number>, leadIns: ReadonlySet<Unit>): Unit | undefined {
  const own = blockOf.get(unit) ?? unit.block;
  let block = own;
  for (let i = before.length - 1; i >= 0; i--) {
    const candidate = before[i]!;
    const candidateBlock = blockOf.get(candidate) ?? candidate.block;
    if (leadIns.has(candidate)) return candidateBlock < own ? candidate : undefined;
    // Items of one list are consecutive blocks; a gap means a new paragraph.
    if (candidateBlock < block - 1) return undefined;
    block = candidateBlock;
  }
  return undefined;
}

/** `unit` is said only with `anchor`, in its bullet. */
function follow(unit: Unit, anchor: Unit): void {
  (unit.needs ??= []).push(anchor);
  align(unit, anchor);
}

/** `unit` goes into `anchor`'s bullet when both are said. */
function align(unit: Unit, anchor: Unit): void {
  unit.block = anchor.block;
  unit.section = anchor.section;
  unit.group = anchor.group;
  unit.day = anchor.day;
}

function sharesWords(text: string, other: string): boolean {
  const words = new Set(contentWords(other));
  return contentWords(text).some((word) => words.has(word));
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/**
 * Every unit `unit` needs, itself last, each once (dependencies before their
 * dependents; a cycle between a lead-in and its first entry is cut).
 */
export function closureOf(unit: Unit, skip: (unit: Unit) => boolean): Unit[] {
  const order: Unit[] = [];
  const seen = new Set<Unit>();
  const visit = (current: Unit): void => {
    if (seen.has(current) || skip(current)) return;
    seen.add(current);
    for (const need of current.needs ?? []) visit(need);
    order.push(current);
  };
  visit(unit);
  return order;
}
