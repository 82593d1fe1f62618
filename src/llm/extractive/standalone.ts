import { stripBoldLabels } from '../../text/summary-labels.js';
import { withoutFrontmatter } from '../../text/frontmatter-fence.js';

/**
 * What makes a sentence unable to stand alone in a summary, in one place:
 * the summarizer uses these tests to choose (a lead-in only with its list, a
 * pronoun opening only with its antecedent, never a tool-call line), and the
 * readability measure (`readabilityOf`) counts what still slipped through.
 */

/** `` `Read` `mix.exs` → 93 lines ``, `` `Bash` `npm test` → 3 passed ``: one line per tool call, as ingest's compact form writes them. */
const TOOL_CALL = /^`[\w.:-]+`(?:\s+\S.*?)?\s+→(?:\s|$)/u;

/** A line that reports one tool call: never worth a summary line. */
export function isToolCallLine(text: string): boolean {
  return TOOL_CALL.test(text.trim());
}

/** A sentence that announces what follows (`Before I leave tomorrow:`): it says nothing without its list. */
export function isLeadIn(text: string): boolean {
  return /:\s*$/.test(text.replace(/[*_]+$/, '').trim());
}

/** Times and periods after `this`/`that`/`next`: `This week …` names its own referent. */
const TIME_NOUN =
  'morning|afternoon|evening|night|week|weekend|month|year|quarter|sprint|time|summer|winter|spring|autumn|fall|monday' +
  '|tuesday|wednesday|thursday|friday|saturday|sunday|release|day';
const REFERENCE = new RegExp(
  `^(?:(?:it|it's|its|they|they're|they've|them|their|he|she|he's|she's|his|her|him|both|these|those|such|neither` +
    `|either)\\b(?!-)|(?:this|that|that's|these)\\b(?!\\s+(?:${TIME_NOUN})\\b)|(?:it\\s+)?turns? out\\b|the (?:latter` +
    `|former|same)\\b|which\\b)`,
  'iu',
);

/**
 * A sentence opening with a word that points back at something said before
 * (`It`, `This`, `Both`, `They`, `Turns out`, `He`/`She` …): read alone, nobody
 * knows what it is about. `This week`, `That morning` name their own referent.
 */
export function opensWithReference(text: string): boolean {
  return REFERENCE.test(stripLabels(text).replace(/^["“'(]+/, ''));
}

/** Whitespace-separated words, code spans counted as words. */
export function wordCount(text: string): number {
  // `text.split(/\s+/).filter(Boolean).length` without the array: it runs on every sentence of a period.
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const blank = isWhitespace(text.charCodeAt(i));
    if (!blank && !inWord) words++;
    inWord = !blank;
  }
  return words;
}

/** What `\s` matches in a JavaScript regex (ECMAScript WhiteSpace and LineTerminator). */
function isWhitespace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Fewer words than this and a line is a fragment (`Back to bed.`, `Done.`). */
export const MIN_WORDS = 4;

/** A clock time or a date opening a line: `05:14 …`, `2026-09-29 …`, `29 Sep: …`. */
const TIMELINE_ENTRY =
  /^(?:\d{1,2}:\d{2}\b|\d{4}-\d{2}-\d{2}\b|(?:mon|tue|wed|thu|fri|sat|sun)\w*\b|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b)/i;

/** A line of a timeline: it says when, not what (its subject is in the lead-in or the title). */
export function isTimelineEntry(text: string): boolean {
  return TIMELINE_ENTRY.test(text.trim());
}

/** A speaker (`Caroline: `) opening a summary line, after its day and pinned labels (`stripBoldLabels`). */
const SPEAKER = /^(?:[\p{Lu}][\p{L}\p{N}'’.-]*(?: [\p{Lu}][\p{L}\p{N}'’.-]*){0,2}|user|assistant):\s+(?=\S)/u;

/** The text of a summary line without its day, pinned and speaker labels. */
export function stripLabels(text: string): string {
  let rest = stripBoldLabels(text.trim());
  const speaker = SPEAKER.exec(rest);
  if (speaker && !/^(?:Decision|Note|Update|Fix|Done|Context|Next|Why|Result|Outcome|Status)\b/.test(rest))
    rest = rest.slice(speaker[0].length);
  return rest.trim();
}

/** Counts of summary units that cannot stand alone (see `readabilityOf`). */
export interface Readability {
  /** Bullets and paragraphs measured. */
  units: number;
  toolCalls: number;
  /** Lead-ins ending with `:` whose list is not there. */
  leadIns: number;
  /** Openings with an unresolved reference. */
  references: number;
  /** Fewer than `MIN_WORDS` words. */
  fragments: number;
  /** The offending units, for a message that shows them. */
  examples: { kind: 'tool-call' | 'lead-in' | 'reference' | 'fragment'; text: string }[];
}

/**
 * Measures a summary body: every bullet (a day label alone over nested
 * bullets is not a unit) and every paragraph outside headings, frontmatter
 * and code blocks. A lead-in is dangling unless a list follows it (nested
 * under its bullet, or after its paragraph).
 */
export function readabilityOf(body: string): Readability {
  const result: Readability = { units: 0, toolCalls: 0, leadIns: 0, references: 0, fragments: 0, examples: [] };
  const lines = withoutFrontmatter(body).split('\n');
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence || line.trim() === '' || /^\s*(#|>|\||<!--)/.test(line) || /^\s*(```|~~~)/.test(line)) continue;
    const bullet = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    const indent = bullet ? bullet[1]!.length : -1;
    const text = stripLabels(bullet ? bullet[2]! : line);
    if (text.length === 0) continue; // a day label over nested bullets
    let n = i + 1;
    while (n < lines.length && lines[n]!.trim() === '') n++;
    const item = /^(\s*)(?:[-*+]|\d+[.)])\s/.exec(lines[n] ?? '');
    // The list follows: nested under the bullet, or after the paragraph.
    const listFollows = item !== null && (bullet ? item[1]!.length > indent : true);
    result.units++;
    const add = (kind: Readability['examples'][number]['kind']): void => {
      result.examples.push({ kind, text });
    };
    if (isToolCallLine(text)) {
      result.toolCalls++;
      add('tool-call');
    } else if (isLeadIn(text)) {
      if (!listFollows) {
        result.leadIns++;
        add('lead-in');
      }
    } else if (opensWithReference(text)) {
      result.references++;
      add('reference');
    } else if (wordCount(text) < MIN_WORDS) {
      result.fragments++;
      add('fragment');
    }
  }
  return result;
}

/** Adds up several measures. */
export function sumReadability(all: readonly Readability[]): Readability {
  const total: Readability = { units: 0, toolCalls: 0, leadIns: 0, references: 0, fragments: 0, examples: [] };
  for (const r of all) {
    total.units += r.units;
    total.toolCalls += r.toolCalls;
    total.leadIns += r.leadIns;
    total.references += r.references;
    total.fragments += r.fragments;
    total.examples.push(...r.examples);
  }
  return total;
}
