import type { Root } from 'mdast';
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
