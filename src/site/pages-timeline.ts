import { summaryId } from '../time/tiers.js';
import type { Summary } from '../vault/model.js';
import { memoryList, memoryListKey, pager, summaryBlock, summaryKey } from './blocks.js';
import type { HistoryVersion, SiteStream } from './collect.js';
import { hrefTo, html } from './html.js';
import { renderPage } from './layout.js';
import type { PageSpec, SiteContext } from './page.js';
import { sitePaths } from './paths.js';
import { buildTimeline, type Period, type PeriodTier } from './timeline.js';

/**
 * The timeline of a stream: its page (the years, the long-term or waterfall summaries) and a page per year, month,
 * ISO week and day, each with its summary, links down to the finer periods and to its memories, and up again.
 */

const TIER_LABEL: Record<PeriodTier, string> = { year: 'Year', month: 'Month', week: 'Week', day: 'Day' };

export function timelinePages(stream: SiteStream, context: SiteContext): PageSpec[] {
  const timeline = buildTimeline(stream.memories, stream.summaries);
  const view: TimelineView = {
    stream,
    context,
    name: stream.name,
    nav: context.streamNames,
    maps: { year: timeline.years, month: timeline.months, week: timeline.weeks, day: timeline.days },
    pathOf: (tier, id) => sitePaths[tier](stream.name, id),
    historyOf: (summary) => (summary ? (stream.history.get(summaryId(summary.meta.tier, summary.meta.period)) ?? []) : []),
  };
  const pages: PageSpec[] = [streamPage(view)];
  for (const tier of ['year', 'month', 'week', 'day'] as const) {
    const ids = [...view.maps[tier].keys()].sort();
    ids.forEach((id, at) => {
      pages.push(periodPage(view, tier, view.maps[tier].get(id)!, { previous: ids[at - 1], next: ids[at + 1] }));
    });
  }
  return pages;
}

/** What every page of one stream's timeline shares. */
interface TimelineView {
  stream: SiteStream;
  context: SiteContext;
  name: string;
  /** The stream names for the navigation bar. */
  nav: SiteContext['streamNames'];
  maps: Record<PeriodTier, Map<string, Period>>;
  pathOf: (tier: PeriodTier, id: string) => string;
  /** The earlier versions of a summary (in `history/`). */
  historyOf: (summary: Summary | undefined) => HistoryVersion[];
}

const CHILD_TIER: Record<PeriodTier, PeriodTier | undefined> = { year: 'month', month: 'week', week: 'day', day: undefined };

/** The stream's own page: the years, then the summaries that cover it all (long-term, waterfall). */
function streamPage(view: TimelineView): PageSpec {
  const { stream, context, name, nav, historyOf } = view;
  const longterm = stream.summaries.find((s) => s.meta.tier === 'longterm');
  const waterfall = stream.summaries
    .filter((s) => s.meta.tier.startsWith('waterfall-'))
    .sort((a, b) => (a.meta.tier < b.meta.tier ? 1 : -1));
  const years = [...view.maps.year.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const streamPath = sitePaths.stream(name);
  const archived = stream.memories.filter((m) => m.location === 'archive').length;
  return {
    path: streamPath,
    inputs: {
      page: 'stream',
      nav,
      name,
      years: years.map((y) => [y.id, y.memories.length, y.children.length]),
      memories: stream.memories.length,
      archived,
      longterm: summaryKey(longterm, historyOf(longterm)),
      waterfall: waterfall.map((s) => summaryKey(s, stream.history.get(s.meta.tier) ?? [])),
      budgets: stream.budgets,
      hasPackage: stream.packageHash !== undefined,
    },
    render: () =>
      renderPage({
        path: streamPath,
        title: `Stream ${name}`,
        streams: nav,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: name }],
        body: html`<h1>Stream ${name}</h1>
<p class="meta">${stream.memories.length} memories (${archived} archived) · ${[stream.calendar ? 'calendar pyramid' : '', stream.waterfall ? 'waterfall' : ''].filter(Boolean).join(' and ')}</p>
<ul class="list">
${stream.packageHash !== undefined ? html`<li><a href="${hrefTo(streamPath, sitePaths.package(name))}">The package (UPLOAD_PACKAGE.md) and what it kept</a></li>` : ''}
<li><a href="${hrefTo(streamPath, sitePaths.charts(name))}">Charts: tokens per summary against the budget, memories per day</a></li>
</ul>
<h2>Years</h2>
${
  years.length === 0
    ? html`<p class="muted">No memories yet.</p>`
    : html`<ul class="periods">${years.map(
        (y) =>
          html`<li><a href="${hrefTo(streamPath, view.pathOf('year', y.id))}">${y.id}</a><br><span class="meta">${y.memories.length} memories · ${y.children.length} months</span></li>`,
      )}</ul>`
}
${longterm ? summaryBlock(context.vaultDir, longterm, context.summaryBody, stream.budgets.longterm, historyOf(longterm), 'Long-term summary') : ''}
${waterfall.map((s) =>
  summaryBlock(
    context.vaultDir,
    s,
    context.summaryBody,
    stream.budgets[s.meta.tier],
    stream.history.get(s.meta.tier) ?? [],
    s.meta.tier === 'waterfall-recent' ? 'Waterfall: recent' : 'Waterfall: long-term',
  ),
)}`,
      }),
  };
}

/** Every coarser period of this one, coarsest first (the way up, before the stream). */
function upChain(view: TimelineView, tier: PeriodTier, period: Period): { tier: PeriodTier; id: string }[] {
  const chain: { tier: PeriodTier; id: string }[] = [];
  for (let up = period.parent, upTier = parentTier(tier); up !== undefined && upTier; ) {
    chain.unshift({ tier: upTier, id: up });
    up = view.maps[upTier].get(up)?.parent;
    upTier = parentTier(upTier);
  }
  return chain;
}

/** The page of one year, month, ISO week or day, with its neighbours for the pager. */
function periodPage(
  view: TimelineView,
  tier: PeriodTier,
  period: Period,
  neighbours: { previous: string | undefined; next: string | undefined },
): PageSpec {
  const { stream, name, nav, historyOf } = view;
  const id = period.id;
  const path = view.pathOf(tier, id);
  const finer = CHILD_TIER[tier];
  const children = finer ? period.children.map((child) => view.maps[finer].get(child)!) : [];
  const chain = upChain(view, tier, period);
  const budget = period.summary ? stream.budgets[period.summary.meta.tier] : undefined;
  // Months, weeks and days list their memories; a year links to its months (with counts) only.
  const listsMemories = tier === 'week' || tier === 'day' || tier === 'month';
  return {
    path,
    inputs: {
      page: tier,
      nav,
      name,
      id,
      previous: neighbours.previous,
      next: neighbours.next,
      chain,
      children: children.map((c) => [c.id, c.memories.length, c.summary !== undefined]),
      memories: listsMemories ? period.memories.map(memoryListKey) : period.memories.length,
      summary: summaryKey(period.summary, historyOf(period.summary)),
      budget,
    },
    render: () =>
      renderPage({
        path,
        title: `${TIER_LABEL[tier]} ${id} · ${name}`,
        streams: nav,
        crumbs: [
          { label: 'Home', to: sitePaths.home },
          { label: name, to: sitePaths.stream(name) },
          ...chain.map((c) => ({ label: c.id, to: view.pathOf(c.tier, c.id) })),
          { label: id },
        ],
        body: periodBody(view, { tier, period, path, finer, children, chain, budget, listsMemories, ...neighbours }),
      }),
  };
}

/** The HTML body of a period's page: heading, way up, summary, finer periods, memories, pager. */
function periodBody(
  view: TimelineView,
  page: {
    tier: PeriodTier;
    period: Period;
    path: string;
    finer: PeriodTier | undefined;
    children: Period[];
    chain: { tier: PeriodTier; id: string }[];
    budget: number | undefined;
    listsMemories: boolean;
    previous: string | undefined;
    next: string | undefined;
  },
) {
  const { context, name, pathOf, historyOf } = view;
  const { tier, period, path, finer, children, chain, budget, listsMemories, previous, next } = page;
  const id = period.id;
  return html`<h1>${TIER_LABEL[tier]} ${id}</h1>
<p class="meta">Stream ${name} · ${period.memories.length} memories${
    period.memories.some((m) => m.location === 'archive')
      ? ` (${period.memories.filter((m) => m.location === 'archive').length} archived)`
      : ''
  }${
    chain.length > 0
      ? html` · up: <a rel="up" href="${hrefTo(path, pathOf(chain.at(-1)!.tier, chain.at(-1)!.id))}">${chain.at(-1)!.id}</a>`
      : html` · up: <a rel="up" href="${hrefTo(path, sitePaths.stream(name))}">${name}</a>`
  }</p>
${tier === 'year' ? '' : summaryBlock(context.vaultDir, period.summary, context.summaryBody, budget, historyOf(period.summary))}
${
  finer
    ? html`<h2>${TIER_LABEL[finer]}s</h2><ul class="periods">${children.map(
        (c) =>
          html`<li><a href="${hrefTo(path, pathOf(finer, c.id))}">${c.id}</a><br><span class="meta">${c.memories.length} memories${
            c.summary ? ' · summary' : ''
          }</span></li>`,
      )}</ul>`
    : ''
}
${listsMemories ? html`<h2>Memories</h2>${memoryList(path, name, period.memories, tier !== 'day')}` : ''}
${pager(
  path,
  previous ? { label: previous, to: pathOf(tier, previous) } : undefined,
  next ? { label: next, to: pathOf(tier, next) } : undefined,
)}`;
}

function parentTier(tier: PeriodTier): PeriodTier | undefined {
  return tier === 'day' ? 'week' : tier === 'week' ? 'month' : tier === 'month' ? 'year' : undefined;
}
