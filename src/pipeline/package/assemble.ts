import { eachDay } from '../../time/periods.js';
import { CALENDAR_TIER_TABLE, type CalendarTier } from '../../time/tiers.js';
import { MemvaultError } from '../../util/errors.js';
import { hashFields, hashValue } from '../../util/hash.js';
import { countBytes, countTokens } from '../../util/tokens.js';
import { leaveOut, promote, refine, shortenMemory } from './degrade.js';
import { fitFacts, type PackageFacts, packageFacts } from './facts.js';
import { degradeItemByItem, provablyOver, rememberingReaders } from './fit.js';
import { memoryItem, selectCoverage } from './items.js';
import type { AssembledPackage, Item, Manifest, PackageInput } from './model.js';
import { renderPackage } from './render.js';
import { leftOutPrefix } from './left-out-prefix.js';
import { segmentedTokenCounter } from './token-count.js';

/**
 * Stage 6, assemble: the bounded UPLOAD_PACKAGE.md of one stream. A pure
 * function of the memories, the summaries, the bands (from `now`) and the
 * config; bodies come through the two readers passed in.
 *
 * Selection: critical items (pinned memories) first; then every day from the
 * first memory to today covered exactly once, by the coarsest summary whose
 * whole period lies in bands that allow its tier, else by finer tiers, else
 * by the raw memories.
 *
 * Over budget, detail is traded for coverage in this fixed order, each step
 * oldest first, until the package fits:
 *   1. dailies of a complete week → that week's summary
 *   2. weeklies of a complete month → that month's summary
 *   3. raw memories → their first sentence
 *   4. leave out the oldest items (listed in the manifest)
 * If the critical section alone is over budget the build fails and says what to unpin.
 *
 * Spare room then buys detail back, the newest first (`refine`): the
 * summary that ends last is replaced by the finer items it was built from
 * (long-term → monthlies → weeklies → dailies → the day's memories) whenever
 * they fit, so a recent day is shown in full before an old one. A day too big
 * for its memories in full shows its newest ones in full and the others by
 * their opening sentences. When the history is larger than the budget the
 * package is then nearly full (at least 90 % on agent sessions, see
 * `npm run eval -- --agent-sessions`); the manifest gives each item's reason.
 */

/** The pinned memories alone are over the package budget; `pinned` is largest first. */
export class CriticalOverBudgetError extends MemvaultError {
  constructor(
    readonly stream: string,
    readonly tokens: number,
    readonly bytes: number,
    readonly pinned: { path: string; tokens: number }[],
  ) {
    const biggest = pinned
      .slice(0, 3)
      .map((p) => `${p.path} (${p.tokens} tokens)`)
      .join(', ');
    const reason = `the critical section of stream \`${stream}\` alone is ${tokens} tokens / ${bytes} bytes, over the package budget`;
    super('package/critical-over-budget', reason, { biggest });
    this.name = 'CriticalOverBudgetError';
  }
}

/** The memories' part of `packageInputHash`: the path and SHA-256 of each, in order. */
export function packageMemoriesDigest(memories: PackageInput['memories']): string {
  return hashFields(memories, (m) => [m.path, m.sha256]);
}

/**
 * A cheap fingerprint of the inputs, checked before paying for assembly and token counting. `memoriesDigest`:
 * `packageMemoriesDigest(input.memories)`, when the caller has it already (an edit's build plans the package, then
 * writes it: ~15 ms of hashing at 20,000 memories, done once).
 */
export function packageInputHash(
  input: Omit<PackageInput, 'readMemory' | 'readSummary'>,
  memoriesDigest = packageMemoriesDigest(input.memories),
): string {
  const summaries = [...input.summaries.values()].map((s) => [s.path, s.sha256]).sort();
  // v2: the header names zoom, search and context. v3: detail bought back newest first, zoom names a week of the vault.
  // v4: the memories as one digest (hashFields), not their list's JSON.
  return hashValue({
    v: 4,
    stream: input.stream,
    bands: input.bands,
    upload: input.upload,
    tokenizer: input.tokenizer,
    memories: memoriesDigest,
    summaries,
    ...(input.leftOut ? { leftOut: [...input.leftOut.ids].sort() } : {}),
    // Only when a memory is stale: a vault without citations keeps its hash.
    ...(input.citationNotes ? { citations: input.memories.flatMap((m) => citationNoteOf(input, m.path)) } : {}),
    // Packages built before facts were shown are rebuilt once; a vault without facts keeps its hash.
    ...(input.memories.some((m) => m.facts !== undefined) ? { facts: 1 } : {}),
  });
}

const citationNoteOf = (input: Pick<PackageInput, 'citationNotes'>, path: string): string[] => {
  const note = input.citationNotes?.get(path);
  return note ? [path, note] : [];
};

/** `inputHash`: `packageInputHash(input)`, when the caller has it already (it hashes every memory). */
export function assemblePackage(given: PackageInput, inputHash = packageInputHash(given)): AssembledPackage {
  // Bodies read once per assembly, however often the package is rendered (fit.ts).
  const input = rememberingReaders(given);
  const duplicates = input.leftOut?.duplicates;
  const pinned = input.memories.filter((memory) => memory.importance === 'pinned' && !duplicates?.has(memory.id));
  const critical: Item[] = pinned.map((memory) => memoryItem(memory, 'pinned', input, 'pinned: always included'));
  const history = selectCoverage(input);
  const firstDay = input.memories[0]?.day ?? null;
  const facts = packageFacts(input.memories, input.bands.today);
  // The left-out run at the front of `history` is remembered between renderings, not walked again (a busy day).
  const prefix = leftOutPrefix();
  const render = (): string => renderPackage(input, firstDay, critical, history, facts, prefix);
  const fits = fitsBudget(input);

  fitFactsAndCritical(input, firstDay, critical, history, facts, fits);
  const text = degradeToFit(history, input, render, fits);
  const manifest = packageManifest(input, firstDay, critical, history, facts, text, inputHash);
  return { text, manifest };
}

/** Tokens and bytes of a text, counted exactly. */
function measure(input: PackageInput, text: string): { tokens: number; bytes: number } {
  return { tokens: countTokens(text, input.tokenizer), bytes: countBytes(text) };
}

/**
 * Whether a package text is within the upload budget (bytes, then tokens).
 * Counting the whole package after every degradation step was most of the
 * assembly time. A sum of memoized paragraph counts is within a few tokens of
 * the real count: a clear miss skips the exact count.
 */
function fitsBudget(input: PackageInput): (text: string) => boolean {
  const paragraphTokens = new Map<string, number>();
  const estimateTokens = (text: string): number => {
    const paragraphs = text.split('\n\n');
    let sum = paragraphs.length - 1; // each `\n\n` is one token
    for (const paragraph of paragraphs) {
      let tokens = paragraphTokens.get(paragraph);
      if (tokens === undefined) paragraphTokens.set(paragraph, (tokens = countTokens(paragraph, input.tokenizer)));
      sum += tokens;
    }
    return sum;
  };
  // The exact count, line by line as the tokenizer cuts it (token-count.ts): a rendering shares most lines with the last.
  const exactTokens = segmentedTokenCounter(input.tokenizer);
  return (text) => {
    if (countBytes(text) > input.upload.max_bytes) return false;
    if (estimateTokens(text) > input.upload.max_tokens * 1.02) return false;
    return exactTokens(text) <= input.upload.max_tokens;
  };
}

/**
 * Cuts the facts in force from the end until they fit even with all history
 * left out (its note included): the degradation steps can then always bring
 * the package within budget. Throws `CriticalOverBudgetError` when the pinned
 * memories alone (with the facts) are over budget. Changes `facts.shown`.
 */
function fitFactsAndCritical(
  input: PackageInput,
  firstDay: string | null,
  critical: readonly Item[],
  history: readonly Item[],
  facts: PackageFacts | undefined,
  fits: (text: string) => boolean,
): void {
  if (facts && facts.shown > 0) {
    const allLeftOut = history.map((item): Item => ({ ...item, status: 'left-out' }));
    const fitsWith = (shown: number) => fits(renderPackage(input, firstDay, critical, allLeftOut, { ...facts, shown }));
    if (!fitsWith(facts.shown)) facts.shown = fitFacts(facts, fitsWith);
  }
  const criticalOnly = renderPackage(input, firstDay, critical, [], facts);
  if (!fits(criticalOnly)) {
    const size = measure(input, criticalOnly);
    const sizes = critical
      .map((item) => ({ path: item.path, tokens: countTokens(item.render(), input.tokenizer) }))
      .sort((a, b) => b.tokens - a.tokens);
    throw new CriticalOverBudgetError(input.stream, size.tokens, size.bytes, sizes);
  }
}

/**
 * Trades detail for coverage in the fixed order (promote tier by tier,
 * shorten the oldest memories, leave out the oldest items) until the package
 * fits, then buys detail back with the room left. Changes `history`; returns
 * the package text.
 */
function degradeToFit(history: Item[], input: PackageInput, render: () => string, fits: (text: string) => boolean): string {
  // Not rendered when its memories' headings alone are over budget (a busy day): `undefined` is a package that does not fit.
  let text: string | undefined = provablyOver(history, input.upload.max_bytes) ? undefined : render();
  // Finer items give way to the summary of their period, tier by tier upwards (not into the one-per-stream long-term summary).
  const steps = CALENDAR_TIER_TABLE.filter((row) => row.finer !== undefined && row.folder !== undefined).map(
    (row) => () => promote(history, row.finer as CalendarTier, row.name, input),
  );
  for (const step of steps) {
    while ((text === undefined || !fits(text)) && step()) text = render();
  }
  // Item by item, the same loop without rendering a package whose size alone is over budget (fit.ts: a busy day).
  text = degradeItemByItem(history, input, text, render, fits, input.upload.max_bytes, shortenMemory);
  text = degradeItemByItem(history, input, text, render, fits, input.upload.max_bytes, leaveOut) ?? render();
  // Spare room buys detail back, the newest first; after degrading too, when a step freed more than it had to.
  return refine(history, input, text, render, fits);
}

/** The manifest of a package text: its size, the coverage of days with memories, and each item with its status and reason. */
function packageManifest(
  input: PackageInput,
  firstDay: string | null,
  critical: readonly Item[],
  history: readonly Item[],
  facts: PackageFacts | undefined,
  text: string,
  inputHash: string,
): Manifest {
  const { bands } = input;
  const duplicates = input.leftOut?.duplicates;
  // A copy's day is covered by the memory it repeats: only the other memories need the package.
  const daysWithMemories = new Set(input.memories.filter((memory) => !duplicates?.has(memory.id)).map((memory) => memory.day));
  const size = measure(input, text);
  const covered = new Set<string>();
  for (const item of history) if (item.status !== 'left-out') for (const day of eachDay(item.start, item.end)) covered.add(day);
  return {
    memvault: 'manifest',
    stream: input.stream,
    budget: { max_tokens: input.upload.max_tokens, max_bytes: input.upload.max_bytes },
    tokens: size.tokens,
    bytes: size.bytes,
    bands,
    coverage: {
      first_day: firstDay,
      last_day: bands.today,
      days_with_memories: daysWithMemories.size,
      days_covered: [...daysWithMemories].filter((day) => covered.has(day)).length,
    },
    items: [...critical, ...history].map(({ type, tier, id, path, start, end, status, reason, summary }) => ({
      type,
      tier,
      id,
      path,
      start,
      end,
      status,
      ...(reason ? { reason } : {}),
      ...(summary?.meta.dropped?.length ? { dropped: summary.meta.dropped } : {}),
    })),
    ...(input.leftOut?.forgotten.length ? { forgotten: input.leftOut.forgotten.map((m) => m.id) } : {}),
    ...(duplicates?.size ? { duplicates: [...duplicates].map(([id, of]) => ({ id, duplicate_of: of })) } : {}),
    ...(facts ? { facts: { contradictions: facts.contradictions, in_force: facts.inForce.length, shown: facts.shown } } : {}),
    input_hash: inputHash,
  };
}
