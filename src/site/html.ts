/**
 * The site's own markup: a tagged template that escapes every value put into it, so text from the vault (titles,
 * tags, paths, frontmatter values) can only ever be text. Markup that is already safe (another `html` result, or
 * memory text rendered and sanitized by `markdown.ts`) is wrapped in `Safe` and passed through as it is.
 */

/** A piece of HTML that is safe to insert as it is. Only `html`, `raw` on constants, and the sanitizing renderer make one. */
export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Value = string | number | Safe | null | undefined | false | readonly Value[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: `& < > " '` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Safe) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * @example
 *   html`<a href="${href}">${memory.title}</a>`   // both escaped
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Safe {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Safe(out);
}

/** A constant of the site's own code as markup (never text from the vault). */
export function raw(markup: string): Safe {
  return new Safe(markup);
}

/**
 * An href for a link to another page of the site, relative to `from` so the site works from `file://` and under any
 * sub-path (GitHub Pages serves a project at `/<repo>/`). Every part is percent-encoded, so a name cannot become a
 * scheme (`javascript:`), a query or a fragment.
 */
export function hrefTo(from: string, to: string, fragment?: string): string {
  const fromParts = from.split('/').slice(0, -1);
  const toParts = to.split('/');
  let common = 0;
  while (common < fromParts.length && common < toParts.length - 1 && fromParts[common] === toParts[common]) common++;
  const up = fromParts.slice(common).map(() => '..');
  const down = toParts.slice(common).map((part) => encodeURIComponent(part));
  const relative = [...up, ...down].join('/');
  // `./` first: a first segment holding a colon would otherwise read as a scheme.
  return `./${relative}${fragment ? `#${encodeURIComponent(fragment)}` : ''}`;
}
