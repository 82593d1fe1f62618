import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeContradiction, factsInForce } from '../facts/collect.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { CALENDAR_TIERS_COARSEST_FIRST, calendarTier, isCalendarTier, PERIOD_TIERS, WATERFALL_TIERS } from '../time/tiers.js';
import { vaultPaths } from '../vault/paths.js';
import { type BudgetPoint, budgetChart, type PackageCounts, packageChart, perDayChart } from './charts.js';
import type { SiteInput, SiteStream } from './collect.js';
import { hrefTo, html, type Safe } from './html.js';
import { renderPage } from './layout.js';
import { renderMarkdown } from './markdown.js';
import type { PageSpec, SiteContext } from './page.js';
import { sitePaths } from './paths.js';

/** The pages about the whole vault: home, each stream's package and charts, the index, the review queue, the facts. */

export function vaultPages(input: SiteInput, context: SiteContext): PageSpec[] {
  const pages: PageSpec[] = [homePage(input, context), indexPage(input, context), reviewPage(input, context), factsPage(input, context)];
  for (const stream of input.streams) {
    pages.push(chartsPage(stream, context));
    if (stream.packageHash !== undefined) pages.push(packagePage(stream, context));
  }
  return pages;
}

function homePage(input: SiteInput, context: SiteContext): PageSpec {
  const rows = input.streams.map((s) => ({
    name: s.name,
    memories: s.memories.length,
    archived: s.memories.filter((m) => m.location === 'archive').length,
    summaries: s.summaries.length,
    first: s.memories[0]?.day ?? null,
    last: s.memories.at(-1)?.day ?? null,
    package: s.index?.package ?? null,
    review: s.index?.review.length ?? 0,
  }));
  const p = sitePaths.home;
  return {
    path: p,
    inputs: { page: 'home', nav: context.streamNames, rows },
    render: () =>
      renderPage({
        path: p,
        title: 'The vault',
        streams: context.streamNames,
        body: html`<h1>The vault</h1>
<p>Every stream's timeline (years → months → ISO weeks → days → memories), its package, budgets and facts. Search finds words in every memory and summary.</p>
<table><caption class="muted">Streams</caption><thead><tr><th scope="col">stream</th><th scope="col">memories</th><th scope="col">archived</th><th scope="col">summaries</th><th scope="col">from</th><th scope="col">to</th><th scope="col">package</th><th scope="col">to review</th></tr></thead><tbody>
${rows.map(
  (r) =>
    html`<tr><th scope="row"><a href="${hrefTo(p, sitePaths.stream(r.name))}">${r.name}</a></th><td>${r.memories}</td><td>${r.archived}</td><td>${r.summaries}</td><td>${r.first ?? '–'}</td><td>${r.last ?? '–'}</td><td>${
      r.package ? html`<a href="${hrefTo(p, sitePaths.package(r.name))}">${r.package.tokens} / ${r.package.max_tokens} tokens</a>` : '–'
    }</td><td>${r.review}</td></tr>`,
)}
</tbody></table>
<ul class="list">
<li><a href="${hrefTo(p, sitePaths.review)}">Review queue</a>: over budget, edited by hand, contradictions, stale citations</li>
<li><a href="${hrefTo(p, sitePaths.facts)}">Facts in force and contradictions</a></li>
<li><a href="${hrefTo(p, sitePaths.index)}">The index (INDEX.md)</a></li>
<li><a href="${hrefTo(p, sitePaths.search)}">Search</a></li>
</ul>`,
      }),
  };
}

function readVaultText(vaultDir: string, relative: string): string {
  try {
    return frontmatterBody(readFileSync(path.join(vaultDir, relative), 'utf8'));
  } catch {
    return '';
  }
}

/** The site page of a summary listed in index.json: its period's page, or the stream's for long-term and waterfall ones. */
function summaryPage(stream: string, tier: string, period: string): string {
  const unit = isCalendarTier(tier) ? calendarTier(tier).unit : undefined;
  return unit ? sitePaths[unit](stream, period) : sitePaths.stream(stream);
}

/** index.json as pages of the site: coverage, the package, every summary (linked to its period) and the topics. */
function indexPage(input: SiteInput, context: SiteContext): PageSpec {
  const p = sitePaths.index;
  const known = new Set(input.streams.map((s) => s.name));
  const streams = (input.index?.streams ?? []).filter((s) => known.has(s.name));
  return {
    path: p,
    inputs: { page: 'index', nav: context.streamNames, hash: input.index?.input_hash ?? null, streams },
    render: () =>
      renderPage({
        path: p,
        title: 'Index',
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: 'Index' }],
        body: html`<h1>The index</h1><p class="meta">Every stream's summaries, coverage and topics, as the last build listed them in <code>index.json</code> (and <code>INDEX.md</code>).</p>${
          input.index === undefined
            ? html`<p class="muted">No index.json yet: run <code>memvault build</code>.</p>`
            : streams.map(
                (s) => html`<h2>${s.name}</h2>
<p class="meta">${s.memories.total} memories (${s.memories.archived} archived, ${s.memories.pinned} pinned) · ${s.coverage.first_day ?? '–'} to ${s.coverage.last_day ?? '–'}, ${s.coverage.days_with_memories} days with memories${
                  s.package
                    ? html` · <a href="${hrefTo(p, sitePaths.package(s.name))}">package</a> ${s.package.tokens} / ${s.package.max_tokens} tokens`
                    : ''
                }</p>
${
  s.topics.length > 0
    ? html`<h3>Topics</h3><ul class="list">${s.topics.map(
        (t) => html`<li><a href="${hrefTo(p, summaryPage(s.name, t.tier, t.period))}">${t.period}</a>: ${t.terms.join(', ')}</li>`,
      )}</ul>`
    : ''
}
<h3>Summaries</h3>
<table><thead><tr><th scope="col">tier</th><th scope="col">period</th><th scope="col">tokens</th><th scope="col">sources</th><th scope="col">memories</th><th scope="col">generator</th><th scope="col">flags</th></tr></thead><tbody>${s.summaries.map(
                  (x) =>
                    html`<tr><td>${x.tier}</td><td><a href="${hrefTo(p, summaryPage(s.name, x.tier, x.period))}">${x.period}</a></td><td>${x.tokens}</td><td>${x.sources}</td><td>${x.memories}</td><td>${x.generator}</td><td>${x.flags.join(', ')}</td></tr>`,
                )}</tbody></table>`,
              )
        }`,
      }),
  };
}

function reviewPage(input: SiteInput, context: SiteContext): PageSpec {
  const p = sitePaths.review;
  const streams = input.streams.map((s) => ({
    name: s.name,
    review: s.index?.review ?? [],
    contradictions: s.facts.contradictions.map(describeContradiction),
  }));
  return {
    path: p,
    inputs: { page: 'review', nav: context.streamNames, streams, built: input.index !== undefined },
    render: () =>
      renderPage({
        path: p,
        title: 'Review queue',
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: 'Review' }],
        body: html`<h1>Review queue</h1>
<p>What a person should look at: summaries over their budget, summaries edited by hand (and stale since), periods deferred, invalid files, contradicting facts and stale citations, as the last build listed them in <code>index.json</code>.</p>
${input.index === undefined ? html`<p class="muted">No index.json yet: run <code>memvault build</code>.</p>` : ''}
${streams.map(
  (s) =>
    html`<h2>${s.name}</h2>${
      s.review.length === 0 && s.contradictions.length === 0
        ? html`<p class="muted">Nothing to review.</p>`
        : html`<table><thead><tr><th scope="col">what</th><th scope="col">file</th><th scope="col">why</th></tr></thead><tbody>${s.review.map(
            (item) => html`<tr><td class="flag">${item.kind}</td><td><code>${item.path}</code></td><td>${item.reason}</td></tr>`,
          )}${s.review.some((item) => item.kind === 'contradiction') ? '' : s.contradictions.map((text) => html`<tr><td class="flag">contradiction</td><td></td><td>${text}</td></tr>`)}</tbody></table>`
    }`,
)}`,
      }),
  };
}

function factsPage(input: SiteInput, context: SiteContext): PageSpec {
  const p = sitePaths.facts;
  const streams = input.streams.map((s) => ({
    name: s.name,
    inForce: factsInForce(s.facts, input.today).map((f) => ({
      key: f.key,
      value: f.value,
      scope: f.scope,
      from: f.validFrom,
      to: f.effectiveTo ?? null,
      memoryId: f.memoryId,
    })),
    contradictions: s.facts.contradictions.map((c) => ({
      id: c.id,
      key: c.key,
      scope: c.scope,
      since: c.since,
      a: [c.a.value, c.a.memoryId, c.a.validFrom],
      b: [c.b.value, c.b.memoryId, c.b.validFrom],
    })),
  }));
  const memoryLink = (stream: string, id: string): Safe => html`<a href="${hrefTo(p, sitePaths.memory(stream, id))}">${id}</a>`;
  return {
    path: p,
    inputs: { page: 'facts', nav: context.streamNames, today: input.today, streams },
    render: () =>
      renderPage({
        path: p,
        title: 'Facts',
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: 'Facts' }],
        body: html`<h1>Facts</h1><p class="meta">In force on ${input.today}; a contradiction stays until a person resolves it (<code>memvault resolve</code>).</p>
${streams.map(
  (s) => html`<h2>${s.name}</h2>
<h3>Contradictions</h3>
${
  s.contradictions.length === 0
    ? html`<p class="muted">None.</p>`
    : html`<ul class="list">${s.contradictions.map(
        (c) =>
          html`<li class="flag-item"><strong>${c.id}</strong> <code>${c.key}</code>${c.scope ? ` (${c.scope})` : ''} since ${c.since}: ${c.a[0]} (${memoryLink(s.name, c.a[1]!)}) vs ${c.b[0]} (${memoryLink(s.name, c.b[1]!)})</li>`,
      )}</ul>`
}
<h3>In force</h3>
${
  s.inForce.length === 0
    ? html`<p class="muted">No facts in force.</p>`
    : html`<table><thead><tr><th scope="col">key</th><th scope="col">value</th><th scope="col">scope</th><th scope="col">since</th><th scope="col">memory</th></tr></thead><tbody>${s.inForce.map(
        (f) =>
          html`<tr><td><code>${f.key}</code></td><td>${f.value}</td><td>${f.scope || '–'}</td><td>${f.from}${f.to ? ` until ${f.to}` : ''}</td><td>${memoryLink(s.name, f.memoryId)}</td></tr>`,
      )}</tbody></table>`
}`,
)}`,
      }),
  };
}

function packagePage(stream: SiteStream, context: SiteContext): PageSpec {
  const p = sitePaths.package(stream.name);
  const manifest = stream.manifest;
  const counts = new Map<string, PackageCounts>();
  for (const item of manifest?.items ?? []) {
    const tier = item.type === 'pinned' ? 'pinned' : item.tier;
    const row = counts.get(tier) ?? { tier, included: 0, degraded: 0, leftOut: 0 };
    if (item.status === 'included') row.included++;
    else if (item.status === 'degraded') row.degraded++;
    else row.leftOut++;
    counts.set(tier, row);
  }
  const order = ['pinned', ...CALENDAR_TIERS_COARSEST_FIRST, 'raw'];
  const rows = [...counts.values()].sort((a, b) => order.indexOf(a.tier) - order.indexOf(b.tier));
  const notKept = (manifest?.items ?? []).filter((item) => item.status !== 'included' || (item.dropped?.length ?? 0) > 0);
  return {
    path: p,
    inputs: {
      page: 'package',
      nav: context.streamNames,
      name: stream.name,
      hash: stream.packageHash,
      manifest: manifest ? [manifest.input_hash, manifest.tokens, manifest.bytes, manifest.budget] : null,
      rows,
      notKept,
    },
    render: () =>
      renderPage({
        path: p,
        title: `Package · ${stream.name}`,
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: stream.name, to: sitePaths.stream(stream.name) }, { label: 'Package' }],
        body: html`<h1>The package of ${stream.name}</h1>
${
  manifest
    ? html`<p class="meta">${manifest.tokens} of ${manifest.budget.max_tokens} tokens · ${manifest.bytes} of ${manifest.budget.max_bytes} bytes · ${manifest.items.length} items</p>`
    : ''
}
<h2>Kept and dropped</h2>
${packageChart(rows)}
${
  notKept.length > 0
    ? html`<table><caption class="muted">Degraded, left out, or with dropped details</caption><thead><tr><th scope="col">item</th><th scope="col">status</th><th scope="col">why</th></tr></thead><tbody>${notKept.map(
        (item) =>
          html`<tr><td>${item.tier} ${item.id}</td><td>${item.status}</td><td>${item.reason ?? ''}${item.dropped?.length ? ` dropped: ${item.dropped.join('; ')}` : ''}</td></tr>`,
      )}</tbody></table>`
    : ''
}
<h2>UPLOAD_PACKAGE.md</h2>
<div class="summary">${renderMarkdown(readVaultText(context.vaultDir, vaultPaths.package(stream.name)))}</div>`,
      }),
  };
}

function chartsPage(stream: SiteStream, context: SiteContext): PageSpec {
  const p = sitePaths.charts(stream.name);
  // The tiers with many summaries to chart: one per period, and the waterfall's recent one, rewritten at each compaction.
  const tiers = [...PERIOD_TIERS, WATERFALL_TIERS[0]!];
  const series = tiers
    .map((tier) => ({
      tier,
      budget: stream.budgets[tier] ?? 0,
      points: stream.summaries
        .filter((s) => s.meta.tier === tier)
        .map((s): BudgetPoint => ({ start: s.meta.start, label: `${tier} ${s.meta.period}`, tokens: s.meta.tokens }))
        .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0)),
    }))
    .filter((s) => s.points.length > 0);
  const perDay = new Map<string, number>();
  for (const m of stream.memories) perDay.set(m.day, (perDay.get(m.day) ?? 0) + 1);
  const counts = [...perDay].map(([day, count]) => ({ day, count })).sort((a, b) => (a.day < b.day ? -1 : 1));
  return {
    path: p,
    inputs: { page: 'charts', nav: context.streamNames, name: stream.name, series, counts },
    render: () =>
      renderPage({
        path: p,
        title: `Charts · ${stream.name}`,
        streams: context.streamNames,
        crumbs: [{ label: 'Home', to: sitePaths.home }, { label: stream.name, to: sitePaths.stream(stream.name) }, { label: 'Charts' }],
        body: html`<h1>Charts of ${stream.name}</h1>
<h2>Memories per day</h2>
${perDayChart(counts)}
${series.map((s) => html`<h2>Tokens per ${s.tier} summary against its budget</h2>${budgetChart(`${s.tier} summaries`, s.points, s.budget)}`)}
${series.length === 0 ? html`<p class="muted">No summaries yet.</p>` : ''}`,
      }),
  };
}
