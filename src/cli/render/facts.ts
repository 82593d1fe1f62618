import { compressFact, contradictionDiagnostic, describeContradiction } from '../../facts/collect.js';
import type { Contradiction, Fact, TimedFact } from '../../vault/fact-model.js';
import type { ResolutionPlan } from '../../facts/resolve.js';
import { formatDiagnostic } from '../../messages/diagnostic.js';
import type { FactsView } from '../../facts/view.js';

/** `memvault facts` as text: what holds on the day, each key's history with `--all`, then the open contradictions. */
export function renderFacts(view: FactsView): string {
  const lines: string[] = [];
  lines.push(`Facts holding on ${view.at} (${view.holding.length}):`);
  if (view.holding.length === 0) lines.push('  (none)');
  for (const fact of view.holding) lines.push(`  ${compressFact(fact)}  — ${place(fact)}, since ${fact.validFrom}`);
  if (view.history) {
    lines.push('', 'History, per key:');
    for (const entry of view.history) {
      lines.push(`  ${entry.key}${entry.scope ? ` (${entry.scope})` : ''}`);
      for (const fact of entry.facts) lines.push(`    ${window(fact)}  ${fact.value}  — ${place(fact)}${replacedBy(fact)}`);
    }
  }
  lines.push('', `Contradictions (${view.contradictions.length}):`);
  if (view.contradictions.length === 0) lines.push('  none: every key has one value at a time');
  for (const contradiction of view.contradictions) lines.push(...renderContradiction(contradiction));
  // The same as warnings with their places, as build and editors read them.
  const warnings = [...view.contradictions.map(contradictionDiagnostic), ...view.problems];
  if (warnings.length > 0) lines.push('', ...warnings.map((warning) => formatDiagnostic(warning)));
  return `${lines.join('\n')}\n`;
}

export function renderContradiction(contradiction: Contradiction): string[] {
  return [
    `  ${contradiction.id}  ${describeContradiction(contradiction)}`,
    `      both hold since ${contradiction.since}; decide: memvault resolve ${contradiction.id} --keep a|b|both`,
  ];
}

// One JSON shape for a contradiction wherever it is printed (`facts --json`, `resolve --json`, `status --json`).
export { contradictionJson } from '../../facts/surface.js';

export function renderResolution(plan: ResolutionPlan, dryRun: boolean): string {
  const verb = dryRun ? 'would write' : 'wrote';
  const kept =
    plan.keep === 'both'
      ? 'both facts hold'
      : `kept ${plan.keep} (${plan.keep === 'a' ? plan.contradiction.a.value : plan.contradiction.b.value})`;
  const lines = [`${plan.contradiction.id} ${plan.contradiction.key}: ${kept}`];
  for (const edit of plan.edits) lines.push(`  ${verb} ${edit.path}: ${edit.change}`);
  if (!dryRun) lines.push('The next `memvault build` commits the edit; nothing was deleted.');
  return `${lines.join('\n')}\n`;
}

const place = (fact: Fact) => `${fact.path}:${fact.line}`;
const window = (fact: TimedFact) => `${fact.validFrom} → ${fact.effectiveTo ?? 'now'}`.padEnd(25);
const replacedBy = (fact: TimedFact) => (fact.supersededBy.length > 0 ? ` (superseded by ${fact.supersededBy.join(', ')})` : '');
