import path from 'node:path';
import type { WaterfallReport } from '../../pipeline/waterfall/build.js';
import type { WaterfallStatus } from '../../pipeline/waterfall/status.js';
import { num } from '../output.js';
import { counted } from '../../text/plural.js';

/** Lines describing one stream's waterfall run (or, in a dry run, its plan); `build` and `compact` print them. */
export function renderWaterfallReport(
  report: WaterfallReport,
  vault: string,
  options: { dryRun?: boolean; hintForce?: boolean } = {},
): string[] {
  const name = report.stream;
  const lines: string[] = [];
  if (options.dryRun) {
    for (const p of report.planned) {
      const fold = p.fold ? 'fold into long-term, then ' : '';
      lines.push(
        `  ${name}: would run compaction ${p.compaction} at ${counted(p.count, 'memory', 'memories')} (${p.reason}): ${fold}summarize ${counted(p.recent, 'memory', 'memories')} into recent`,
      );
    }
    if (report.planned.length === 0)
      lines.push(
        `  ${name}: no compaction due (${counted(report.memories, 'memory', 'memories')}; next at ${num(report.position.nextAt)})`,
      );
  }
  for (const c of report.compactions) {
    const made = (s: { tokens: number; generator: string; flagged: boolean }): string =>
      `${num(s.tokens)} tokens, ${s.generator}${s.flagged ? ', over budget' : ''}`;
    const fold = c.longterm ? `long-term ← memories 1-${c.longterm.memories} (${made(c.longterm)}); ` : '';
    const recent = `recent ← memories ${c.recent.positions[0]}-${c.recent.positions[1]} (${made(c.recent)})`;
    const reason = c.reason === 'threshold' ? '' : ` (${c.reason})`;
    const copy = path.posix.join(vault, c.recent.history);
    lines.push(
      `  ${name}: compaction ${c.compaction} at ${counted(c.count, 'memory', 'memories')}${reason}: ${fold}${recent}, copy ${copy}`,
    );
  }
  if (report.skipped) lines.push(`  ${name}: nothing to compact: ${report.skipped}`);
  if (report.failed)
    lines.push(`  ${name}: compaction ${report.failed.compaction} failed (${report.failed.kind}): ${report.failed.reason}`);
  if (!options.dryRun && report.compactions.length === 0 && !report.skipped && !report.failed) {
    const hint = options.hintForce ? '; `memvault compact --force` compacts now' : '';
    lines.push(
      `  ${name}: no compaction due (${counted(report.position.sinceLast, 'memory', 'memories')} since the last; next at ${num(report.position.nextAt)})${hint}`,
    );
  }
  const l = report.layers;
  if (!options.dryRun)
    lines.push(
      `  ${name}: ${counted(report.memories, 'memory', 'memories')}: long-term ${num(l.longterm)}, recent ${num(l.recent)}, verbatim ${num(l.immediate)}; ` +
        `next compaction at ${num(report.position.nextAt)}`,
    );
  const context = report.context;
  if (context) {
    const size = context.tokens !== undefined ? ` ${num(context.tokens)}/${num(context.maxTokens)} tokens` : '';
    const trimmed = [context.shortened ? `${context.shortened} shortened` : '', context.leftOut ? `${context.leftOut} left out` : '']
      .filter(Boolean)
      .join(', ');
    const unchanged = context.changed ? '' : ' (unchanged)';
    lines.push(`  ${name}: ${path.posix.join(vault, context.path)}${size}${unchanged}${trimmed ? ` (${trimmed} to fit)` : ''}`);
  }
  for (const note of report.notes) lines.push(`  ${name}: ${note}`);
  return lines;
}

/** Text lines of a waterfall status, for `memvault status`. */
export function renderWaterfallStatus(status: WaterfallStatus): string[] {
  const lines: string[] = [];
  const { layers, integrity } = status;
  const windows = `immediate ${status.windows.immediate}, recent ${status.windows.recent}`;
  lines.push(
    `  waterfall: compaction ${status.compaction} at ${counted(status.compacted_at_count, 'memory', 'memories')}, ${status.since_last_compaction} since; ` +
      `next at ${status.next_compaction_at} (${windows})`,
  );
  lines.push(`  layers: long-term ${layers.longterm}, recent ${layers.recent}, immediate ${layers.immediate} (verbatim)`);
  for (const [name, s] of Object.entries(status.summaries)) {
    if (!s) continue;
    const flags = [s.over_budget ? 'over budget' : '', s.edited ? 'edited' : ''].filter(Boolean).join(', ');
    const sizes = `${s.tokens}/${s.budget_tokens} tokens, ${s.bytes}/${s.budget_bytes} bytes`;
    lines.push(`  ${name.padEnd(9)} ${s.path}: ${counted(s.memories, 'memory', 'memories')}, ${sizes}${flags ? ` (${flags})` : ''}`);
  }
  if (status.context)
    lines.push(
      `  context: ${status.context.path} ${status.context.tokens}/${status.context.max_tokens} tokens` +
        (status.context.stale ? ' (stale: run `memvault build`)' : ''),
    );
  else lines.push('  context: not built yet (run `memvault build`)');
  const a = integrity.accounted;
  const problems = integrity.ok ? 'ok' : `${integrity.problems.length} problem${integrity.problems.length === 1 ? '' : 's'}`;
  const unchanged = `${integrity.sources.checked - integrity.sources.changed.length}/${integrity.sources.checked} sources unchanged`;
  lines.push(
    `  integrity: ${problems}; ${a.in_one_layer}/${a.memories} memories in exactly one layer; ${unchanged}; ` +
      `${integrity.history.present}/${integrity.history.recent_summaries} history copies`,
  );
  for (const problem of integrity.problems) lines.push(`    ${problem.check}: ${problem.path}: ${problem.reason}`);
  return lines;
}
