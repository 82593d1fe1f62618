import type { Nodes, PhrasingContent, Root, RootContent } from 'mdast';
import type { MustKeepReason, Sentence, SentenceRole } from './model.js';
import { lazy } from '../util/lazy.js';

/**
 * What the sentences are cut from, in document order: a heading (its depth
 * and text), or a block of prose (a paragraph, a list item's paragraph, a
 * table row) as plain markdown text. `proseOf` reads them from a syntax tree.
 */
export type Prose = { heading: number; text: string } | { block: string };

/**
 * Turns a markdown syntax tree into the sentences the summarizer works with.
 * Each paragraph and list item is one block; blocks are cut into sentences
 * with `Intl.Segmenter`. Inline code survives in backticks (identifiers are
 * must-keep items), links keep their text, fenced code blocks are left out.
 */
export function extractSentences(tree: Root, options: { pinned: boolean }): Sentence[] {
  return sentencesOf(proseOf(tree), options);
}

/** The headings and prose blocks of a tree, in order (see `Prose`). */
export function proseOf(tree: Root): Prose[] {
  const prose: Prose[] = [];
  const visitBlock = (node: RootContent): void => {
    switch (node.type) {
      case 'heading':
        prose.push({ heading: node.depth, text: phrasingText(node.children).trim() });
        return;
      case 'paragraph':
        prose.push({ block: phrasingText(node.children) });
        return;
      case 'list':
        for (const item of node.children) {
          // A list item is one block: its first paragraph, nested lists become their own blocks.
          for (const child of item.children) visitBlock(child);
        }
        return;
      case 'blockquote':
        for (const child of node.children) visitBlock(child);
        return;
      case 'table':
        for (const row of node.children) prose.push({ block: row.children.map((cell) => phrasingText(cell.children).trim()).join(' | ') });
        return;
      default:
        return; // code blocks, html, thematic breaks, definitions: not prose
    }
  };
  for (const node of tree.children) visitBlock(node);
  return prose;
}

/** The sentences of headings and prose blocks: each block's sentences carry the headings above it as their section. */
export function sentencesOf(prose: Iterable<Prose>, options: { pinned: boolean }): Sentence[] {
  const sentences: Sentence[] = [];
  const headings: string[] = [];
  let block = 0;
  for (const item of prose) {
    if ('heading' in item) {
      headings.length = Math.max(0, Math.min(headings.length, item.heading - 1));
      headings[item.heading - 1] = item.text;
      continue;
    }
    const section = headings.filter(Boolean).join(' / ');
    for (const piece of splitSentences(item.block)) {
      const role = detectRole(piece, section);
      // A pinned memory is always in the package's critical section; summaries only need to mention it once.
      const pinnedLead = options.pinned && sentences.length === 0;
      sentences.push({ text: piece, section, block, role, mustKeep: mustKeepReasons(piece, role, pinnedLead) });
    }
    block++;
  }
  return sentences;
}

// Created on first use (~20 ms: ICU loads its break rules): a rebuild that parses nothing never needs it.
const segmenter = lazy(() => new Intl.Segmenter('en', { granularity: 'sentence' }));
// Bounded, so a run of backticks cannot make one protected span of the whole paragraph.
const CODE_SPAN = /`[^`]{1,200}`/g;
/**
 * Longest text given to the segmenter at once, and the length past which a
 * sentence takes no more short fragments. `Intl.Segmenter` slows down with
 * the length of the text it walks (50,000 "Ok. " sentences take ~3 minutes in
 * one call, ~0.1 s in pieces of this size), and a single sentence is what
 * every later stage scans: both stay bounded, so splitting is linear.
 */
export const MAX_SENTENCE_CHARS = 2000;

/** Splits prose into sentences; code spans are protected so `a.b()` is never cut. Linear in the text's length. */
export function splitSentences(text: string): string[] {
  return sentencesOfText(text, true);
}

/** `splitSentences` without its one-sentence shortcut: every text through the segmenter (the tests compare the two). */
export function splitSentencesBySegmenter(text: string): string[] {
  return sentencesOfText(text, false);
}

function sentencesOfText(text: string, shortcut: boolean): string[] {
  const normalized = text.replace(/\s+/g, ' ').trim();
  if (normalized.length === 0) return [];
  const spans: string[] = [];
  const masked = normalized.replace(CODE_SPAN, (span) => {
    spans.push(span);
    return `\u0000${spans.length - 1}\u0000`;
  });
  if (shortcut && !normalized.includes('\u0000') && isOneSentence(masked)) return [normalized];
  const out: string[] = [];
  for (const piece of piecesOf(masked, MAX_SENTENCE_CHARS)) {
    for (const { segment } of segmenter().segment(piece)) {
      const restored = segment.replace(/\u0000(\d+)\u0000/g, (_, index: string) => spans[Number(index)] ?? '').trim();
      if (restored.length === 0) continue;
      // Very short fragments ("Ok.", "e.g.") read better attached to the previous sentence.
      const previous = out[out.length - 1];
      if (previous !== undefined && restored.length < 12 && previous.length < MAX_SENTENCE_CHARS)
        out[out.length - 1] = `${previous} ${restored}`;
      else out.push(restored);
    }
  }
  return out;
}

/**
 * Whether the segmenter would return `masked` whole: ASCII text (code spans
 * masked) with no `.`, `!` or `?` but in its closing run (`.`, `?!`, `.")`).
 * A sentence break needs a terminator with text after it (UAX #29; line
 * breaks are spaces by now), so such a text is one sentence, and ~70 % of
 * a vault's prose blocks are: a list item, a heading-like line, a single
 * sentence. `Intl.Segmenter` costs ~10 µs a block even then.
 * (A text with a NUL of its own takes the slow path: its restore would read
 * the NUL as a placeholder's.)
 */
function isOneSentence(masked: string): boolean {
  if (masked.length > MAX_SENTENCE_CHARS) return false;
  let end = masked.length;
  for (;;) {
    const code = masked.charCodeAt(end - 1);
    // . ! ? " ' ) ]
    if (code === 46 || code === 33 || code === 63 || code === 34 || code === 39 || code === 41 || code === 93) end--;
    else break;
  }
  for (let i = 0; i < end; i++) {
    const code = masked.charCodeAt(i);
    if (code >= 0x80 || code === 46 || code === 33 || code === 63) return false;
  }
  return true;
}

/**
 * Cuts text into pieces of at most `max` characters (a code span placeholder
 * is never cut): after the last `. `, `! ` or `? ` of the window when there is
 * one in its second half, else at its last space, else at `max`.
 */
function piecesOf(text: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const window = text.slice(start, start + max);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? ')) + 1;
    if (cut <= max / 2) cut = window.lastIndexOf(' ');
    if (cut <= 0) cut = max;
    // An odd count of NULs: the cut fell inside a `\u0000n\u0000` placeholder; move it past the closing one.
    let nuls = 0;
    for (let i = 0; i < cut; i++) if (window.charCodeAt(i) === 0) nuls++;
    if (nuls % 2 === 1) cut = text.indexOf('\u0000', start + cut) + 1 - start;
    pieces.push(text.slice(start, start + cut));
    start += cut;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Plain markdown text of inline content: code spans keep backticks, links keep their text. */
export function phrasingText(nodes: readonly PhrasingContent[]): string {
  let text = '';
  for (const node of nodes) text += inlineText(node);
  return text;
}

function inlineText(node: Nodes): string {
  switch (node.type) {
    case 'text':
      return node.value;
    case 'inlineCode':
      return `\`${node.value}\``;
    case 'break':
      return ' ';
    case 'image':
      return node.alt ?? '';
    case 'html':
      return '';
    default:
      return 'children' in node ? (node.children as Nodes[]).map(inlineText).join('') : '';
  }
}

const DECISION =
  /^\s*(?:\*\*)?decision\b|\b(?:decided|we chose|i chose|agreed to|agreed on|going with|we will|we'll go with|settled on|opted for)\b/i;
const STATE = new RegExp(
  String.raw`\b(?:blocked|blocker|todo|to do|next step|next up|pending|waiting|open question|in progress|wip|still (?:failing` +
    String.raw`|broken|open|need)|fails|failing|broken|need to|needs to|tomorrow|follow[- ]up|not yet|unresolved|investigating)\b`,
  'i',
);
const DONE = new RegExp(
  String.raw`\b(?:fixed|implemented|added|shipped|merged|released|replaced|refactored|wrote|deployed|completed|finished|migrated` +
    String.raw`|removed|resolved|landed|upgraded|created|built|rolled out|switched|moved|set up|cut|reduced|improved)\b`,
  'i',
);

const DONE_LEAD = new RegExp(`^\\s*(?:${DONE.source})`, 'i');

function detectRole(sentence: string, section: string): SentenceRole {
  // Only the nearest heading speaks for the sentence (a title above it says nothing about its role).
  const heading = (section.split(' / ').pop() ?? '').toLowerCase();
  if (/\b(?:decisions?|architecture|direction)\b/.test(heading)) return 'decision';
  if (/\b(?:open|blockers?|state|threads?|debt|todos?|next steps?|next)\b/.test(heading)) return 'state';
  if (/\b(?:done|accomplishments?|milestones?|shipped)\b/.test(heading)) return 'done';
  if (/\b(?:context|learnings?|keep|facts?)\b/.test(heading)) return 'context';
  if (DECISION.test(sentence)) return 'decision';
  // "Fixed the failing test." reports an outcome: a sentence that opens with a done verb is done.
  if (DONE_LEAD.test(sentence)) return 'done';
  if (STATE.test(sentence)) return 'state';
  if (DONE.test(sentence)) return 'done';
  return 'context';
}

const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
const NAMED_DATE = new RegExp(
  String.raw`\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?\b|\b\d{1,2}(?:st` +
    String.raw`|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b`,
  'i',
);

function mustKeepReasons(sentence: string, role: SentenceRole, pinned: boolean): MustKeepReason[] {
  const reasons: MustKeepReason[] = [];
  if (pinned) reasons.push('pinned');
  if (role === 'decision') reasons.push('decision');
  if (/#critical\b/i.test(sentence)) reasons.push('critical');
  if (/`[^`]+`/.test(sentence)) reasons.push('code');
  if (ISO_DATE.test(sentence) || NAMED_DATE.test(sentence)) reasons.push('date');
  return reasons;
}
