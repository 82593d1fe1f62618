import type { Html, Root as MdastRoot, RootContent } from 'mdast';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { Safe } from './html.js';

/**
 * Memory and summary text to HTML with the unified stack the build parses with: remark → rehype → sanitize → string.
 * A memory is untrusted input, so:
 * - raw HTML in the markdown (`<script>`, `<img onerror>`, …) is shown as text, never as markup (`htmlAsText`);
 * - the tree is then sanitized with GitHub's schema (rehype-sanitize's default): only harmless elements and
 *   attributes, links only to http(s), mailto and relative URLs (`javascript:` and `data:` hrefs are dropped, so such
 *   a link is plain text), ids prefixed so they cannot clobber the page's own.
 */

/** Raw HTML nodes become text nodes (shown escaped), so a reader sees what the memory holds and nothing of it runs. */
function htmlAsText() {
  return (tree: MdastRoot) => {
    const visit = (node: { children?: RootContent[] }) => {
      if (!node.children) return;
      node.children = node.children.map((child) => {
        if (child.type === 'html') {
          const text = { type: 'text', value: (child as Html).value } as const;
          // A block of HTML stands alone: show it as a paragraph of text.
          return (node as { type?: string }).type === 'root' || (node as { type?: string }).type === 'blockquote'
            ? ({ type: 'paragraph', children: [text] } as RootContent)
            : (text as RootContent);
        }
        visit(child as { children?: RootContent[] });
        return child;
      });
    };
    visit(tree);
  };
}

/** The little of a hast node `safeLinks` looks at. */
interface HastNode {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/**
 * Headings of memory and summary text sit under the page's own title and section headings: `#` becomes an h3, so a
 * page has one h1 and its outline stays in order (screen readers navigate by it).
 */
function demoteHeadings() {
  return (tree: MdastRoot) => {
    const visit = (node: { type: string; depth?: number; children?: unknown[] }) => {
      if (node.type === 'heading' && node.depth !== undefined) node.depth = Math.min(6, node.depth + 2) as 1;
      for (const child of node.children ?? []) visit(child as typeof node);
    };
    visit(tree);
  };
}

const schema = {
  ...defaultSchema,
  // Only these link targets: what a reader can follow without anything running.
  protocols: { ...defaultSchema.protocols, href: ['http', 'https', 'mailto'], src: ['http', 'https'] },
};

/** Links in rendered memory text open nothing by themselves and tell the browser not to pass the site along. */
function safeLinks() {
  return (tree: HastNode) => {
    const visit = (node: HastNode) => {
      if (node.type === 'element' && node.tagName === 'a' && node.properties) {
        if (node.properties.href === undefined) node.tagName = 'span';
        else node.properties.rel = ['nofollow', 'noopener', 'noreferrer'];
      }
      for (const child of node.children ?? []) visit(child);
    };
    visit(tree);
  };
}

const processor = unified()
  .use(remarkParse)
  .use(htmlAsText)
  .use(demoteHeadings)
  .use(remarkRehype)
  .use(rehypeSanitize, schema)
  .use(safeLinks)
  .use(rehypeStringify)
  .freeze();

/** Markdown from the vault as sanitized HTML. */
export function renderMarkdown(markdown: string): Safe {
  return new Safe(String(processor.processSync(markdown)));
}
