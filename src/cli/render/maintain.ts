import type { ConsolidationPlan } from '../../maintain/consolidate.js';

/** `memvault consolidate` as text: each group with the memory kept and its copies. */
export function renderConsolidation(plans: readonly ConsolidationPlan[], applied: boolean): string {
  const lines: string[] = [];
  for (const plan of plans) {
    const copies = plan.groups.reduce((sum, group) => sum + group.duplicates.length, 0);
    lines.push(
      `${plan.stream}: ${plan.groups.length} group(s) of near-duplicates, ${copies} cop${copies === 1 ? 'y' : 'ies'} (Jaccard ≥ ${plan.threshold})`,
    );
    for (const group of plan.groups) {
      lines.push(`  keep ${group.keep.path}`);
      for (const duplicate of group.duplicates)
        lines.push(`    ${applied ? 'marked' : 'copy  '} ${duplicate.path}  (${duplicate.similarity})`);
    }
    if (plan.alreadyMarked > 0)
      lines.push(`  ${plan.alreadyMarked} memor${plan.alreadyMarked === 1 ? 'y was' : 'ies were'} marked duplicate_of before`);
    for (const mark of plan.hidingValues)
      lines.push(
        `  ${mark.path} is marked duplicate_of ${mark.duplicate_of} but states ${mark.values.join(', ')} that it does not: summaries leave it out (remove its \`duplicate_of\` line to bring it back)`,
      );
  }
  const total = plans.reduce((sum, plan) => sum + plan.groups.length, 0);
  if (total > 0) {
    lines.push(
      applied
        ? 'Each copy got `duplicate_of: <kept id>`: it stays in place, summaries and contexts leave it out. Remove the line to undo.'
        : 'Nothing written: run `memvault consolidate --apply` to mark the copies (reversible, nothing is deleted).',
    );
  }
  return `${lines.join('\n')}\n`;
}
