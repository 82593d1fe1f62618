import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSummaryBody } from '../../src/load/parse-file.js';
import {
  boldDayLabel,
  formatDayLabel,
  hasPinnedBullets,
  hasPinnedLabel,
  isLabelOnlyBullet,
  isPinnedBullet,
  PINNED_BULLET_LABEL,
  readDayLabel,
  replaceBoldDayLabels,
  stripBoldLabels,
  stripDayLabel,
  stripPinnedLabel,
  type DayLabelForm,
} from '../../src/text/summary-labels.js';

/** A calendar day from 1990 to 2040 as `YYYY-MM-DD`. */
const dayArb = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const formArb = fc.constantFrom<DayLabelForm>('short', 'long');
/** Up to three days either side: a label of a weekly or monthly summary is read back near its source's day. */
const offsetArb = fc.integer({ min: -3, max: 3 });
const textArb = fc.constantFrom(
  'Fixed the retry loop.',
  'Merged #42 after review.',
  '`fetchPage(cursor)` returns 20 rows.',
  'Decided: keep Postgres.',
);

function shift(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

describe('day labels: written and read back by one module', () => {
  it('reads back the day it wrote, in both forms, near the source day (300 generated days)', () => {
    fc.assert(
      fc.property(dayArb, formArb, offsetArb, textArb, (day, form, offset, text) => {
        const label = formatDayLabel(day, form);
        expect(label).toMatch(
          form === 'long' ? /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2}$/ : /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2}-\d{2}$/,
        );
        const sentence = `${label} ${text}`;
        expect(readDayLabel(sentence, shift(day, offset))).toEqual({ day, length: label.length + 1 });
        expect(readDayLabel(label, shift(day, offset))).toEqual({ day, length: label.length });
        expect(stripDayLabel(sentence)).toBe(text);
        // A label alone heads nested bullets: kept, unless asked for.
        expect(stripDayLabel(label)).toBe(label);
        expect(stripDayLabel(label, { alone: true })).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('reads back what a summary bullet writes once the body is parsed (markdown in between)', () => {
    fc.assert(
      fc.property(dayArb, formArb, textArb, fc.boolean(), (day, form, text, pinned) => {
        const body = `## Done\n\n- ${boldDayLabel(day, form)} ${pinned ? PINNED_BULLET_LABEL : ''}${text}\n`;
        const [sentence] = parseSummaryBody(body).sentences;
        expect(sentence).toBeDefined();
        const dated = readDayLabel(sentence!.text, day);
        expect(dated?.day).toBe(day);
        const rest = sentence!.text.slice(dated!.length);
        expect(hasPinnedLabel(rest)).toBe(pinned);
        expect(stripPinnedLabel(rest)).toBe(text.split(/(?<=\.) /)[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('is no label when the weekday does not match the date, or the date does not exist', () => {
    expect(readDayLabel('Mon 2026-02-10 Fixed it.', '2026-02-10')).toBeUndefined(); // a Tuesday
    expect(readDayLabel('Tue 02-30 Fixed it.', '2026-02-10')).toBeUndefined();
    expect(readDayLabel('Tuesday 02-10 Fixed it.', '2026-02-10')).toBeUndefined();
    expect(stripDayLabel('Monitoring 02-10 dashboards')).toBe('Monitoring 02-10 dashboards');
  });

  it('takes the year nearest the source for a short label across a new year', () => {
    // Week 2026-W01 starts on Monday 2025-12-29: `Fri 01-02` of its weekly is 2026-01-02.
    expect(readDayLabel('Fri 01-02 Shipped.', '2025-12-29')?.day).toBe('2026-01-02');
    expect(readDayLabel('Mon 12-29 Shipped.', '2026-01-02')?.day).toBe('2025-12-29');
  });

  it('strips the bold labels of a written line, as many as open it', () => {
    fc.assert(
      fc.property(dayArb, formArb, textArb, fc.boolean(), (day, form, text, pinned) => {
        expect(stripBoldLabels(`${boldDayLabel(day, form)} ${pinned ? PINNED_BULLET_LABEL : ''}${text}`)).toBe(text);
      }),
      { numRuns: 100 },
    );
    expect(stripBoldLabels('**Note** kept')).toBe('**Note** kept');
  });

  it('writes the pinned label bold, and reads it only at the start', () => {
    expect(PINNED_BULLET_LABEL).toBe('**Pinned:** ');
    expect(hasPinnedLabel('Pinned: migrations go through review.')).toBe(true);
    expect(hasPinnedLabel('Not Pinned: here')).toBe(false);
    expect(stripPinnedLabel('Pinned:   rule.')).toBe('rule.');
  });

  it('finds the bold day labels it writes anywhere in a text, and nothing else', () => {
    fc.assert(
      fc.property(dayArb, formArb, textArb, (day, form, text) => {
        const body = `## Done\n\n- ${boldDayLabel(day, form)} ${text}\n- ${boldDayLabel(day, form)}\n  - ${text}\n`;
        expect(replaceBoldDayLabels(body, '@')).toBe(`## Done\n\n- @ ${text}\n- @\n  - ${text}\n`);
      }),
      { numRuns: 100 },
    );
    expect(replaceBoldDayLabels('**Tuesday 02-10** **Note** Tue 02-10', '@')).toBe('**Tuesday 02-10** **Note** Tue 02-10');
  });

  it('tells the pinned bullets and the lone day labels of a written summary from its other lines', () => {
    fc.assert(
      fc.property(
        dayArb,
        formArb,
        textArb,
        fc.boolean(),
        fc.constantFrom('', '  '),
        // As the extractive summarizer names who said a sentence (src/llm/extractive/render.ts, select.ts).
        fc.constantFrom('', 'Caroline: ', 'Dr. Anna Kim: ', 'user: '),
        (day, form, text, dated, indent, speaker) => {
          const label = boldDayLabel(day, form);
          const pinned = `${indent}- ${dated ? `${label} ` : ''}${speaker}${PINNED_BULLET_LABEL}${text}`;
          const plain = `${indent}- ${dated ? `${label} ` : ''}${speaker}${text}`;
          expect(isPinnedBullet(pinned)).toBe(true);
          expect(hasPinnedBullets(`## Done\n\n${pinned}\n`)).toBe(true);
          expect(isPinnedBullet(plain)).toBe(false);
          expect(hasPinnedBullets(`## Done\n\n${plain}\n`)).toBe(false);
          expect(isLabelOnlyBullet(`${indent}- ${label}`)).toBe(true);
          expect(isLabelOnlyBullet(pinned)).toBe(false);
          expect(isLabelOnlyBullet(plain)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
    expect(isPinnedBullet('Pinned: not a bullet')).toBe(false);
    expect(isPinnedBullet('- Note: the **Pinned:** label mid-sentence')).toBe(false);
    expect(isPinnedBullet('- Not **Pinned:** at the start')).toBe(false);
  });
});
