import type { FactsCheckReport } from '../../facts-check/check.js';

/** `memvault facts --check --json`: the report's counts, the likely contradictions and the pairs not judged. */
export function factsCheckJson(report: FactsCheckReport) {
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

/** `memvault facts --check` as text: each likely contradiction with both places, the model's reason and its confidence. */
export function renderFactsCheck(report: FactsCheckReport): string {
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
