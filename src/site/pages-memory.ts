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
  const name = stream.name;
  // Which summaries were built from each memory: dailies name their memories as sources.
  const citedBy = new Map<string, string[]>();
  for (const summary of stream.summaries)
    for (const source of summary.meta.sources) {
      const list = citedBy.get(source.id);
      if (list) list.push(summary.path);
      else citedBy.set(source.id, [summary.path]);
    }
  const summaryByPath = new Map(stream.summaries.map((s) => [s.path, s]));
  const contradictionsOf = new Map<string, string[]>();
  for (const c of stream.facts.contradictions)
    for (const side of [c.a, c.b]) contradictionsOf.set(side.memoryId, [...(contradictionsOf.get(side.memoryId) ?? []), c.id]);

  const factsOf = new Map<string, (typeof stream.facts.facts)[number][]>();
  for (const fact of stream.facts.facts) factsOf.set(fact.memoryId, [...(factsOf.get(fact.memoryId) ?? []), fact]);

  return stream.memories.map((memory): PageSpec => {
    const path = sitePaths.memory(name, memory.id);
    const week = weekOf(memory.day);
    const month = monthOfWeek(week);
    const commits = commitsOf(stream, memory);
    const facts = factsOf.get(memory.id) ?? [];
    const cited = (citedBy.get(memory.id) ?? []).filter((p) => summaryByPath.has(p));
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
        contradictions: contradictionsOf.get(memory.id) ?? [],
        cited,
      },
      render: () => {
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
${
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
  (contradictionsOf.get(memory.id) ?? []).length > 0
    ? html`<p class="flag">In contradiction ${(contradictionsOf.get(memory.id) ?? []).join(', ')}: see <a href="${hrefTo(path, sitePaths.facts)}">Facts</a>.</p>`
    : ''
}
<h2>History</h2>
<h3>Summaries built from it</h3>
${
  cited.length === 0
    ? html`<p class="muted">No summary names this memory as a source yet.</p>`
    : html`<ul class="list">${cited.map((p) => {
        const s = summaryByPath.get(p)!;
        const to = s.meta.tier === 'daily' ? sitePaths.day(name, s.meta.period) : undefined;
        return html`<li>${to ? html`<a href="${hrefTo(path, to)}">${s.meta.tier} ${s.meta.period}</a>` : `${s.meta.tier} ${s.meta.period}`} <code>${p}</code></li>`;
      })}</ul>`
}
<h3>Commits that touched it</h3>
${
  commits.length === 0
    ? html`<p class="muted">No commits (not committed yet, or the project is not a git repository).</p>`
    : html`<ul class="list">${commits.map((c) => html`<li><code>${c.oid.slice(0, 10)}</code> ${c.date.slice(0, 10)} ${c.subject}</li>`)}</ul>`
}
<p class="meta">File: <code>${memory.path}</code> · id <code>${memory.id}</code> · sha256 <code>${memory.sha256.slice(0, 16)}</code></p>
</article>`,
        });
      },
    };
  });
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
