import { monthOfWeek, weekOf } from '../time/periods.js';
import { parseFrontmatter } from '../vault/frontmatter.js';
import type { Memory } from '../vault/model.js';
import { readVaultFile } from '../vault/scan.js';
import { memoryLabel, timeOf } from './blocks.js';
import type { CommitRef, SiteStream } from './collect.js';
import { hrefTo, html, type Safe } from './html.js';
import { renderPage } from './layout.js';
import { renderMarkdown } from './markdown.js';
import type { PageSpec, SiteContext } from './page.js';
import { sitePaths } from './paths.js';

/**
 * A page per memory: its frontmatter as data, its text (sanitized), its facts, the summaries built from it and the
 * commits that touched it. Its inputs are the file's hash and what the page lists, so an edit rewrites this page only.
 */

export function memoryPages(stream: SiteStream, context: SiteContext): PageSpec[] {
  const links = memoryLinks(stream);
  return stream.memories.map((memory) => memoryPage(stream, context, memory, links));
}

type Fact = SiteStream['facts']['facts'][number];

/** What links to each memory: the summaries built from it, its contradictions and facts (by memory id). */
interface MemoryLinks {
  citedBy: Map<string, string[]>;
  summaryByPath: Map<string, SiteStream['summaries'][number]>;
  contradictionsOf: Map<string, string[]>;
  factsOf: Map<string, Fact[]>;
}

/** Indexes the stream's summaries, contradictions and facts by memory id, once for all its pages. */
function memoryLinks(stream: SiteStream): MemoryLinks {
  // Which summaries were built from each memory: dailies name their memories as sources.
  const citedBy = new Map<string, string[]>();
  for (const summary of stream.summaries)
    for (const source of summary.meta.sources) {
      const list = citedBy.get(source.id);
      if (list) list.push(summary.path);
      else citedBy.set(source.id, [summary.path]);
    }
  const contradictionsOf = new Map<string, string[]>();
  for (const c of stream.facts.contradictions)
    for (const side of [c.a, c.b]) contradictionsOf.set(side.memoryId, [...(contradictionsOf.get(side.memoryId) ?? []), c.id]);
  const factsOf = new Map<string, Fact[]>();
  for (const fact of stream.facts.facts) factsOf.set(fact.memoryId, [...(factsOf.get(fact.memoryId) ?? []), fact]);
  return { citedBy, summaryByPath: new Map(stream.summaries.map((s) => [s.path, s])), contradictionsOf, factsOf };
}

/** One memory's page: its inputs (what, when changed, rewrites it) and how to render it. */
function memoryPage(stream: SiteStream, context: SiteContext, memory: Memory, links: MemoryLinks): PageSpec {
  const name = stream.name;
  const path = sitePaths.memory(name, memory.id);
  const commits = commitsOf(stream, memory);
  const facts = links.factsOf.get(memory.id) ?? [];
  const cited = (links.citedBy.get(memory.id) ?? []).filter((p) => links.summaryByPath.has(p));
  const contradictions = links.contradictionsOf.get(memory.id) ?? [];
  return {
    path,
    inputs: {
      page: 'memory',
      nav: context.streamNames,
      name,
      id: memory.id,
      path: memory.path,
      sha256: memory.sha256,
      location: memory.location,
      day: memory.day,
      commits,
      facts: facts.map((f) => [f.id, f.key, f.value, f.scope, f.validFrom, f.effectiveTo ?? null, f.supersededBy]),
      contradictions,
      cited,
    },
    render: () => renderMemoryPage({ stream, context, memory, path, commits, facts, cited, contradictions, links }),
  };
}

/** What a memory page shows besides the file itself. */
interface MemoryPageParts {
  stream: SiteStream;
  context: SiteContext;
  memory: Memory;
  path: string;
  commits: CommitRef[];
  facts: Fact[];
  cited: string[];
  contradictions: string[];
  links: MemoryLinks;
}

/** Reads the memory's file (its text and frontmatter as written) and renders the page. */
function renderMemoryPage(parts: MemoryPageParts): string {
  const { context, memory, path } = parts;
  const name = parts.stream.name;
  const week = weekOf(memory.day);
  const month = monthOfWeek(week);
  const read = readVaultFile(context.vaultDir, memory.path);
  const text = read.ok ? Buffer.from(read.bytes).toString('utf8') : '';
  const parsed = parseFrontmatter(text);
  const body = read.ok && !parsed.error ? parsed.body.trim() : context.memoryBody(memory);
  return renderPage({
    path,
    title: memoryLabel(memory),
    streams: context.streamNames,
    crumbs: [
      { label: 'Home', to: sitePaths.home },
      { label: name, to: sitePaths.stream(name) },
      { label: month.slice(0, 4), to: sitePaths.year(name, month.slice(0, 4)) },
      { label: month, to: sitePaths.month(name, month) },
      { label: week, to: sitePaths.week(name, week) },
      { label: memory.day, to: sitePaths.day(name, memory.day) },
      { label: memoryLabel(memory) },
    ],
    body: html`<article>
<h1>${memoryLabel(memory)}</h1>
<p class="meta">${memory.day} ${timeOf(memory)} · ${memory.kind} · ${memory.importance}${memory.location === 'archive' ? ' · archived' : ''} · up: <a rel="up" href="${hrefTo(path, sitePaths.day(name, memory.day))}">day ${memory.day}</a>, <a href="${hrefTo(path, sitePaths.week(name, week))}">week ${week}</a>, <a href="${hrefTo(path, sitePaths.month(name, month))}">month ${month}</a></p>
<h2>Text</h2>
<div class="memory-text">${renderMarkdown(body)}</div>
<h2>Frontmatter</h2>
${frontmatterTable(memory, parsed.error ? {} : parsed.data)}
<h2>Facts</h2>
${factsBlock(parts)}
<h2>History</h2>
<h3>Summaries built from it</h3>
${citedBlock(parts)}
<h3>Commits that touched it</h3>
${
  parts.commits.length === 0
    ? html`<p class="muted">No commits (not committed yet, or the project is not a git repository).</p>`
    : html`<ul class="list">${parts.commits.map((c) => html`<li><code>${c.oid.slice(0, 10)}</code> ${c.date.slice(0, 10)} ${c.subject}</li>`)}</ul>`
}
<p class="meta">File: <code>${memory.path}</code> · id <code>${memory.id}</code> · sha256 <code>${memory.sha256.slice(0, 16)}</code></p>
</article>`,
  });
}

/** The facts a memory states, and the contradictions it is a side of. */
function factsBlock({ facts, contradictions, path }: MemoryPageParts): Safe {
  return html`${
    facts.length === 0
      ? html`<p class="muted">This memory states no facts.</p>`
      : html`<ul class="list">${facts.map(
          (f) =>
            html`<li><code>${f.key}</code> = ${f.value}${f.scope ? ` (${f.scope})` : ''} <span class="meta">from ${f.validFrom}${
              f.effectiveTo ? ` until ${f.effectiveTo}` : ''
            }${f.supersededBy.length ? ' · superseded' : ''}</span></li>`,
        )}</ul>`
  }
${
  contradictions.length > 0
    ? html`<p class="flag">In contradiction ${contradictions.join(', ')}: see <a href="${hrefTo(path, sitePaths.facts)}">Facts</a>.</p>`
    : ''
}`;
}

/** The summaries built from a memory, a daily one linked to its day's page. */
function citedBlock({ cited, links, path, stream }: MemoryPageParts): Safe {
  if (cited.length === 0) return html`<p class="muted">No summary names this memory as a source yet.</p>`;
  return html`<ul class="list">${cited.map((p) => {
    const s = links.summaryByPath.get(p)!;
    const to = s.meta.tier === 'daily' ? sitePaths.day(stream.name, s.meta.period) : undefined;
    return html`<li>${to ? html`<a href="${hrefTo(path, to)}">${s.meta.tier} ${s.meta.period}</a>` : `${s.meta.tier} ${s.meta.period}`} <code>${p}</code></li>`;
  })}</ul>`;
}

/** The memory's own path and, once archived, the path it had in memories/ (git follows no move by itself here). */
function commitsOf(stream: SiteStream, memory: Memory): CommitRef[] {
  const paths = [memory.path];
  const archived = /^([^/]+)\/archive\/[^/]+\/(.+)$/.exec(memory.path);
  if (archived) paths.push(`${archived[1]}/memories/${archived[2]}`);
  const seen = new Set<string>();
  const commits: CommitRef[] = [];
  for (const p of paths)
    for (const c of stream.commits.get(p) ?? [])
      if (!seen.has(c.oid)) {
        seen.add(c.oid);
        commits.push(c);
      }
  return commits.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** Frontmatter as data: each key and its value as YAML-ish text, escaped like everything else. */
function frontmatterTable(memory: Memory, data: Record<string, unknown>): Safe {
  const rows = Object.entries(data);
  if (rows.length === 0) return html`<p class="muted">No frontmatter (id <code>${memory.id}</code>, date from the file name).</p>`;
  return html`<table><caption class="muted">As written in the file</caption><thead><tr><th scope="col">key</th><th scope="col">value</th></tr></thead><tbody>${rows.map(
    ([key, value]) => html`<tr><th scope="row"><code>${key}</code></th><td><code>${showValue(value)}</code></td></tr>`,
  )}</tbody></table>`;
}

function showValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
