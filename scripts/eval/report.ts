import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { CATEGORIES, rates, type Tally } from './metrics.js';

/**
 * The evaluation's texts and tables: which texts are measured, the last-N
 * baseline, and the markdown tables printed and put in the README.
 */

/** The texts measured for each conversation, in table order. */
export const SOURCES = ['package', 'last-n', 'whole', 'daily', 'weekly', 'monthly', 'longterm'] as const;
export type Source = (typeof SOURCES)[number];

/** The last `n` tokens of `text` (o200k_base, the default tokenizer): the baseline a package is compared with. */
export function lastTokens(text: string, n: number): string {
  const tokens = encode(text);
  return tokens.length <= n ? text : decode(tokens.slice(tokens.length - n));
}

/** `0.4231` → `0.42`; no figure → `–`. */
export function formatRate(value: number | null): string {
  return value === null ? '–' : value.toFixed(2);
}

/** Row labels; the baseline's names its budget. */
export function labelOf(source: Source, maxTokens: number): string {
  switch (source) {
    case 'package':
      return '**UPLOAD_PACKAGE.md**';
    case 'last-n':
      return `last ${maxTokens.toLocaleString('en-US')} tokens (baseline)`;
    case 'whole':
      return 'whole conversation (ceiling)';
    case 'daily':
      return 'all dailies';
    case 'weekly':
      return 'all weeklies';
    case 'monthly':
      return 'all monthlies';
    case 'longterm':
      return 'long-term';
  }
}

/** Totals over every conversation, per measure and source. */
export interface Totals {
  answer: Record<Source, Tally>;
  evidence: Record<Source, Tally>;
}

/** The two markdown tables: answer retention and evidence-token recall, per category and overall, one row per source. */
export function renderTables(totals: Totals, maxTokens: number): string {
  const categories = Object.keys(CATEGORIES).map(Number);
  const header = `| text | ${categories.map((c) => `${c} ${CATEGORIES[c]}`).join(' | ')} | overall |`;
  const rule = `| --- | ${categories.map(() => '---:').join(' | ')} | ---: |`;
  const table = (which: keyof Totals): string[] => [
    header,
    rule,
    ...SOURCES.map((source) => {
      const r = rates(totals[which][source]);
      return `| ${labelOf(source, maxTokens)} | ${categories.map((c) => formatRate(r.byCategory[c] ?? null)).join(' | ')} | ${formatRate(r.overall)} |`;
    }),
    `| questions | ${categories.map((c) => String(totals[which].package.totals[c] ?? 0)).join(' | ')} | ${categories.reduce((sum, c) => sum + (totals[which].package.totals[c] ?? 0), 0)} |`,
  ];
  return [
    'Answer retention (the answer appears in the text; non-adversarial questions with answers of at most 5 words)',
    '',
    ...table('answer'),
    '',
    'Evidence-token recall (share of the distinctive tokens of the evidence turns found in the text)',
    '',
    ...table('evidence'),
  ].join('\n');
}
