import { sha256 } from '../../util/hash.js';
import type { TokenizerName } from '../../util/tokens.js';
import type { Tier } from '../../vault/model.js';
import type { Summarizer, SummaryRequest } from '../types.js';
import { LAYOUTS, type Budget, type Unit, type UnitSet } from './model.js';
import { mainEventUnit, mainWords } from './main-event.js';
import { fits, render, truncateToFit } from './render.js';
import { forcedUnits, isVital, Selection } from './select.js';
import { sessionThreads, summarizeSessionThreads } from './session-rollup.js';
import { isAgentSessionDay, summarizeSessionDay } from './sessions.js';
import { cachedUnits, labelUnits } from './units.js';
import { gainAlone, termWeights } from './worth.js';

/**
 * The embedded summarizer: offline, deterministic, no model. It picks the
 * sentences of the sources that add the most information not said yet, per
 * token (a greedy budgeted-coverage selection):
 *
 * - information is the sum of the weights of a sentence's content words not
 *   yet covered, plus its must-keep items not yet covered (see
 *   `src/retention/items.ts`); a word's weight is its inverse frequency among
 *   the period's sentences, so the distinctive terms of the period count most
 *   and a fact said on three days of a week is said once;
 * - chit-chat (greetings, thanks, compliments, questions) is worth less, and
 *   opening interjections ("Wow, ", "Hey Mel! ") are cut;
 * - the decisions section gets at most half the budget, so must-keep
 *   decisions cannot crowd out accomplishments (a retry may still force a
 *   lost decision in);
 * - items the caller names in `missing` (the retention check of the previous
 *   attempt) are forced in first.
 *
 * The survivors are laid out in the tier's sections, in the order things
 * happened; in tiers above the daily one, bullets are grouped by day, and a
 * speaker (`Caroline: …`) is named whenever the speaker changes.
 */

/** Bump when the selection or the layout changes: it is hashed into every `promptId`, so old summaries regenerate. */
const ALGORITHM_VERSION = 'memvault-extractive/4';

/**
 * Creates the embedded summarizer (`provider: extractive`, `model: memvault-extractive-1`).
 * It makes no call and reports zero usage. Tokens are counted with `tokenizer` (default `o200k_base`).
 *
 * @example
 * const summarizer = createExtractiveSummarizer();
 * const { body } = await summarizer.summarize(request); // "## Done\n\n- Replaced JWT with …"
 */
export function createExtractiveSummarizer(options: { tokenizer?: TokenizerName } = {}): Summarizer {
  const tokenizer = options.tokenizer ?? 'o200k_base';
  // Asked for every planned period and every rollup (thousands in a cold build): hashed once per tier.
  const promptIds = new Map<Tier, string>();
  return {
    provider: 'extractive',
    model: 'memvault-extractive-1',
    promptId(tier: Tier): string {
      let id = promptIds.get(tier);
      if (id === undefined) promptIds.set(tier, (id = extractivePromptId(tier, tokenizer)));
      return id;
    },
    // async so that a fault surfaces as a rejected promise, like every other provider's.
    async summarize(request: SummaryRequest) {
      const body = summarizeExtractive(request, tokenizer);
      return { body, usage: { calls: 0, inputTokens: 0, outputTokens: 0 } };
    },
  };
}

/** The prompt id of `tier`: the algorithm's version and the tier's layout, hashed. */
function extractivePromptId(tier: Tier, tokenizer: TokenizerName): string {
  const layout = LAYOUTS[tier];
  const description = [
    ALGORITHM_VERSION,
    `tier=${tier}`,
    `sections=${layout.sections.join('|')}`,
    `day=${layout.dayPrefix}`,
    `first-person=${layout.firstPerson}`,
    `fallback=${layout.fallbackSection}`,
    `tokenizer=${tokenizer}`,
  ].join('\n');
  return `${tier}@${sha256(description).slice(0, 8)}`;
}

/** Words of the period's main event weigh more (`TITLE_BOOST`): titles say what a memory is about. */
const TITLE_BOOST = 1.5;

function titleWeighted(weights: Float64Array, set: UnitSet, request: SummaryRequest): Float64Array {
  const main = mainWords(set, request);
  set.words.forEach((word, id) => {
    if (main.has(word)) weights[id]! *= TITLE_BOOST;
  });
  return weights;
}

/** Takes out units whose needs are no longer said (after the last unit taken was dropped to fit). */
function dropOrphans(selected: Unit[]): void {
  for (;;) {
    const said = new Set(selected);
    const index = selected.findIndex((unit) => unit.needs?.some((need) => !said.has(need)));
    if (index < 0) return;
    selected.splice(index, 1);
  }
}

/** Pure core of the extractive summarizer: the summary body for a request. */
function summarizeExtractive(request: SummaryRequest, tokenizer: TokenizerName): string {
  // A day of coding-agent sessions: per session its goal, what got done, decisions, what is next (sessions.ts).
  if (isAgentSessionDay(request)) {
    const body = summarizeSessionDay(request, tokenizer);
    if (body !== undefined) return body;
  }
  // A week, month or long term of such days: by work thread (session-rollup.ts).
  const threads = sessionThreads(request);
  if (threads) {
    const body = summarizeSessionThreads(request, threads, tokenizer);
    if (body !== undefined) return body;
  }
  const layout = LAYOUTS[request.tier];
  let set = cachedUnits(request, layout);
  let sections = layout.sections;
  let dedupe = true;
  if (set.units.length === 0) {
    set = labelUnits(request);
    sections = [layout.fallbackSection];
    dedupe = false;
  }
  const units = set.units;
  if (units.length === 0) return '';

  const hard: Budget = { tokens: Math.max(0, request.budget.tokens), bytes: Math.max(0, request.budget.bytes) };
  // A retry for lost items uses the whole budget; a retry for any other reason aims lower (85 %, 70 %, … 40 %).
  const factor = request.missing.length > 0 ? 1 : Math.max(0.4, 1 - 0.15 * Math.max(0, request.attempt));
  const target: Budget = { tokens: Math.floor(hard.tokens * factor), bytes: Math.floor(hard.bytes * factor) };

  const weights = (set.weights ??= titleWeighted(termWeights(set), set, request));
  const forced = forcedUnits(set, request.missing, weights);
  const selection = new Selection(set, weights, sections, layout, tokenizer, dedupe);
  // Pinned leads and #critical lines first, then what the previous attempt lost: why this attempt exists.
  for (const unit of units) if (isVital(unit)) selection.add(unit, hard, { force: true });
  for (const unit of forced) selection.add(unit, hard, { force: true });
  // The period's main event is always said.
  const main = mainEventUnit(set, request);
  if (main) selection.add(main, target);
  selection.fill(target);

  // Safety check on the real body: the estimates are close to, not exactly, the whole.
  const selected = selection.selected;
  let body = render(selected, sections, layout);
  let bodyFits = fits(body, hard, tokenizer);
  while (selected.length > 1 && !bodyFits) {
    selected.pop(); // the last one taken is the least worth
    dropOrphans(selected);
    body = render(selected, sections, layout);
    bodyFits = fits(body, hard, tokenizer);
  }
  if (selected.length > 0 && bodyFits) return body;
  // Nothing fits whole: the single most important sentence, cut at a word boundary.
  const best =
    selected[0] ?? forced[0] ?? [...units].sort((a, b) => b.quality * gainAlone(b, weights) - a.quality * gainAlone(a, weights))[0];
  return best ? truncateToFit(best, sections, layout, hard, tokenizer) : '';
}
