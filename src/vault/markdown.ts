import type { Root } from 'mdast';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';

// Frozen once: a processor per call would re-run plugin attachment for every file.
const parser = unified().use(remarkParse).freeze();
const stringifier = unified().use(remarkStringify, { bullet: '-', emphasis: '_', rule: '-' }).freeze();

/** Parses a markdown body into an mdast syntax tree (CommonMark, via unified + remark-parse). */
export function parseMarkdown(text: string): Root {
  return parser.parse(text);
}

/** Serialises an mdast tree back to markdown (remark-stringify, `-` bullets). */
export function stringifyMarkdown(tree: Root): string {
  return stringifier.stringify(tree);
}
