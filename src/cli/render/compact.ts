import type { CompactReport } from '../../pipeline/waterfall/compact.js';
import { renderWouldWrite } from './build.js';
import { renderWaterfallReport } from './waterfall.js';

/** The text report of `memvault compact`; `flags` are the ones it ran with, named in the heading. */
export function renderCompactReport(report: CompactReport, flags: { force: boolean; rebuild: boolean }): string {
  const lines = [
    `memvault compact${report.dryRun ? ' --dry-run' : ''}${flags.force ? ' --force' : ''}${flags.rebuild ? ' --rebuild' : ''} as of ${report.now}`,
  ];
  for (const stream of report.streams)
    lines.push(...renderWaterfallReport(stream, report.vault, { dryRun: report.dryRun, hintForce: !flags.force }));
  if (report.wouldWrite) lines.push(renderWouldWrite(report.wouldWrite, 'compacting'));
  return `${lines.join('\n')}\n`;
}
