/**
 * The labels a summary's bullets open with, written by the extractive
 * summarizer (`llm/extractive/render.ts`) and read back when the tier above
 * summarizes it (`llm/extractive/units.ts`), when the retention check
 * takes the items of its sentences (`retention/items.ts`), when topics are
 * read (`text/topics.ts`) and when the package leaves pinned bullets out
 * (`pipeline/package/items.ts`). Both sides live
 * here so that a change to one is a change to the other
 * (test/text/summary-labels.test.ts holds them together).
 *
 * - A day label: `Tue 02-10` above the daily tier, `Tue 2026-02-10` when a
 *   summary spans years (long-term); written bold, `**Tue 02-10**`.
 * - The pinned label: `**Pinned:**` before the lead of a pinned memory.
 *
 * Once a body is parsed (bold marks gone), a sentence reads `Tue 02-10 …` or
 * `Pinned: …`.
 */

/** Weekday names as day labels write them, by `Date.getUTCDay()`. */
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** How much of the date a day label writes: `short` (`Tue 02-10`) or `long` (`Tue 2026-02-10`). */
export type DayLabelForm = 'short' | 'long';

/** A day label opening a sentence, then text or nothing; groups: weekday, year (long form), month, day. */
const DAY_LABEL = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:(\d{4})-)?(\d{2})-(\d{2})(?:\s+|$)/;
const PINNED = 'Pinned:';
const PINNED_LABEL = /^Pinned:\s+/;

/** The label of `day` (`YYYY-MM-DD`) without bold marks: `Tue 02-10`, or `Tue 2026-02-10` in the long form. A text that is no date is returned as is. */
export function formatDayLabel(day: string, form: DayLabelForm): string {
  const time = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(time)) return day;
  const weekday = WEEKDAYS[new Date(time).getUTCDay()] ?? '';
  return `${weekday} ${form === 'long' ? day : day.slice(5)}`;
}

/** The day label as a summary bullet writes it: `**Tue 02-10**`. */
export function boldDayLabel(day: string, form: DayLabelForm): string {
  return `**${formatDayLabel(day, form)}**`;
}

/** What a pinned memory's lead opens with in a summary bullet, the space after it included. */
export const PINNED_BULLET_LABEL = `**${PINNED}** `;

/**
 * The day a sentence's opening day label names, and the label's length with
 * the blanks after it; undefined when the sentence opens with none. A short
 * label has no year: the year that puts it nearest `nearDay` (the source's
 * day) and on the labelled weekday is taken (`Tue 01-02` in a week that
 * starts on 2025-12-29 is in 2026). A label whose weekday does not match its
 * date is no label.
 */
export function readDayLabel(text: string, nearDay: string): { day: string; length: number } | undefined {
  const match = DAY_LABEL.exec(text);
  if (!match) return undefined;
  const [whole, weekday, year, month, day] = match;
  if (whole === undefined || month === undefined || day === undefined) return undefined;
  const anchor = Date.parse(`${nearDay}T00:00:00Z`);
  const anchorYear = Number.isNaN(anchor) ? Number(nearDay.slice(0, 4)) : new Date(anchor).getUTCFullYear();
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

/**
 * `text` without the day label it opens with (`Tue 02-10 Fixed it.` → `Fixed
 * it.`), whatever its weekday. A label with nothing after it stays unless
 * `alone` is set: it heads the bullets nested under it.
 */
export function stripDayLabel(text: string, options: { alone?: boolean } = {}): string {
  const match = DAY_LABEL.exec(text);
  if (!match || (!options.alone && match[0].length === text.length)) return text;
  return text.slice(match[0].length);
}

/** A day label's text without bold marks, either form (the source of the patterns below). */
const DAY_LABEL_TEXT = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:\\d{4}-)?\\d{2}-\\d{2}';
/** Day and pinned labels as written, bold, opening a line of a summary body. */
const BOLD_LABELS = new RegExp(`^(?:\\*\\*(?:${DAY_LABEL_TEXT}|${PINNED})\\*\\*\\s*)+`, 'u');
/** A bold day label anywhere in a text. */
const BOLD_DAY_LABELS = new RegExp(`\\*\\*${DAY_LABEL_TEXT}\\*\\*`, 'g');
/**
 * A bullet of a written summary whose text opens with the bold pinned label,
 * after one bold label (the day label) or none: `- **Tue 02-10** **Pinned:** …`;
 * the speaker who said it may stand before the label (`- Caroline: **Pinned:** …`,
 * as the extractive summarizer names speakers).
 */
const PINNED_BULLET = new RegExp(`^\\s*[-*] (?:\\*\\*[^*\\n]+\\*\\* )?(?:[^*:\\n]+: )?\\*\\*${PINNED}\\*\\*`);
/** A bullet of a written summary holding one bold label and nothing else: a day label over nested bullets. */
const LABEL_ONLY_BULLET = /^\s*[-*] \*\*[^*\n]+\*\*\s*$/;

/** A written summary line without the bold day and pinned labels it opens with (`**Tue 09-29** **Pinned:** Fixed it.` → `Fixed it.`). */
export function stripBoldLabels(line: string): string {
  return line.replace(BOLD_LABELS, '');
}

/** Whether a sentence opens with the pinned label (`Pinned: …`). */
export function hasPinnedLabel(text: string): boolean {
  return PINNED_LABEL.test(text);
}

/** `text` without the pinned label it opens with. */
export function stripPinnedLabel(text: string): string {
  return text.replace(PINNED_LABEL, '');
}

/** `text` with each bold day label in it (`**Tue 02-10**`, `**Tue 2026-02-10**`) replaced by `replacement`. */
export function replaceBoldDayLabels(text: string, replacement: string): string {
  return text.replace(BOLD_DAY_LABELS, replacement);
}

/** Whether a written summary body has a bold pinned label anywhere (a cheap test before `isPinnedBullet` on each line). */
export function hasPinnedBullets(body: string): boolean {
  return body.includes(`**${PINNED}**`);
}

/**
 * Whether a line of a written summary is a pinned bullet: `- **Pinned:** …`, `- **Tue 02-10** **Pinned:** …`, or either with
 * the speaker who said it before the label (`- Caroline: **Pinned:** …`).
 */
export function isPinnedBullet(line: string): boolean {
  return PINNED_BULLET.test(line);
}

/** Whether a line of a written summary is a bullet holding a bold label alone (`- **Tue 02-10**`), which heads the bullets nested under it. */
export function isLabelOnlyBullet(line: string): boolean {
  return LABEL_ONLY_BULLET.test(line);
}
