import { html, type Safe } from './html.js';

/**
 * Inline SVG charts: no script, no network, readable without colour (each chart has a text alternative and a table).
 * Pure: data in, markup out.
 */

export interface BudgetPoint {
  /** The period's start day, `YYYY-MM-DD`. */
  start: string;
  label: string;
  tokens: number;
}

const W = 720;
const H = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

/** Tokens of each summary of a tier over time (bars), against the tier's budget (a line). */
export function budgetChart(title: string, points: readonly BudgetPoint[], budget: number): Safe {
  if (points.length === 0) return html`<p class="muted">No ${title.toLowerCase()} yet.</p>`;
  const max = Math.max(budget, ...points.map((p) => p.tokens)) * 1.1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / points.length;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const over = points.filter((p) => p.tokens > budget).length;
  const label = `${title}: ${points.length} summaries from ${points[0]!.start} to ${points.at(-1)!.start}, budget ${budget} tokens, largest ${Math.max(...points.map((p) => p.tokens))}, ${over} over budget.`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${label}">
<title>${label}</title>
${axis(max, y)}
${points.map((p, i) => {
  const x = PAD.left + i * step + step * 0.1;
  const top = y(p.tokens);
  return html`<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, step * 0.8).toFixed(1)}" height="${(PAD.top + plotH - top).toFixed(1)}" fill="${
    p.tokens > budget ? '#b3261e' : '#3d6fb6'
  }"><title>${p.label}: ${p.tokens} tokens</title></rect>`;
})}
<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(budget).toFixed(1)}" y2="${y(budget).toFixed(1)}" stroke="#1b1b1b" stroke-width="2" stroke-dasharray="6 4"></line>
<text x="${W - PAD.right}" y="${(y(budget) - 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#1b1b1b">budget ${budget}</text>
<text x="${PAD.left}" y="${H - 8}" font-size="12" fill="#1b1b1b">${points[0]!.start}</text>
<text x="${W - PAD.right}" y="${H - 8}" font-size="12" text-anchor="end" fill="#1b1b1b">${points.at(-1)!.start}</text>
</svg>
<figcaption class="legend"><span><span class="swatch sw-blue"></span>within budget</span><span><span class="swatch sw-red"></span>over budget</span><span>- - - budget (${budget} tokens)</span></figcaption>
</figure>`;
}

/** Memories per day, one bar per day that has any (days without memories are gaps). */
export function perDayChart(counts: readonly { day: string; count: number }[]): Safe {
  if (counts.length === 0) return html`<p class="muted">No memories yet.</p>`;
  const first = Date.parse(`${counts[0]!.day}T00:00:00Z`);
  const last = Date.parse(`${counts.at(-1)!.day}T00:00:00Z`);
  const days = Math.round((last - first) / 86_400_000) + 1;
  const max = Math.max(...counts.map((c) => c.count));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / days;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  const label = `Memories per day: ${total} memories on ${counts.length} of ${days} days from ${counts[0]!.day} to ${counts.at(-1)!.day}, at most ${max} a day.`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${label}">
<title>${label}</title>
${axis(max, y)}
${counts.map((c) => {
  const i = Math.round((Date.parse(`${c.day}T00:00:00Z`) - first) / 86_400_000);
  const top = y(c.count);
  return html`<rect x="${(PAD.left + i * step).toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, step * 0.85).toFixed(2)}" height="${(PAD.top + plotH - top).toFixed(1)}" fill="#3d6fb6"><title>${c.day}: ${c.count}</title></rect>`;
})}
<text x="${PAD.left}" y="${H - 8}" font-size="12" fill="#1b1b1b">${counts[0]!.day}</text>
<text x="${W - PAD.right}" y="${H - 8}" font-size="12" text-anchor="end" fill="#1b1b1b">${counts.at(-1)!.day}</text>
</svg>
</figure>`;
}

export interface PackageCounts {
  tier: string;
  included: number;
  degraded: number;
  leftOut: number;
}

/** What the package kept, degraded and left out, per tier: one stacked bar each. */
export function packageChart(rows: readonly PackageCounts[]): Safe {
  if (rows.length === 0) return html`<p class="muted">No package manifest yet: run <code>memvault build</code>.</p>`;
  const rowH = 26;
  const height = rows.length * rowH + 16;
  const max = Math.max(...rows.map((r) => r.included + r.degraded + r.leftOut), 1);
  const plotW = W - 120 - PAD.right;
  const colours = { included: '#2e7d32', degraded: '#b26a00', leftOut: '#b3261e' } as const;
  const label = `What the package kept: ${rows.map((r) => `${r.tier} ${r.included} kept, ${r.degraded} degraded, ${r.leftOut} left out`).join('; ')}.`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${label}">
<title>${label}</title>
${rows.map((r, i) => {
  let x = 120;
  const yTop = 8 + i * rowH;
  const parts = (['included', 'degraded', 'leftOut'] as const).map((key) => {
    const width = (r[key] / max) * plotW;
    const rect = html`<rect x="${x.toFixed(1)}" y="${yTop}" width="${width.toFixed(1)}" height="${rowH - 8}" fill="${colours[key]}"><title>${r.tier}: ${r[key]} ${key === 'leftOut' ? 'left out' : key}</title></rect>`;
    x += width;
    return rect;
  });
  return html`<text x="112" y="${yTop + 13}" text-anchor="end" font-size="12" fill="#1b1b1b">${r.tier}</text>${parts}`;
})}
</svg>
<figcaption class="legend"><span><span class="swatch sw-green"></span>kept</span><span><span class="swatch sw-amber"></span>degraded</span><span><span class="swatch sw-red"></span>left out</span></figcaption>
</figure>`;
}

function axis(max: number, y: (v: number) => number): Safe {
  const ticks = [0, Math.round(max / 2), Math.round(max / 1.1)];
  return html`${ticks.map(
    (t) =>
      html`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#d0d0d0"></line><text x="${PAD.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#1b1b1b">${t}</text>`,
  )}`;
}
