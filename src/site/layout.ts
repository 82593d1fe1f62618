import { hrefTo, html, raw, type Safe } from './html.js';
import { sitePaths } from './paths.js';

/**
 * The frame of every page: head, navigation, breadcrumbs, main, footer. The Content-Security-Policy allows scripts
 * and styles from the site's own files only, so even markup that slipped through the sanitizer could not run a script
 * of its own (inline scripts and `on…` handlers are blocked by the browser as well).
 */

export interface Crumb {
  label: string;
  /** Site path; the current page when absent. */
  to?: string;
}

export interface PageFrame {
  /** This page's site path (links are made relative to it). */
  path: string;
  title: string;
  streams: readonly string[];
  crumbs?: readonly Crumb[];
  body: Safe;
  /** Site paths of scripts of the site to load at the end of the body. */
  scripts?: readonly string[];
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'";

export function renderPage(frame: PageFrame): string {
  const to = (target: string) => hrefTo(frame.path, target);
  const crumbs = frame.crumbs ?? [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>${frame.title} · memvault</title>
<link rel="stylesheet" href="${to(sitePaths.css)}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="${to(sitePaths.home)}">memvault</a>
<nav aria-label="Site">
<ul>
${frame.streams.map((stream) => html`<li><a href="${to(sitePaths.stream(stream))}">${stream}</a></li>`)}
<li><a href="${to(sitePaths.review)}">Review</a></li>
<li><a href="${to(sitePaths.facts)}">Facts</a></li>
<li><a href="${to(sitePaths.index)}">Index</a></li>
</ul>
</nav>
<form class="search-form" role="search" action="${to(sitePaths.search)}" method="get">
<label for="site-search">Search</label>
<input id="site-search" name="q" type="search" placeholder="words in memories">
<button type="submit">Go</button>
</form>
</header>
${
  crumbs.length > 0
    ? html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${crumbs.map((crumb) =>
        crumb.to === undefined
          ? html`<li><span aria-current="page">${crumb.label}</span></li>`
          : html`<li><a href="${to(crumb.to)}">${crumb.label}</a></li>`,
      )}</ol></nav>`
    : ''
}
<main id="main">
${frame.body}
</main>
<footer class="foot">A static view of the vault, written by <code>memvault site</code>. Memory text is shown as text: nothing in it runs.</footer>
${(frame.scripts ?? []).map((script) => html`<script src="${to(script)}"></script>`)}
</body>
</html>
`.value;
}

/** The site's style sheet: plain, readable, with contrast that passes WCAG AA. */
export const SITE_CSS =
  raw(`:root { --fg: #1b1b1b; --muted: #4a4a4a; --line: #d0d0d0; --link: #0b4fa8; --bg: #ffffff; --soft: #f3f5f8; --warn: #8a1c00; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
.top { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center; padding: 10px 24px; border-bottom: 1px solid var(--line); background: var(--soft); }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
.top nav ul { list-style: none; display: flex; gap: 16px; margin: 0; padding: 0; flex-wrap: wrap; }
.search-form { margin-left: auto; display: flex; gap: 6px; align-items: center; }
.search-form input { padding: 4px 8px; border: 1px solid #767676; border-radius: 4px; min-width: 14em; }
.search-form button, .search-page button { padding: 4px 10px; border: 1px solid #767676; border-radius: 4px; background: #fff; color: var(--fg); }
.crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: 4px; margin: 0; padding: 8px 24px; font-size: 14px; }
.crumbs li + li::before { content: "›"; margin-right: 4px; color: var(--muted); }
main { max-width: 960px; margin: 0 auto; padding: 8px 24px 32px; }
h1 { font-size: 1.7rem; margin: 0.6em 0 0.3em; }
h2 { font-size: 1.25rem; margin-top: 1.6em; border-bottom: 1px solid var(--line); padding-bottom: 2px; }
.meta, .muted { color: var(--muted); font-size: 14px; }
.list { padding-left: 1.2em; }
.list li { margin: 3px 0; }
.periods { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; list-style: none; padding: 0; }
.periods li { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.summary { border-left: 4px solid #6b8fc7; background: var(--soft); padding: 4px 16px; margin: 12px 0; overflow-wrap: anywhere; }
.memory-text { overflow-wrap: anywhere; }
.flag { color: var(--warn); font-weight: 600; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; font-size: 14px; }
td code, pre { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: var(--soft); padding: 8px; }
.pager { display: flex; justify-content: space-between; margin-top: 24px; }
.chart { max-width: 100%; height: auto; }
.legend span { margin-right: 16px; font-size: 14px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: middle; }
.sw-blue { background: #3d6fb6; } .sw-red { background: #b3261e; } .sw-green { background: #2e7d32; } .sw-amber { background: #b26a00; }
.hits li { margin: 10px 0; }
.hits mark { background: #ffe58a; color: inherit; }
.foot { max-width: 960px; margin: 0 auto; padding: 16px 24px; color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); }
`);
