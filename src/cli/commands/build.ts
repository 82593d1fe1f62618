import path from 'node:path';
import { build, type BuildReport } from '../../pipeline/build.js';
import type { BuildPool } from '../../pipeline/workers/build-pool.js';
import { incompleteCounts } from '../../pipeline/build-report.js';
import { UserError } from '../../util/errors.js';
import { findRoot, resolveNow } from '../context.js';
import { formatDiagnostic, useColor } from '../output.js';
import { createProgress } from '../progress.js';
import { renderBuildReport } from '../render/build.js';
import { renderJson } from '../render/json.js';

export interface BuildCommandOptions {
  root?: string;
  now?: string;
  force?: boolean;
  through?: string;
  dryRun?: boolean;
  commit?: boolean;
  /** `--regenerate PATH` (repeatable): hand-edited summaries to generate again. */
  regenerate?: string[];
  json?: boolean;
  /** Exit 1 when a rollup failed or was flagged over budget (default: report it and exit 0). */
  strict?: boolean;
}

/** `memvault build`: runs the pipeline and prints a report (or JSON). `pool`: the build's worker threads (pipeline/build-pool.ts). */
export async function buildCommand(options: BuildCommandOptions, pool?: BuildPool): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  // A bar on a terminal, plain lines in logs; JSON goes to stdout, so progress on stderr never mixes with it.
  const progress = options.dryRun ? undefined : createProgress({ stream: process.stderr, color: useColor(process.stderr) });
  let report: BuildReport;
  try {
    report = await build({
      root,
      ...(pool ? { pool } : {}),
      now: resolveNow(options.now),
      force: options.force ?? false,
      ...(options.through ? { through: options.through } : {}),
      dryRun: options.dryRun ?? false,
      ...(options.commit === false ? { commit: false } : {}),
      ...(options.regenerate && options.regenerate.length > 0 ? { regenerate: options.regenerate.map((file) => path.resolve(file)) } : {}),
      ...(progress ? { onProgress: progress.update, onParse: progress.parse } : {}),
    });
  } catch (error) {
    progress?.done();
    throw error;
  } finally {
    progress?.done();
  }
  for (const d of report.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  process.stdout.write(options.json ? renderJson(report) : renderBuildReport(report));
  if (options.strict) failIfIncomplete(report);
}

/** `--strict`: a build with failed or over-budget rollups is an error (exit 1), after the report is out. */
function failIfIncomplete(report: BuildReport): void {
  const { failed, flagged } = incompleteCounts(report);
  if (failed === 0 && flagged === 0) return;
  const parts = [
    failed > 0 ? `${failed} rollup${failed > 1 ? 's' : ''} failed` : '',
    flagged > 0 ? `${flagged} flagged over budget` : '',
  ].filter(Boolean);
  throw new UserError('build/incomplete', `build incomplete (--strict): ${parts.join(', ')}`);
}
