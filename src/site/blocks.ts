import { readFileSync } from 'node:fs';
import path from 'node:path';
import { frontmatterBody } from '../vault/frontmatter.js';
import type { Memory, Summary } from '../vault/model.js';
import type { HistoryVersion } from './collect.js';
import { hrefTo, html, type Safe } from './html.js';
import { renderMarkdown } from './markdown.js';
import { sitePaths } from './paths.js';

/** Pieces several pages share: a list of memories, a summary with its budget and its earlier versions. */

/** What a list of memories shows of each one: also what a list page's input hash takes. */
export function memoryListKey(memory: Memory): unknown[] {
  return [memory.id, memory.day, memory.minute, memory.title ?? null, memory.kind, memory.tags, memory.importance, memory.location];
}

export function timeOf(memory: Memory): string {
  const h = Math.floor(memory.minute / 60);
  const m = memory.minute % 60;
  return memory.minute === 0 ? '' : `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

export function memoryLabel(memory: Memory): string {
  return memory.title?.trim() || memory.id;
}

export function memoryList(from: string, stream: string, memories: readonly Memory[], showDay = true): Safe {
  if (memories.length === 0) return html`<p class="muted">No memories.</p>`;
  return html`<ul class="list memories">${memories.map(
    (memory) =>
      html`<li><a href="${hrefTo(from, sitePaths.memory(stream, memory.id))}">${memoryLabel(memory)}</a> <span class="meta">${[
        showDay ? memory.day : '',
        timeOf(memory),
        memory.kind,
        memory.importance !== 'normal' ? memory.importance : '',
        memory.tags.map((tag) => `#${tag}`).join(' '),
        memory.location === 'archive' ? 'archived' : '',
      ]
        .filter(Boolean)
        .join(' · ')}</span></li>`,
  )}</ul>`;
}

/** What a summary block shows: also what the page's input hash takes (the body is pinned by the file's hash). */
export function summaryKey(summary: Summary | undefined, history: readonly HistoryVersion[]): unknown {
  return summary ? [summary.path, summary.sha256, history.map((v) => [v.path, v.size, v.mtimeMs])] : null;
}

export function summaryBlock(
  vaultDir: string,
  summary: Summary | undefined,
  body: (summary: Summary) => string,
  budget: number | undefined,
  history: readonly HistoryVersion[],
  label = 'Summary',
): Safe {
  if (!summary)
    return html`<h2>${label}</h2><p class="muted">No summary of this period (yet): a period is summarized once it is complete.</p>`;
  const { meta } = summary;
  const over = budget !== undefined && meta.tokens > budget;
  const edited = summary.bodyHash !== meta.output_hash;
  return html`<h2>${label}</h2>
<p class="meta">${meta.tier} ${meta.period} (${meta.start} to ${meta.end}) · <span${over ? html` class="flag"` : ''}>${meta.tokens} tokens${
    budget !== undefined ? ` of ${budget}` : ''
  }</span> · ${meta.bytes} bytes · ${meta.memories} memories · ${meta.generator.provider}${
    meta.generator.model && meta.generator.model !== 'none' ? `/${meta.generator.model}` : ''
  }${meta.review?.length ? html` · <span class="flag">${meta.review.join(', ')}</span>` : ''}${
    edited ? html` · <span class="flag">edited by hand</span>` : ''
  } · <code>${summary.path}</code></p>
<div class="summary">${renderMarkdown(body(summary))}</div>
${meta.dropped?.length ? html`<p class="meta">Dropped (did not fit): ${meta.dropped.join('; ')}</p>` : ''}
${historyBlock(vaultDir, history)}`;
}

/** Earlier versions of a summary (`history/`), newest first, each folded away. */
export function historyBlock(vaultDir: string, history: readonly HistoryVersion[]): Safe {
  if (history.length === 0) return html``;
  return html`<h3>Earlier versions (history/)</h3>${history.map((version) => {
    let text = '';
    try {
      text = frontmatterBody(readFileSync(path.join(vaultDir, version.path), 'utf8'));
    } catch {
      text = '(unreadable)';
    }
    return html`<details><summary>Replaced at ${stampLabel(version.stamp)} · <code>${version.path}</code></summary><div class="summary">${renderMarkdown(text)}</div></details>`;
  })}`;
}

/** `20261122-060000` → `2026-11-22 06:00:00 UTC`. */
function stampLabel(stamp: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(-\d+)?$/.exec(stamp);
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]} UTC${m[7] ? ` (${m[7].slice(1)})` : ''}` : stamp;
}

export function pager(
  from: string,
  previous: { label: string; to: string } | undefined,
  next: { label: string; to: string } | undefined,
): Safe {
  return html`<nav class="pager" aria-label="Previous and next">${
    previous ? html`<a rel="prev" href="${hrefTo(from, previous.to)}">← ${previous.label}</a>` : html`<span></span>`
  }${next ? html`<a rel="next" href="${hrefTo(from, next.to)}">${next.label} →</a>` : html`<span></span>`}</nav>`;
}
