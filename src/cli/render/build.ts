import path from 'node:path';
import type { BuildReport, TierStats } from '../../pipeline/build.js';
import type { RecordedChange } from '../../pipeline/writer.js';
import { num } from '../output.js';
import { renderStreamPlan } from './plan.js';
import { renderWaterfallReport } from './waterfall.js';
import { counted } from '../../text/plural.js';

/** The text report of `memvault build` (and, for `--dry-run`, of its plan). */
export function renderBuildReport(report: BuildReport): string {
  const lines: string[] = [
    `memvault build${report.dryRun ? ' --dry-run' : ''} as of ${report.now} (${report.generator.provider}/${report.generator.model})`,
  ];
  for (const stream of report.streams) {
    if (report.dryRun) {
      lines.push(...renderStreamPlan(stream, report.vault));
      continue;
    }
    const tiers = Object.entries(stream.tiers)
      .filter(([, s]) => s.created + s.updated > 0)
      .map(([tier, s]) =>
        `${tier} ${s.created > 0 ? `+${s.created}` : ''}${s.updated > 0 ? ` ~${s.updated}` : ''}${s.flagged > 0 ? ` (${s.flagged} over budget)` : ''}`.replace(
          '  ',
          ' ',
        ),
      );
    const calls = Object.values(stream.tiers).reduce((sum, s) => sum + s.calls, 0);
    const future = stream.future > 0 ? ` (+${num(stream.future)} dated after now, left for later)` : '';
    lines.push(
      `  ${stream.name}: ${counted(stream.memories, 'memory', 'memories')}${future}; ${tiers.length > 0 ? tiers.join(', ') : 'all summaries up to date'}; ${counted(calls, 'LLM call')}`,
    );
    lines.push(...renderCost(stream.tiers));
    for (const f of stream.failed)
      lines.push(`  ${stream.name}: FAILED ${f.tier} ${f.period}: ${f.reason}${f.kept ? ' (the previous version is kept)' : ''}`);
    if (stream.failed.length > 0)
      lines.push(
        `  ${stream.name}: ${stream.failed.length} rollup${stream.failed.length > 1 ? 's' : ''} failed; ` +
          'the tiers above them wait and the next build retries them',
      );
    if (stream.package) {
      const p = stream.package;
      const notes = [p.degraded > 0 ? `${p.degraded} degraded` : '', p.leftOut > 0 ? `${p.leftOut} left out` : '']
        .filter(Boolean)
        .join(', ');
      const unchanged = p.changed ? '' : ' (unchanged)';
      lines.push(
        `  ${stream.name}: ${path.join(report.vault, p.path)} ${num(p.tokens)} tokens, ${num(p.bytes)} bytes${unchanged}${notes ? ` (${notes})` : ''}`,
      );
    }
    for (const held of stream.held) lines.push(`  ${stream.name}: kept ${held.path} (${held.status})`);
    for (const deferred of stream.deferred)
      lines.push(`  ${stream.name}: deferred ${deferred.tier} ${deferred.period}: ${deferred.reason}`);
  }
  for (const waterfall of report.waterfall) lines.push(...renderWaterfallReport(waterfall, report.vault, { dryRun: report.dryRun }));
  if (report.archived.length > 0)
    lines.push(
      `  ${report.dryRun ? 'would archive' : 'archived'} ${report.archived.length} file(s) to ` +
        [...new Set(report.archived.map((m) => `${m.stream}/archive/${m.quarter}`))].join(', '),
    );
  // Citations checked against the repository (src/citations/): said only when something is stale or was asked again.
  const cited = report.citations;
  if (cited && (cited.stale > 0 || cited.recheckedCitations > 0)) {
    lines.push(
      `  citations: ${cited.recheckedCitations} of ${cited.citations} checked again at ${cited.head.slice(0, 7)}, ` +
        `${cited.stale} stale memor${cited.stale === 1 ? 'y' : 'ies'} (\`memvault verify\`)`,
    );
    for (const s of cited.newlyStale.slice(0, 10)) lines.push(`  newly stale: ${s.path}: ${s.note}`);
    if (cited.newlyStaleCount > 10) lines.push(`  … and ${cited.newlyStaleCount - 10} more newly stale`);
  }
  const commit = report.commit;
  if (commit?.status === 'committed')
    lines.push(
      `  committed ${commit.oid.slice(0, 7)} on ${commit.branch}: ${commit.message.split('\n')[0]} (${counted(commit.files.length, 'file')})`,
    );
  else if (commit?.status === 'unchanged') lines.push(`  nothing to commit on ${commit.branch}`);
  else if (commit) lines.push(`  ${commit.note}`);
  // Files, not messages: a memory holding several secrets has one message per secret.
  const invalid = new Set(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.path)).size;
  const files = `${report.stats.read} of ${counted(report.stats.files, 'file')} read, ${report.stats.parsed} parsed`;
  if (report.wouldWrite) lines.push(renderWouldWrite(report.wouldWrite));
  lines.push(
    `  ${counted(report.written.length, 'file')} written, ${files}, ${(report.stats.ms / 1000).toFixed(2)} s` +
      (invalid > 0 ? `; ${invalid} invalid file(s) skipped (listed above)` : ''),
  );
  return `${lines.join('\n')}\n`;
}

/** A dry run: what a build (or `subject`) would write and move (`--dry-run --json` lists each file, `would_write`). */
export function renderWouldWrite(changes: readonly RecordedChange[], subject = 'a build'): string {
  const writes = changes.filter((c) => c.op === 'write');
  const moves = changes.length - writes.length;
  const bytes = writes.reduce((sum, c) => sum + c.bytes, 0);
  const estimated = writes.filter((c) => c.estimate).length;
  return (
    `  ${subject} would write ${counted(writes.length, 'file')} (${num(bytes)} bytes` +
    `${estimated > 0 ? `; ${estimated} made of placeholder summaries, their sizes estimates` : ''})` +
    `${moves > 0 ? ` and move ${counted(moves, 'file')}` : ''}`
  );
}

/** The cost table: one line per tier that called a model or failed, and a total. */
function renderCost(tiers: Record<string, TierStats>): string[] {
  const rows = Object.entries(tiers).filter(([, s]) => s.calls > 0 || s.failed > 0);
  if (rows.length === 0) return [];
  const line = (
    name: string,
    s: Pick<
      TierStats,
      'created' | 'updated' | 'merged' | 'failed' | 'calls' | 'inputTokens' | 'outputTokens' | 'retries' | 'sanitized' | 'ms'
    >,
  ): string => {
    const made = s.created + s.updated;
    const extra = [
      s.merged > 0 ? `${s.merged} merged` : '',
      s.failed > 0 ? `${s.failed} failed` : '',
      s.sanitized > 0 ? `${s.sanitized} cleaned` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const summaries = `${String(made).padStart(4)} ${made === 1 ? 'summary' : 'summaries'}${extra ? ` (${extra})` : ''}`;
    const tokens = `${num(s.inputTokens)} in + ${num(s.outputTokens)} out tokens`;
    return `    ${name.padEnd(9)} ${summaries}, ${counted(s.calls, 'call')}, ${tokens}, ${counted(s.retries, 'retry', 'retries')}, ${(s.ms / 1000).toFixed(1)} s`;
  };
  const total = rows.reduce(
    (sum, [, s]) => ({
      created: sum.created + s.created,
      updated: sum.updated + s.updated,
      merged: sum.merged + s.merged,
      failed: sum.failed + s.failed,
      calls: sum.calls + s.calls,
      inputTokens: sum.inputTokens + s.inputTokens,
      outputTokens: sum.outputTokens + s.outputTokens,
      retries: sum.retries + s.retries,
      sanitized: sum.sanitized + s.sanitized,
      ms: sum.ms + s.ms,
    }),
    { created: 0, updated: 0, merged: 0, failed: 0, calls: 0, inputTokens: 0, outputTokens: 0, retries: 0, sanitized: 0, ms: 0 },
  );
  return ['    LLM cost by tier:', ...rows.map(([tier, s]) => line(tier, s)), ...(rows.length > 1 ? [line('total', total)] : [])];
}
