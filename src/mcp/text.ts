import { citationLine } from '../citations/line.js';
import { oneLine } from '../text/safe-text.js';
import { counted } from '../text/plural.js';

/**
 * The text part of each tool's answer, for clients that show only text; the
 * data is in `structuredContent` (the operation's result). Short: a model
 * reads every line of it.
 */

// biome-ignore lint/suspicious/noExplicitAny: each renderer reads its own operation's result, checked by that operation's schema.
type Result = any;

const RENDER: Record<string, (result: Result) => string> = {
  context: (r) => r.context || '(nothing in memory yet)',
  search: (r) =>
    r.hits.length === 0
      ? 'No matches.'
      : r.hits
          .map(
            (h: Result, i: number) =>
              `${i + 1}. ${h.path}:${h.line} (${h.tier === 'memories' ? h.kind : h.tier} ${h.period})\n   ${h.snippet}` +
              // What the memory cites and how it stands (src/citations/): a stale one says so before the model trusts it.
              (h.citations ? `\n   ${citationLine(h.citations)}` : ''),
          )
          .join('\n'),
  zoom: (r) => {
    const parts: string[] = r.memories.map(
      (m: Result) =>
        `## ${m.date} ${oneLine(m.title ?? '')} (${m.path})\n${m.citations ? `${citationLine(m.citations)}\n\n` : ''}${m.body}`,
    );
    for (const s of r.summaries) parts.push(`## ${s.tier} ${s.period} (${s.path})\n${s.body ?? ''}`);
    if (parts.length === 0) parts.push('No memories in this period.');
    if (r.page.pages > 1) parts.push(`Page ${r.page.page} of ${r.page.pages}; ask for page ${r.page.page + 1} for more.`);
    return parts.join('\n\n');
  },
  add_memory: (r) => {
    const redacted = r.redactions.reduce((n: number, x: Result) => n + x.count, 0);
    return `Saved ${r.vault_path} (id ${r.id})${redacted ? `; ${redacted} secret(s) redacted` : ''}.`;
  },
  status: (r) =>
    r.streams
      .map(
        (s: Result) =>
          `${s.name}: ${counted(s.memories, 'memory', 'memories')} (${s.pinned} pinned), ${s.coverage.first_day ?? 'none'} to ${s.coverage.last_day ?? 'none'}; ` +
          `package ${s.package ? `${s.package.tokens}/${s.package.max_tokens} tokens` : 'not built'}; ` +
          `most used: ${(s.usage?.most_used ?? []).map((u: Result) => `${u.id} (${u.count})`).join(', ') || 'none yet'}`,
      )
      .join('\n') || 'The vault has no streams yet.',
  facts: (r) => {
    const lines = r.facts.map((f: Result) => `${f.key}${f.scope ? ` (${f.scope})` : ''} = ${oneLine(f.value)}  [${f.path}:${f.line}]`);
    for (const c of r.contradictions)
      lines.push(`contradiction ${c.id}: ${c.key} is ${oneLine(c.a.value)} (${c.a.path}) and ${oneLine(c.b.value)} (${c.b.path})`);
    return lines.join('\n') || `No facts hold on ${r.at}.`;
  },
};

export function toolText(tool: string, result: Result): string {
  return RENDER[tool]?.(result) ?? JSON.stringify(result);
}
