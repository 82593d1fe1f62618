import { monthOfWeek, pyramidMonthOf, weekOf } from '../time/periods.js';
import { type CalendarTier, calendarTier, isCalendarTier } from '../time/tiers.js';
import type { Memory, Summary } from '../vault/model.js';
import { memoryLabel } from './blocks.js';
import type { SiteInput } from './collect.js';
import { hrefTo, html, raw } from './html.js';
import { renderPage } from './layout.js';
import type { PageSpec, SiteContext } from './page.js';
import { sitePaths } from './paths.js';

/**
 * Full-text search from static files. The index is the site's own JSON, cut into one shard per stream and month
 * (`search/<stream>-<month>.js`), so an edit rewrites one shard; a catalog lists the shards. Each file is a script
 * that hands its JSON to the page (`memvaultSearchShard([...])`): a script tag loads from `file://` where `fetch`
 * of a JSON file is refused. The search page's own script matches every word of the query in titles and text and
 * shows the hits with DOM text nodes only, so nothing in a memory becomes markup.
 */

/** Characters of a memory or summary kept in the index (the rest of a very long memory is not searched). */
export const MAX_INDEXED_CHARS = 20_000;

interface SearchDoc {
  /** Site path of the page. */
  u: string;
  /** Title. */
  t: string;
  /** Day (memory) or period start (summary). */
  d: string;
  s: string;
  /** Kind of a memory, tier of a summary. */
  k: string;
  x: string;
}

export function searchPages(input: SiteInput, context: SiteContext): PageSpec[] {
  const shards = searchShards(input);
  const shardPaths = [...shards.keys()].sort();
  return [
    ...shardPaths.map((shardPath) => shardPage(shardPath, shards.get(shardPath)!, context)),
    {
      path: sitePaths.searchCatalog,
      inputs: { page: 'search-catalog', shardPaths },
      render: () => `memvaultSearchCatalog(${JSON.stringify(shardPaths)});\n`,
    },
    searchPage(context),
    {
      path: sitePaths.searchScript,
      inputs: { page: 'search-script', code: SEARCH_SCRIPT.value },
      render: () => SEARCH_SCRIPT.value,
    },
  ];
}

/** The memories and summaries of one stream and month, indexed in one file. */
interface SearchShard {
  stream: string;
  month: string;
  memories: Memory[];
  summaries: Summary[];
}

/**
 * The shards of every stream, by their path: a memory goes to the month of
 * its day's week, a summary of a day, week or month to the month its first
 * day's week belongs to (other summaries are not indexed).
 */
function searchShards(input: SiteInput): Map<string, SearchShard> {
  const shards = new Map<string, SearchShard>();
  const shardOf = (stream: string, month: string) => {
    const key = sitePaths.searchShard(stream, month);
    let shard = shards.get(key);
    if (!shard) {
      shard = { stream, month, memories: [], summaries: [] };
      shards.set(key, shard);
    }
    return shard;
  };
  for (const stream of input.streams) {
    for (const memory of stream.memories) shardOf(stream.name, monthOfWeek(weekOf(memory.day))).memories.push(memory);
    for (const summary of stream.summaries) {
      const { tier, period } = summary.meta;
      const unit = isCalendarTier(tier) ? calendarTier(tier).unit : undefined;
      const month = unit === 'month' ? period : unit ? pyramidMonthOf(calendarTier(tier as CalendarTier).rangeOf(period).start) : undefined;
      if (month) shardOf(stream.name, month).summaries.push(summary);
    }
  }
  return shards;
}

/** One shard's script: its documents (page, title, day, stream, kind, text cut at MAX_INDEXED_CHARS) in one call. */
function shardPage(shardPath: string, shard: SearchShard, context: SiteContext): PageSpec {
  return {
    path: shardPath,
    inputs: {
      page: 'search-shard',
      memories: shard.memories.map((m) => [m.id, m.path, m.sha256, m.day, m.title ?? null, m.kind]),
      summaries: shard.summaries.map((s) => [s.path, s.sha256]),
    },
    render: () => {
      const docs: SearchDoc[] = [
        ...shard.memories.map((m) => ({
          u: sitePaths.memory(shard.stream, m.id),
          t: memoryLabel(m),
          d: m.day,
          s: shard.stream,
          k: m.kind,
          x: context.memoryBody(m).slice(0, MAX_INDEXED_CHARS),
        })),
        ...shard.summaries.map((s) => ({
          u: sitePaths[(isCalendarTier(s.meta.tier) && calendarTier(s.meta.tier).unit) || 'month'](shard.stream, s.meta.period),
          t: `${s.meta.tier} summary ${s.meta.period}`,
          d: s.meta.start,
          s: shard.stream,
          k: s.meta.tier,
          x: context.summaryBody(s).slice(0, MAX_INDEXED_CHARS),
        })),
      ];
      return `memvaultSearchShard(${JSON.stringify(docs)});\n`;
    },
  };
}

/** The search page: a form the script answers from the shards. */
function searchPage(context: SiteContext): PageSpec {
  const p = sitePaths.search;
  return {
    path: p,
    inputs: { page: 'search', nav: context.streamNames },
    render: () =>
      renderPage({
        path: p,
        title: 'Search',
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: 'Search' }],
        body: html`<h1>Search</h1>
<form class="search-page" role="search" action="${hrefTo(p, p)}" method="get">
<label for="q-page">Words to find</label>
<input id="q-page" name="q" type="search">
<button type="submit">Search</button>
</form>
<p id="search-status" role="status" aria-live="polite"></p>
<ol id="hits" class="hits"></ol>
<p class="meta">Every word must appear (in any case). The index is in <code>search/</code>: one file per stream and month.</p>`,
        scripts: [sitePaths.searchScript],
      }),
  };
}

/** The search page's script: plain JavaScript, no dependency; hits are built with text nodes, never innerHTML. */
const SEARCH_SCRIPT = raw(`(function () {
  'use strict';
  var docs = [];
  var catalog = null;
  window.memvaultSearchShard = function (list) { docs = docs.concat(list); };
  window.memvaultSearchCatalog = function (list) { catalog = list; };
  var query = (new URLSearchParams(window.location.search).get('q') || '').trim();
  var input = document.getElementById('q-page');
  var status = document.getElementById('search-status');
  var hits = document.getElementById('hits');
  if (input) input.value = query;
  if (!query) { status.textContent = 'Type words to find in memories and summaries.'; return; }
  status.textContent = 'Searching…';
  function load(src, done) {
    var script = document.createElement('script');
    script.src = src;
    script.onload = done;
    script.onerror = done;
    document.body.appendChild(script);
  }
  load('search/catalog.js', function () {
    var shards = catalog || [];
    var left = shards.length;
    if (left === 0) return show();
    shards.forEach(function (shard) { load(shard, function () { left -= 1; if (left === 0) show(); }); });
  });
  function count(text, word) {
    var n = 0, at = text.indexOf(word);
    while (at !== -1) { n += 1; at = text.indexOf(word, at + word.length); }
    return n;
  }
  function show() {
    var words = query.toLowerCase().split(/\\s+/).filter(Boolean);
    var found = [];
    docs.forEach(function (doc) {
      var title = doc.t.toLowerCase();
      var text = doc.x.toLowerCase();
      var score = 0;
      for (var i = 0; i < words.length; i++) {
        var inTitle = count(title, words[i]);
        var inText = count(text, words[i]);
        if (inTitle + inText === 0) return;
        score += inTitle * 5 + Math.min(inText, 10);
      }
      found.push({ doc: doc, score: score, text: text });
    });
    found.sort(function (a, b) { return b.score - a.score || (a.doc.d < b.doc.d ? 1 : -1); });
    status.textContent = found.length === 0 ? 'No memory or summary holds all of: ' + query : found.length + ' found for: ' + query + (found.length > 100 ? ' (first 100 shown)' : '');
    found.slice(0, 100).forEach(function (hit) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = hit.doc.u;
      a.textContent = hit.doc.t;
      li.appendChild(a);
      var meta = document.createElement('span');
      meta.className = 'meta';
      meta.textContent = ' ' + [hit.doc.d, hit.doc.s, hit.doc.k].join(' · ');
      li.appendChild(meta);
      var at = hit.text.indexOf(words[0]);
      var start = Math.max(0, at - 80);
      var snippet = hit.doc.x.slice(start, at + words[0].length + 120);
      var p = document.createElement('p');
      var lower = snippet.toLowerCase();
      var cursor = 0;
      var pos = lower.indexOf(words[0]);
      while (pos !== -1) {
        p.appendChild(document.createTextNode(snippet.slice(cursor, pos)));
        var mark = document.createElement('mark');
        mark.textContent = snippet.slice(pos, pos + words[0].length);
        p.appendChild(mark);
        cursor = pos + words[0].length;
        pos = lower.indexOf(words[0], cursor);
      }
      p.appendChild(document.createTextNode(snippet.slice(cursor)));
      li.appendChild(p);
      hits.appendChild(li);
    });
  }
})();
`);
