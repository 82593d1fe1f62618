import { weekOf } from '../../time/periods.js';
import { stringifyFrontmatter } from '../../vault/frontmatter.js';
import { type PackageFacts, renderFactsInForce, renderUnresolved } from './facts.js';
import { memoryHeading } from './items.js';
import { type Item, openingOf, type PackageInput, shownShortened } from './model.js';
import { type LeftOutPrefix, pastLeftOut } from './left-out-prefix.js';

/** The package's text: header, critical section, history from oldest to newest, and what was left out. */

/**
 * `facts`: the stream's open contradictions and facts in force (absent when no memory states a fact). `prefix`: the
 * left-out items at the front of `history` as of the last rendering of the same history (left-out-prefix.ts).
 */
export function renderPackage(
  input: PackageInput,
  firstDay: string | null,
  critical: readonly Item[],
  history: readonly Item[],
  facts?: PackageFacts,
  prefix?: LeftOutPrefix,
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
  // The zoom example names a week this vault has memories in: its newest.
  const lastDay = input.memories[input.memories.length - 1]?.day ?? firstDay;
  parts.push(
    `Memories of stream \`${stream}\` from ${firstDay} to ${bands.today}: critical items first, then history from oldest ` +
      `(most condensed) to newest (full detail). Each day appears once. Ask for more: \`memvault zoom ${weekOf(lastDay)}\` (the full memories ` +
      'of a day, week, month or range), `memvault search "words"` (ranked hits with path:line), `memvault context --query "…"` ' +
      '(a context within a token budget).',
  );
  // Open contradictions come first, right after the header: a reader must not take either value as settled.
  const unresolved = renderUnresolved(facts);
  if (unresolved) parts.push(unresolved);
  if (critical.length > 0) parts.push(`## Critical (pinned)\n\n${critical.map((item) => item.render()).join('\n\n')}`);
  const inForce = renderFactsInForce(facts);
  if (inForce) parts.push(inForce);
  // Raw memories come in runs between summaries; each run gets one heading, named by its days when there are several runs.
  // One pass, no array of the left-out items: a busy day's package is rendered ~250 times over ~100,000 of them.
  // The left-out run at the front is counted, not walked again (left-out-prefix.ts).
  const from = prefix ? pastLeftOut(history, prefix) : 0;
  const shown: Item[] = [];
  let leftOut = from;
  let firstLeftOut: Item | undefined = from > 0 ? history[0] : undefined;
  let lastLeftOut: Item | undefined = from > 0 ? history[from - 1] : undefined;
  for (let i = from; i < history.length; i++) {
    const item = history[i]!;
    if (item.status !== 'left-out') {
      shown.push(item);
      continue;
    }
    leftOut++;
    firstLeftOut ??= item;
    lastLeftOut = item;
  }
  const runs = memoryRuns(shown);
  for (let i = 0; i < shown.length; i++) {
    const item = shown[i]!;
    if (item.type === 'memory') {
      const run = runs.get(i);
      if (run) parts.push(runs.size === 1 ? '## Memories in full detail' : `## Memories in full detail, ${run}`);
      parts.push(shownShortened(item) ? shortened(item, input) : item.render());
    } else parts.push(item.render());
  }
  if (firstLeftOut && lastLeftOut) {
    parts.push(
      `## Left out\n\n${leftOut} older item(s) did not fit the budget (${firstLeftOut.start} to ${lastLeftOut.end}); ` +
        'see UPLOAD_PACKAGE.manifest.json and `memvault zoom`.',
    );
  }
  return `${frontmatterOf(front)}${parts.join('\n\n')}\n`;
}

/** The last package frontmatter written, by its fields: a package is rendered ~250 times per assembly on a busy day. */
let lastFrontmatter: { key: string; text: string } | undefined;

/** `stringifyFrontmatter(front, '')`, the text before the body: yaml builds the same small document once per assembly, not per rendering. */
function frontmatterOf(front: { memvault: string; stream: string; covers: string }): string {
  const key = `${front.memvault}\u0000${front.stream}\u0000${front.covers}`;
  if (lastFrontmatter?.key !== key) lastFrontmatter = { key, text: stringifyFrontmatter(front, '') };
  return lastFrontmatter.text;
}

/** Index of the first item of each run of memories → the run's days (`2026-10-22`, `2026-10-19 to 2026-10-23`). */
function memoryRuns(items: readonly Item[]): Map<number, string> {
  const runs = new Map<number, string>();
  for (let i = 0; i < items.length; i++) {
    if (items[i]!.type !== 'memory' || items[i - 1]?.type === 'memory') continue;
    let end = i;
    while (items[end + 1]?.type === 'memory') end++;
    const first = items[i]!.start;
    const last = items[end]!.end;
    runs.set(i, first === last ? first : `${first} to ${last}`);
  }
  return runs;
}

/** A degraded memory's first sentence (shortened over budget), or an included one's opening sentences (a day bought back in part). */
function shortened(item: Item, input: PackageInput): string {
  const memory = item.memory!;
  const sentences = openingOf(input, memory, item.opening ?? 1);
  const note = item.opening ? `(opening only; \`memvault zoom ${memory.day}\` has it in full)` : '(shortened to fit the budget)';
  return `### ${memoryHeading(memory)}\n\n${sentences.join(' ')} ${note}`;
}
