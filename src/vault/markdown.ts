import type { Heading, Root } from 'mdast';
import type remarkParseType from 'remark-parse';
import type { unified as unifiedType } from 'unified';
import { lazy, requireLazy } from '../util/lazy.js';

// Built once, on first use: a processor per call would re-run plugin attachment for every file,
// and a build that parses nothing should not load remark at all.
const parser = lazy(() => {
  const { unified } = requireLazy('unified') as { unified: typeof unifiedType };
  const remarkParse = (requireLazy('remark-parse') as { default: typeof remarkParseType }).default;
  return unified().use(remarkParse).freeze();
});

/** Parses a markdown body into an mdast syntax tree (CommonMark, via unified + remark-parse). */
export function parseMarkdown(text: string): Root {
  return parser().parse(text);
}

/**
 * Where the top-level headings of a parsed body are: `[start, end, depth,
 * textStart, textEnd]` as offsets into the text (text offsets -1 for an empty
 * heading). Kept with parsed bodies so headings can be demoted later without
 * parsing the body again (`demoteHeadings`).
 */
export type HeadingSpan = [number, number, number, number, number];

export function headingSpans(tree: Root): HeadingSpan[] {
  const spans: HeadingSpan[] = [];
  for (const node of tree.children) {
    if (node.type !== 'heading') continue;
    const heading = node as Heading;
    const start = heading.position?.start.offset;
    const end = heading.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const first = heading.children[0]?.position?.start.offset;
    const last = heading.children[heading.children.length - 1]?.position?.end.offset;
    spans.push([start, end, heading.depth, first ?? -1, first !== undefined && last !== undefined ? last : -1]);
  }
  return spans;
}
