import path from 'node:path';
import { build, ConfigInvalidError, type BuildReport, type ProgressEvent } from '../../pipeline/build.js';
import { findRoot, resolveNow } from '../context.js';
import { formatDiagnostic, num } from '../output.js';

export interface BuildCommandOptions {
  root?: string;
  now?: string;
  force?: boolean;
  through?: string;
  dryRun?: boolean;
  commit?: boolean;
  json?: boolean;
}

/** `memvault build`: runs the pipeline and prints a report (or JSON). */
export async function buildCommand(options: BuildCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const progress = process.stderr.isTTY && !options.json ? terminalProgress() : undefined;
  let report: BuildReport;
  try {
    report = await build({
      root,
      now: resolveNow(options.now),
      force: options.force ?? false,
      ...(options.through ? { through: options.through } : {}),
      dryRun: options.dryRun ?? false,
      ...(progress ? { onProgress: progress.update } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigInvalidError) for (const d of error.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
    throw error;
  } finally {
    progress?.done();
  }
  for (const d of report.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(renderReport(report));
}

function renderReport(report: BuildReport): string {
  const lines: string[] = [`memvault build${report.dryRun ? ' --dry-run' : ''} as of ${report.now} (${report.generator.provider}/${report.generator.model})`];
  for (const stream of report.streams) {
    if (report.dryRun) {
      const counts = countBy(stream.planned.map((p) => p.tier));
      lines.push(`  ${stream.name}: ${num(stream.memories)} memories; would generate ${Object.entries(counts).map(([tier, n]) => `${n} ${tier}`).join(', ') || 'nothing'}`);
      for (const p of stream.planned.slice(0, 20)) lines.push(`    ${p.tier} ${p.period} (${p.reason})`);
      if (stream.planned.length > 20) lines.push(`    … ${stream.planned.length - 20} more`);
      continue;
    }
    const tiers = Object.entries(stream.tiers)
      .filter(([, s]) => s.created + s.updated > 0)
      .map(([tier, s]) => `${tier} ${s.created > 0 ? `+${s.created}` : ''}${s.updated > 0 ? ` ~${s.updated}` : ''}${s.flagged > 0 ? ` (${s.flagged} over budget)` : ''}`.replace('  ', ' '));
    const calls = Object.values(stream.tiers).reduce((sum, s) => sum + s.calls, 0);
    const future = stream.future > 0 ? ` (+${num(stream.future)} dated after now, left for later)` : '';
    lines.push(`  ${stream.name}: ${num(stream.memories)} memories${future}; ${tiers.length > 0 ? tiers.join(', ') : 'all summaries up to date'}; ${calls} LLM calls`);
    if (stream.package) {
      const p = stream.package;
      const notes = [p.degraded > 0 ? `${p.degraded} degraded` : '', p.leftOut > 0 ? `${p.leftOut} left out` : ''].filter(Boolean).join(', ');
      lines.push(`  ${stream.name}: ${path.join(report.vault, p.path)} ${num(p.tokens)} tokens, ${num(p.bytes)} bytes${p.changed ? '' : ' (unchanged)'}${notes ? ` (${notes})` : ''}`);
    }
    for (const held of stream.held) lines.push(`  ${stream.name}: kept ${held.path} (${held.status})`);
    for (const deferred of stream.deferred) lines.push(`  ${stream.name}: deferred ${deferred.tier} ${deferred.period}: ${deferred.reason}`);
  }
  const invalid = report.diagnostics.filter((d) => d.severity === 'error').length;
  lines.push(`  ${report.written.length} files written, ${report.stats.parsed} of ${report.stats.files} files parsed, ${(report.stats.ms / 1000).toFixed(2)} s${invalid > 0 ? `; ${invalid} invalid file(s) skipped (listed above)` : ''}`);
  return `${lines.join('\n')}\n`;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function terminalProgress(): { update: (event: ProgressEvent) => void; done: () => void } {
  let shown = false;
  return {
    update: (event) => {
      shown = true;
      process.stderr.write(`\r\x1b[K  ${event.stream} ${event.tier} ${event.done}/${event.total}`);
    },
    done: () => {
      if (shown) process.stderr.write('\r\x1b[K');
    },
  };
}
