import path from 'node:path';
import type { WaterfallReport } from '../../pipeline/waterfall-build.js';
import { findRoot, resolveNow } from '../context.js';
import { num } from '../output.js';

export interface CompactCommandOptions {
  root?: string;
  stream?: string;
  force?: boolean;
  rebuild?: boolean;
  now?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `memvault compact`: the waterfall of the agent streams now (`--force`: whatever the count), without the calendar rollups. */
export async function compactCommand(options: CompactCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const { compactVault } = await import('../../pipeline/waterfall-build.js');
  const report = await compactVault({
    root,
    now: resolveNow(options.now),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    force: options.force ?? false,
    rebuild: options.rebuild ?? false,
    dryRun: options.dryRun ?? false,
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const lines = [
    `memvault compact${report.dryRun ? ' --dry-run' : ''}${options.force ? ' --force' : ''}${options.rebuild ? ' --rebuild' : ''} as of ${report.now}`,
  ];
  for (const stream of report.streams)
    lines.push(...renderWaterfallReport(stream, report.vault, { dryRun: report.dryRun, hintForce: !options.force }));
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Lines describing one stream's waterfall run; `memvault build` prints them too. */
export function renderWaterfallReport(
  report: WaterfallReport,
  vault: string,
  options: { dryRun?: boolean; hintForce?: boolean } = {},
): string[] {
  const name = report.stream;
  const lines: string[] = [];
  if (options.dryRun) {
    for (const p of report.planned)
      lines.push(
        `  ${name}: would run compaction ${p.compaction} at ${p.count} memories (${p.reason}): ${p.fold ? 'fold into long-term, then ' : ''}summarize ${p.recent} memories into recent`,
      );
    if (report.planned.length === 0)
      lines.push(`  ${name}: no compaction due (${num(report.memories)} memories; next at ${num(report.position.nextAt)})`);
  }
  for (const c of report.compactions) {
    const fold = c.longterm
      ? `long-term ← memories 1-${c.longterm.memories} (${num(c.longterm.tokens)} tokens, ${c.longterm.generator}${c.longterm.flagged ? ', over budget' : ''}); `
      : '';
    lines.push(
      `  ${name}: compaction ${c.compaction} at ${num(c.count)} memories${c.reason === 'threshold' ? '' : ` (${c.reason})`}: ${fold}recent ← memories ${c.recent.positions[0]}-${c.recent.positions[1]} (${num(c.recent.tokens)} tokens, ${c.recent.generator}${c.recent.flagged ? ', over budget' : ''}), copy ${path.posix.join(vault, c.recent.history)}`,
    );
  }
  if (report.skipped) lines.push(`  ${name}: nothing to compact: ${report.skipped}`);
  if (report.failed)
    lines.push(`  ${name}: compaction ${report.failed.compaction} failed (${report.failed.kind}): ${report.failed.reason}`);
  if (!options.dryRun && report.compactions.length === 0 && !report.skipped && !report.failed) {
    lines.push(
      `  ${name}: no compaction due (${num(report.position.sinceLast)} memories since the last; next at ${num(report.position.nextAt)})${options.hintForce ? '; `memvault compact --force` compacts now' : ''}`,
    );
  }
  const l = report.layers;
  if (!options.dryRun)
    lines.push(
      `  ${name}: ${num(report.memories)} memories: long-term ${num(l.longterm)}, recent ${num(l.recent)}, verbatim ${num(l.immediate)}; next compaction at ${num(report.position.nextAt)}`,
    );
  const context = report.context;
  if (context) {
    const size = context.tokens !== undefined ? ` ${num(context.tokens)}/${num(context.maxTokens)} tokens` : '';
    const trimmed = [context.shortened ? `${context.shortened} shortened` : '', context.leftOut ? `${context.leftOut} left out` : '']
      .filter(Boolean)
      .join(', ');
    lines.push(
      `  ${name}: ${path.posix.join(vault, context.path)}${size}${context.changed ? '' : ' (unchanged)'}${trimmed ? ` (${trimmed} to fit)` : ''}`,
    );
  }
  for (const note of report.notes) lines.push(`  ${name}: ${note}`);
  return lines;
}
