import { stringifyFrontmatter } from '../../vault/frontmatter.js';
import { type PackageFacts, renderFactsInForce, renderUnresolved } from './facts.js';
import { memoryHeading } from './items.js';
import type { Item, PackageInput } from './model.js';

/** The package's text: header, critical section, history from oldest to newest, and what was left out. */

/** `facts`: the stream's open contradictions and facts in force (absent when no memory states a fact). */
export function renderPackage(
  input: PackageInput,
  firstDay: string | null,
  critical: readonly Item[],
  history: readonly Item[],
  facts?: PackageFacts,
): string {
  const { stream, bands } = input;
  const front = { memvault: 'package', stream, covers: firstDay ? `${firstDay} to ${bands.today}` : 'nothing yet' };
  const parts: string[] = [`# Memory of ${stream}`];
  if (!firstDay) {
    parts.push(
      `No memories yet. Add one with \`memvault add "what happened" --stream ${stream}\`, or write a markdown file with a ` +
        `\`date:\` in its frontmatter under \`${input.vaultLabel}/${stream}/memories/\`, then run \`memvault build\`.`,
    );
    return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
  }
  parts.push(
    `Memories of stream \`${stream}\` from ${firstDay} to ${bands.today}: critical items first, then history from oldest ` +
      '(most condensed) to newest (full detail). Each day appears once. Ask for more: `memvault zoom 2026-W07` (the full memories ' +
      'of a day, week, month or range), `memvault search "words"` (ranked hits with path:line), `memvault context --query "…"` ' +
      '(a context within a token budget).',
  );
  // Open contradictions come first, right after the header: a reader must not take either value as settled.
  const unresolved = renderUnresolved(facts);
  if (unresolved) parts.push(unresolved);
  if (critical.length > 0) parts.push(`## Critical (pinned)\n\n${critical.map((item) => item.render()).join('\n\n')}`);
  const inForce = renderFactsInForce(facts);
  if (inForce) parts.push(inForce);
  let recentHeaderDone = false;
  for (const item of history) {
    if (item.status === 'left-out') continue;
    if (item.type === 'memory') {
      if (!recentHeaderDone) {
        parts.push('## Memories in full detail');
        recentHeaderDone = true;
      }
      parts.push(item.status === 'degraded' ? shortened(item, input) : item.render());
    } else {
      recentHeaderDone = false;
      parts.push(item.render());
    }
  }
  const leftOut = history.filter((item) => item.status === 'left-out');
  if (leftOut.length > 0) {
    parts.push(
      `## Left out\n\n${leftOut.length} older item(s) did not fit the budget (${leftOut[0]!.start} to ${leftOut[leftOut.length - 1]!.end}); ` +
        'see UPLOAD_PACKAGE.manifest.json and `memvault zoom`.',
    );
  }
  return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
}

function shortened(item: Item, input: PackageInput): string {
  const memory = item.memory!;
  const first = input.readMemory(memory).sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
  return `### ${memoryHeading(memory)}\n\n${first} (shortened to fit the budget)`;
}
