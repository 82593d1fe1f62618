import type { Config } from '../../config/schema.js';
import type { VaultStatus } from '../../pipeline/status.js';
import { formatDiagnostic, num } from '../output.js';
import { renderUsage } from './usage.js';
import { renderWaterfallStatus } from './waterfall.js';
import { counted } from '../../text/plural.js';

/** The text of `memvault status`. `config` says which streams are waterfall-only (no calendar tiers nor package to show). */
export function renderStatus(status: VaultStatus, config: Config): string {
  const lines: string[] = [];
  const diagnostics = status.invalid;
  for (const s of status.streams) {
    const c = s.coverage;
    const coverage = c.first_day ? `${c.first_day} to ${c.last_day}, ${counted(c.days_with_memories, 'day')}` : 'no memories yet';
    lines.push(`${s.name}: ${counted(s.memories, 'memory', 'memories')} (${s.archived} archived, ${s.pinned} pinned), ${coverage}`);
    if (s.waterfall) lines.push(...renderWaterfallStatus(s.waterfall));
    // A waterfall-only stream (`calendar: false`) has no calendar tiers nor package to show.
    if (config.streams[s.name]?.calendar === false) continue;
    lines.push('  tier       count  tokens (max / budget)  retention (kept / must-keep)  review');
    for (const [tier, t] of Object.entries(s.tiers)) {
      const review = [
        t.over_budget.length > 0 ? `${t.over_budget.length} over budget` : '',
        t.edited.length > 0 ? `${t.edited.length} edited` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const r = t.retention;
      const retention = r.rate === null ? '-' : `${(r.rate * 100).toFixed(1)}% (${num(r.items - r.dropped)} / ${num(r.items)})`;
      const tokens = `${num(t.tokens_max)} / ${num(t.budget_tokens)}`;
      lines.push(`  ${tier.padEnd(9)} ${String(t.count).padStart(6)}  ${tokens.padStart(21)}  ${retention.padStart(28)}  ${review || '-'}`);
    }
    if (s.package) {
      const p = s.package;
      const trimmed = p.degraded + p.left_out > 0 ? `, ${p.degraded} degraded, ${p.left_out} left out` : '';
      lines.push(`  package: ${p.path} ${num(p.tokens)}/${num(p.max_tokens)} tokens, ${num(p.bytes)}/${num(p.max_bytes)} bytes${trimmed}`);
    } else lines.push('  package: not built yet (run `memvault build`)');
    if (s.usage) lines.push(...renderUsage(s.usage));
    if (s.facts) {
      const open = s.facts.contradictions;
      lines.push(`  facts: ${num(s.facts.in_force)} in force, ${open.length} unresolved contradiction${open.length === 1 ? '' : 's'}`);
      for (const c of open) {
        const side = (f: { value: string; date: string; path: string; line: number }) => `${f.value} (${f.date}, ${f.path}:${f.line})`;
        lines.push(`    ${c.id} ${c.key}${c.scope ? ` [${c.scope}]` : ''} = ${side(c.a)} vs ${side(c.b)}`);
      }
      if (open.length > 0) lines.push('    decide each: `memvault resolve <id> --keep a|b|both` (nothing is deleted)');
    }
    const m = s.maintenance;
    if (m && m.forgotten.count > 0)
      lines.push(
        `  forgotten: ${num(m.forgotten.count)} memor${m.forgotten.count === 1 ? 'y' : 'ies'} no retrieval used for ${m.forget_after_days} days ` +
          '(out of the package detail and the context; in summaries, zoom and search; a retrieval brings one back; `status --json` lists them)',
      );
    if (m && m.duplicates.count > 0)
      lines.push(`  duplicates: ${num(m.duplicates.count)} marked duplicate_of (left out of summaries, the package and the context)`);
  }
  const held = status.held_for_secrets;
  if (held.length > 0)
    lines.push(
      `held back for secrets: ${held.length} memor${held.length === 1 ? 'y' : 'ies'} ` +
        '(not summarized, packaged, sent or committed; `memvault redact PATH` or mark a false positive)',
    );
  if (diagnostics.length > 0) {
    lines.push(`invalid files (${diagnostics.length}):`);
    for (const d of diagnostics) lines.push(formatDiagnostic(d, '  '));
  }
  return `${lines.join('\n')}\n`;
}
