import { sha256 } from '../util/hash.js';

/**
 * Where each page of the site lives, relative to the site's folder. One place names them so the pages, their links
 * and the search index agree. Names come from stream names, periods and memory ids: whatever is not a plain file-name
 * character is replaced and the name gets a short hash of the original, so two ids never share a page.
 */

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

/** A file name for a name from the vault: itself when plain, else a cleaned form plus 8 hex digits of its hash. */
export function fileName(name: string): string {
  const folded = name.replaceAll('/', '~');
  if (PLAIN.test(folded) && folded.length <= 150) return folded;
  const cleaned = folded
    .replace(/[^A-Za-z0-9._~-]+/g, '_')
    .replace(/^[._~-]+/, '')
    .slice(0, 120);
  return `${cleaned || 'x'}-${sha256(name).slice(0, 8)}`;
}

export const sitePaths = {
  home: 'index.html',
  css: 'assets/site.css',
  searchScript: 'assets/search.js',
  search: 'search.html',
  searchCatalog: 'search/catalog.js',
  searchShard: (stream: string, month: string) => `search/${fileName(stream)}-${month}.js`,
  review: 'review.html',
  facts: 'facts.html',
  index: 'vault-index.html',
  stream: (stream: string) => `${fileName(stream)}/index.html`,
  package: (stream: string) => `${fileName(stream)}/package.html`,
  charts: (stream: string) => `${fileName(stream)}/charts.html`,
  year: (stream: string, year: string) => `${fileName(stream)}/year-${year}.html`,
  month: (stream: string, month: string) => `${fileName(stream)}/month-${month}.html`,
  week: (stream: string, week: string) => `${fileName(stream)}/week-${week}.html`,
  day: (stream: string, day: string) => `${fileName(stream)}/day-${day}.html`,
  memory: (stream: string, id: string) => `${fileName(stream)}/memory/${fileName(id)}.html`,
} as const;

/** The manifest of what the last `memvault site` wrote: page → hash of its inputs (see write.ts). */
export const SITE_MANIFEST = '.memvault-site.json';
