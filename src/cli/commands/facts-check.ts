import { DEFAULT_MAX_PAIRS, type FactsCheckReport, runFactsCheck } from '../../facts/check.js';
import { formatDiagnostic } from '../../messages/diagnostic.js';
import { openVault, pickStream } from '../../read/vault.js';
import { UserError } from '../../util/errors.js';
import { renderJson } from '../render/json.js';

/** Least time between two progress lines on stderr: a short check prints none. */
const PROGRESS_EVERY_MS = 2000;

/**
 * `memvault facts --check [--max-pairs N] [--stream S] [--json]`: pairs of
 * decisions and facts on one subject that the model of the active LLM
 * profile judges contradicting, for a person to confirm. Writes only its
 * answer cache (`.memvault/facts-check.json`) and the search index a build
 * would write. A fault that stops every later request (bad key, unknown
 * model, unreachable server) prints what was found, then fails.
 */
export async function factsCheckCommand(
  root: string,
  options: { stream?: string; maxPairs?: string; json?: boolean; now?: string },
): Promise<void> {
  const maxPairs = options.maxPairs === undefined ? DEFAULT_MAX_PAIRS : Number(options.maxPairs);
  if (!Number.isInteger(maxPairs) || maxPairs < 1)
    throw new UserError('cli/number', `--max-pairs \`${options.maxPairs}\` is not a positive whole number`, {
      flag: '--max-pairs',
      example: 20,
    });
  const vault = await openVault(root);
  const streams = options.stream ? [pickStream(vault, options.stream).name] : undefined;
  let last = Date.now();
  const report = await runFactsCheck(vault, {
    maxPairs,
    ...(streams ? { streams } : {}),
    progress: (done, total) => {
      if (done === total || Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      process.stderr.write(`memvault: facts --check ${done}/${total} pairs\n`);
    },
  });
  for (const problem of report.problems) process.stderr.write(`${formatDiagnostic(problem)}\n`);
  process.stdout.write(options.json ? renderJson(reportJson(report)) : renderCheck(report));
  if (report.stopped) {
    const reason = `facts --check stopped after ${report.checked} of ${report.selected} pairs: ${report.stopped}`;
    throw new UserError(
      'llm/failed',
      reason,
      {},
      { hint: 'check the server, the model name and the key of the profile; answers so far are cached' },
    );
  }
}

function reportJson(report: FactsCheckReport) {
  return {
    judge: report.judge,
    candidates: report.candidates,
    pairs: { found: report.found, selected: report.selected, checked: report.checked, asked: report.asked, cached: report.cached },
    requests: report.requests,
    contradictions: report.findings,
    failed: report.failed,
    ...(report.stopped ? { stopped: report.stopped } : {}),
  };
}

/** Text output: each likely contradiction with both places, the model's reason and its confidence. */
function renderCheck(report: FactsCheckReport): string {
  const lines: string[] = [];
  const count = report.findings.length;
  lines.push(
    `${count} likely contradiction${count === 1 ? '' : 's'} in ${report.checked} pair${report.checked === 1 ? '' : 's'} ` +
      `of ${report.candidates} decisions and facts (${report.judge}: ${report.asked} asked, ${report.cached} cached` +
      `${report.found > report.selected ? `; ${report.found - report.selected} more pairs past --max-pairs` : ''})`,
  );
  report.findings.forEach((finding, i) => {
    const side = (s: FactsCheckReport['findings'][number]['a']) => `${s.path}${s.title ? ` (${s.title})` : ''}`;
    lines.push('', `${i + 1}. ${side(finding.a)}`, `   vs ${side(finding.b)}`);
    lines.push(`   ${finding.reason || '(no reason given)'} [confidence ${finding.confidence.toFixed(2)}]`);
  });
  if (count > 0)
    lines.push('', 'The model may be wrong: confirm each, then edit a memory (`supersedes:`) or record facts and `memvault resolve`.');
  if (report.failed.length > 0) {
    lines.push('', `Not judged (asked again next time):`);
    for (const failed of report.failed) lines.push(`  ${failed.a} vs ${failed.b}: ${failed.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
