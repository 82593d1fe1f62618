import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { Budget, Layout, Unit } from './model.js';
import { boldDayLabel, PINNED_BULLET_LABEL } from '../../text/summary-labels.js';

/** Lays the chosen units out as the summary body, and cuts the body down when even one sentence is over the budget. */

/**
 * Sections in the tier's order, bullets in the order things happened (not in
 * worth order). Consecutive sentences of one block (a turn, a paragraph) share
 * a bullet; a speaker is named when the bullet starts or the speaker changes.
 * Above the daily tier, a day with one bullet in a section gets it inline
 * (`- **Tue 02-10** …`), a day with several gets them nested under its label.
 */
export function render(selected: readonly Unit[], sections: readonly string[], layout: Layout): string {
  const groups = sections.map(() => [] as Unit[]);
  for (const unit of selected) groups[unit.section]?.push(unit);
  const parts: string[] = [];
  groups.forEach((group, index) => {
    if (group.length === 0) return;
    group.sort(
      (a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) || a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex,
    );
    const lines: string[] = [];
    if (layout.dayPrefix === 'none') {
      for (const bullet of bullets(group)) lines.push(`- ${bullet}`);
    } else {
      for (const day of [...new Set(group.map((unit) => unit.day))]) {
        const label = boldDayLabel(day, layout.dayPrefix);
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
    const sameRun =
      previous !== undefined &&
      previous.sourceIndex === unit.sourceIndex &&
      previous.block === unit.block &&
      previous.day === unit.day &&
      !unit.pinned;
    const pinned = unit.pinned ? PINNED_BULLET_LABEL : '';
    if (sameRun) {
      const label = unit.speaker && unit.speaker !== speaker ? `${unit.speaker}: ` : '';
      // Entries of a list said in one bullet (`05:14 …; 05:15 …`) are kept apart.
      const joint = /[.!?:;…)"”]$/.test(out[out.length - 1]!) ? ' ' : '; ';
      out[out.length - 1] += `${joint}${label}${unit.text}`;
    } else {
      out.push(`${unit.speaker ? `${unit.speaker}: ` : ''}${pinned}${unit.text}`);
    }
    speaker = unit.speaker;
    previous = unit;
  }
  return out;
}

export function fits(body: string, budget: Budget, tokenizer: TokenizerName): boolean {
  return countBytes(body) <= budget.bytes && countTokens(body, tokenizer) <= budget.tokens;
}

/**
 * The one sentence, cut at the longest word boundary that fits (binary search on
 * the real body). A budget too small for even one word and the ellipsis yields
 * an empty body: the budget is never exceeded.
 */
export function truncateToFit(unit: Unit, sections: readonly string[], layout: Layout, budget: Budget, tokenizer: TokenizerName): string {
  const one = (candidate: Unit): string =>
    render([{ ...candidate, section: Math.min(candidate.section, sections.length - 1) }], sections, layout);
  const whole = one(unit);
  if (fits(whole, budget, tokenizer)) return whole;
  const words = unit.text.split(' ');
  const cut = (count: number): string => {
    let text = words
      .slice(0, count)
      .join(' ')
      .replace(/[\s,;:.!?-]+$/, '');
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
