import { markdownNestingProblem, parseMarkdown, PIECE_LINES } from './markdown.js';
import { extractSentences } from './sentences.js';
import type { Sentence } from './model.js';

/**
 * A memory's opening: its first sentences (headings left out), as the package shows a memory it shortens
 * (src/pipeline/package/render.ts). Without a parsed body at hand (a fresh clone holds none), parsing a whole
 * ~3 KB memory with remark to keep its first three sentences cost ~5 ms; a package buying back a busy day in part
 * asked it of ~100 memories. Here only the body's beginning is parsed, up to a blank line past the paragraph that
 * holds the last sentence wanted, and the whole body when the beginning could read differently alone.
 */

/** The texts of the first `count` of `sentences` that are not headings: a memory's opening, from a body parsed whole. */
export function firstSentences(sentences: readonly Sentence[], count: number): string[] {
  return sentences
    .filter((sentence) => sentence.role !== 'heading')
    .slice(0, count)
    .map((sentence) => sentence.text);
}

/**
 * The first `count` sentences of `body` that are not headings, the same as the first `count` of
 * `extractSentences(parseMarkdown(body))` (test/vault/opening.test.ts compares the two on tricky inputs).
 *
 * Why a beginning cut at a blank line reads the same: CommonMark reads blocks line by line, and a blank line ends
 * every paragraph, so what comes after it never changes a block before it (a setext underline must follow its
 * paragraph's last line; a list's tight or loose spacing is not in the sentences), nor the inline text in one. A
 * block left open at the cut (fenced code, an HTML comment) is the same block up to the cut, and holds no sentence.
 * One thing reaches back: a link reference definition (`[label]: url`, anywhere after the cut makes `[label]`
 * before it a link, whose text is not the brackets'): with `]:` after the cut the whole body is parsed. So is a
 * body `parseMarkdown` would refuse as nested too deep, and a beginning as long as the lines it parses in pieces.
 */
export function openingSentences(body: string, count: number): string[] {
  const wanted = (text: string) => firstSentences(extractSentences(parseMarkdown(text), { pinned: false }), count);
  if (count <= 0) return [];
  if (markdownNestingProblem(body)) return wanted(body);
  // The first cut past `count` sentence ends (`.`, `!` or `?` before a blank) is tried first: a guess (an
  // abbreviation ends no sentence, a line without a stop may), checked by the parse. Short of sentences, the next
  // cut tried is past twice the length: the parses together stay under twice the last one.
  let reach = 0;
  let ends = 0;
  let counted = 0;
  for (const cut of blankLineCuts(body)) {
    ends += sentenceEnds(body, counted, cut);
    counted = cut;
    if (cut < reach || ends < count) continue;
    if (linesBefore(body, cut) >= PIECE_LINES) break;
    if (body.includes(']:', cut)) break; // a definition after the cut may resolve a reference before it
    const sentences = wanted(body.slice(0, cut));
    if (sentences.length >= count) return sentences;
    reach = cut * 2;
  }
  return wanted(body);
}

/**
 * Offsets just past each blank line (spaces and tabs only) that is outside fenced code, in order: where a
 * beginning of the body may end. A fence is a line of up to three spaces, then three or more backticks or tildes;
 * one indented deeper (in a list item, say) is not seen here, so a blank line inside it may be offered as a cut:
 * harmless, for a fence open at the cut is code in the beginning as in the whole, and holds no sentence.
 */
export function blankLineCuts(text: string): number[] {
  const cuts: number[] = [];
  let fence = '';
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) fence = '';
    } else if (opener) fence = opener;
    // Blank as CommonMark has it: spaces and tabs only (a no-break space is text, a paragraph's line).
    else if (/^[ \t]*\r?$/.test(line) && end < text.length) cuts.push(end + 1);
    start = end + 1;
  }
  return cuts;
}

/** How many `.`, `!` or `?` from `start` to `end` of `text` are followed by a blank or a line break. */
function sentenceEnds(text: string, start: number, end: number): number {
  return text.slice(start, end).match(/[.!?]\s/g)?.length ?? 0;
}

function linesBefore(text: string, offset: number): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}
