import { markStaleCandidates } from './citations.js';
import type { MemoryCitations } from '../../vault/citation-model.js';
import { citationLookup } from '../../citations/read.js';
import { todayIn } from '../../time/periods.js';
import type { StreamState } from '../../vault/model.js';
import type { SearchIndex } from '../../search/index.js';
import { pickStream, type ReadVault } from '../vault.js';
import { allocateBudget, sharesFor, TIER_NAMES, type Activity, type TierName } from './budget.js';
import { tierCandidates, type Candidate, type CriticalSource, type Part, type Version } from './candidates.js';
import type { Signals } from './signals.js';
import { bodyLineFor, countFor, type ContextSearch } from './warm.js';
import { cutVersion, followsOn, joinedText, renderGroup, type BodyLine } from './render.js';

/**
 * Context assembly: the four tiers packed into a token budget. Candidates
 * (candidates.ts) are sized, the budget is split by what each tier has to
 * say (budget.ts), each tier takes its items in order at the finest version
 * that fits, what is left over goes to items that did not fit, and the
 * whole text is counted again at the end so it is never over budget.
 * Deterministic for the same vault, signals and `now`.
 */

export interface ContextOptions {
  vault: ReadVault;
  stream: StreamState;
  index: SearchIndex;
  budget: number;
  signals: Signals;
  activity?: Activity;
  now: Date;
  /** Unresolved contradictions, first in the critical tier (default: those between the stream's facts). */
  contradictions?: CriticalSource;
}

export interface ContextItem {
  tier: TierName;
  source: string;
  tokens: number;
  /** `full`, `excerpt` (the passages of a memory about the signals), `coarser` (a summary instead of the memory found), or `cut` (cut to fit). */
  level: 'full' | 'excerpt' | 'coarser' | 'cut';
  /** A memory that cites paths, commits or branches: how they stood at the last check (src/citations/). */
  citations?: MemoryCitations;
}

export interface AssembledContext {
  context: string;
  token_count: number;
  budget: number;
  /** Tokens used by each tier (its heading included). */
  tiers: Record<TierName, number>;
  /** What each tier was allowed after rebalancing. */
  allowance: Record<TierName, number>;
  items: ContextItem[];
}

/** Below this many tokens of room, an item that does not fit is left out rather than cut. */
const CUT_MIN = 150;

const HEADINGS: Record<TierName, string> = {
  critical: '## Critical: pinned, decisions, recent errors',
  relevant: '## Relevant to what you are doing',
  background: '## Background: conventions and history',
  index: '## More to ask about (`memvault zoom <period>`, `memvault search <words>`)',
};

interface Sized {
  c: Candidate;
  /** Tokens of version `i`'s block: the first counted for every candidate (the tier's demand), coarser ones only when asked. */
  tokens: (i: number) => number;
  /** Tokens of an excerpt joined to an earlier excerpt of its memory: its `:line` label and text. */
  joined: number | undefined;
  /** Tokens of an excerpt that follows on from a placed excerpt of its memory (no label): its text only. */
  follows: () => number;
  /** Tokens of an excerpt's whole memory, counted when the excerpt is placed. */
  whole: () => number | undefined;
}

/** A number worked out on first use. */
function lazy(work: () => number): () => number {
  let value: number | undefined;
  return () => {
    value ??= work();
    return value;
  };
}

interface Placed {
  tier: TierName;
  version: Version;
  tokens: number;
  level: ContextItem['level'];
  order: number;
  /** For an excerpt: its whole memory and that memory's tokens. */
  whole?: { version: Version; tokens: number };
}

/** What a caller asks of a warm vault: the signals, and the budget (default 8,000), stream (default the first), activity and `now`. */
export interface ContextRequest {
  signals: Signals;
  now: Date;
  budget?: number;
  stream?: string;
  activity?: Activity;
  contradictions?: CriticalSource;
}

/**
 * Assembles a context. Warm form, for a long-lived process (the MCP server):
 * an opened vault, its search (`openContextSearch`) and the request; token
 * counts and index topics are remembered between calls. The options form
 * takes the stream and index directly.
 *
 * @example
 *   const vault = await openVault(root);
 *   const search = openContextSearch(vault);
 *   const { context, items } = assembleContext(vault, search, { signals: { query: 'sessions' }, budget: 2000, now: new Date() });
 */
export function assembleContext(vault: ReadVault, search: ContextSearch, request: ContextRequest): AssembledContext;
export function assembleContext(options: ContextOptions): AssembledContext;
export function assembleContext(first: ContextOptions | ReadVault, search?: ContextSearch, request?: ContextRequest): AssembledContext {
  if ('loaded' in first && search && request) {
    return assemble({
      vault: first,
      stream: pickStream(first, request.stream),
      index: search.index,
      budget: request.budget ?? 8000,
      signals: request.signals,
      now: request.now,
      ...(request.activity ? { activity: request.activity } : {}),
      ...(request.contradictions ? { contradictions: request.contradictions } : {}),
    });
  }
  return assemble(first as ContextOptions);
}

function assemble(options: ContextOptions): AssembledContext {
  const { vault, budget } = options;
  const count = countFor(vault);
  const bodyLine = bodyLineFor(vault);
  const renderVersion = (v: Version, tier: TierName): string => (tier === 'index' ? v.text : renderGroup([v], bodyLine));
  // Stale memories (their cited files gone, moved or much changed) are marked and ranked down (src/citations/).
  const citations = citationLookup(vault.root);
  const candidates = markStaleCandidates(
    tierCandidates({
      vault,
      stream: options.stream,
      signals: options.signals,
      now: options.now,
      index: options.index,
      ...(options.contradictions ? { contradictions: options.contradictions } : {}),
    }),
    citations,
    options.signals,
  );
  const title = `# Context: stream \`${options.stream.name}\`, ${todayIn(options.now, vault.config.timezone)}\n`;
  const headingTokens = Object.fromEntries(TIER_NAMES.map((t) => [t, count(`${HEADINGS[t]}\n\n`)])) as Record<TierName, number>;
  const sized = sizeCandidates(candidates, renderVersion, (v) => joinedText(v, bodyLine), count);
  const demand = Object.fromEntries(
    TIER_NAMES.map((t) => [t, sized[t].length === 0 ? 0 : headingTokens[t] + sized[t].reduce((s, x) => s + x.tokens(0), 0)]),
  ) as Record<TierName, number>;
  const room = Math.max(0, budget - count(title));
  const allowance = allocateBudget(room, demand, sharesFor(options.activity));

  const placement = createPlacement(headingTokens, renderVersion, count);
  const slack = placeAll(placement, sized, allowance, room);
  widenExcerpts(placement, budget, slack);

  const { kept, context, total } = fitToBudget(placement.placed, budget, count, (items) => renderContext(title, items, bodyLine));
  const tiers = Object.fromEntries(
    TIER_NAMES.map((t) => [
      t,
      kept.some((p) => p.tier === t) ? headingTokens[t] + kept.filter((p) => p.tier === t).reduce((s, p) => s + p.tokens, 0) : 0,
    ]),
  ) as Record<TierName, number>;
  return {
    context,
    token_count: total,
    budget,
    tiers,
    allowance,
    items: kept.map((p) => {
      const cited = citations?.get(p.version.source);
      return { tier: p.tier, source: p.version.source, tokens: p.tokens, level: p.level, ...(cited ? { citations: cited } : {}) };
    }),
  };
}

/** How an item is rendered as its own block (`renderGroup`, or the index's bare text). */
type RenderVersion = (v: Version, tier: TierName) => string;

/**
 * Each tier's candidates with their sizes: the first version counted now
 * (it makes the tier's demand), coarser versions and whole memories only
 * when placement asks for them.
 */
function sizeCandidates(
  candidates: Record<TierName, Candidate[]>,
  renderVersion: RenderVersion,
  joined: (v: Version) => string,
  count: (text: string) => number,
): Record<TierName, Sized[]> {
  return Object.fromEntries(
    TIER_NAMES.map((tier) => [
      tier,
      candidates[tier].map((c): Sized => {
        const sizes = c.versions.map((v) => lazy(() => count(`${renderVersion(v, tier)}${tier === 'index' ? ', ' : '\n'}`)));
        sizes[0]!();
        const whole = c.whole;
        return {
          c,
          tokens: (i) => sizes[i]!(),
          // An excerpt of a memory already placed joins it under its heading: it costs its text only.
          joined: c.versions[0]!.part ? count(`${joined(c.versions[0]!)}\n\n`) : undefined,
          follows: lazy(() => count(`${c.versions[0]!.text.trim()}\n\n`)),
          whole: whole ? lazy(() => count(`${renderVersion(whole, tier)}\n`)) : () => undefined,
        };
      }),
    ]),
  ) as Record<TierName, Sized[]>;
}

/** The items placed so far, the tokens each tier has used, and how to place one more. */
interface Placement {
  placed: Placed[];
  used: Record<TierName, number>;
  /** Places an item at the finest version that fits `room` (or cut to fit); the tokens spent, 0 when it did not fit. */
  tryPlace: (tier: TierName, item: Sized, order: number, room: number) => number;
}

function createPlacement(
  headingTokens: Record<TierName, number>,
  renderVersion: RenderVersion,
  count: (text: string) => number,
): Placement {
  const placed: Placed[] = [];
  const used = { critical: 0, relevant: 0, background: 0, index: 0 } as Record<TierName, number>;
  const placedSources = new Set<string>();
  /** The blocks placed of each memory, by tier and source: an excerpt right after one of them needs no label. */
  const placedParts = new Map<string, Part[]>();
  const tryPlace = (tier: TierName, { c, tokens: sizes, joined, follows, whole }: Sized, order: number, room: number): number => {
    const heading = used[tier] === 0 ? headingTokens[tier] : 0;
    const key = `${tier}\u0000${c.versions[0]!.source}`;
    const part = c.versions[0]!.part;
    const joining = joined !== undefined && placedSources.has(key);
    const after = joining && followsOn(part!, placedParts.get(key) ?? []);
    const tokens = joining ? () => (after ? follows() : joined) : sizes;
    const versions = joining ? 1 : c.versions.length;
    let i = 0;
    while (i < versions && heading + tokens(i) > room) i++;
    if (i < versions) {
      placedSources.add(`${tier}\u0000${c.versions[i]!.source}`);
      if (c.versions[i]!.part) placedParts.set(key, [...(placedParts.get(key) ?? []), c.versions[i]!.part!]);
      const wholeTokens = c.whole ? whole() : undefined;
      placed.push({
        tier,
        version: c.versions[i]!,
        tokens: tokens(i),
        level: c.versions[i]!.part ? 'excerpt' : i === 0 ? 'full' : 'coarser',
        order,
        ...(c.whole && wholeTokens !== undefined ? { whole: { version: c.whole, tokens: wholeTokens } } : {}),
      });
      return heading + tokens(i);
    }
    // A pinned memory is cut rather than left out; any other item is cut only to fill a large remainder (a long summary in a small budget).
    if ((c.must && room - heading > 40) || (tier !== 'index' && !c.versions[0]!.part && room - heading >= CUT_MIN)) {
      const cut = cutVersion(c.versions[0]!, room - heading, (v) => count(`${renderVersion(v, tier)}\n`), count);
      placedSources.add(`${tier}\u0000${cut.version.source}`);
      placed.push({ tier, version: cut.version, tokens: cut.tokens, level: 'cut', order });
      return heading + cut.tokens;
    }
    return 0;
  };
  return { placed, used, tryPlace };
}

/**
 * Places every tier's items within its allowance, in tier and candidate
 * order; then room a tier could not fill (its next item was too big) goes to
 * items left out elsewhere, critical first. Returns the tokens still free of
 * `room` (the budget less the title).
 */
function placeAll(placement: Placement, sized: Record<TierName, Sized[]>, allowance: Record<TierName, number>, room: number): number {
  const { used, tryPlace } = placement;
  const skipped: (Sized & { tier: TierName; order: number })[] = [];
  let order = 0;
  for (const tier of TIER_NAMES) {
    for (const item of sized[tier]) {
      const spent = tryPlace(tier, item, order, allowance[tier] - used[tier]);
      if (spent === 0) skipped.push({ ...item, tier, order });
      used[tier] += spent;
      order++;
    }
  }
  let slack = room - TIER_NAMES.reduce((s, t) => s + used[t], 0);
  for (const item of skipped) {
    if (slack <= 0) break;
    const spent = tryPlace(item.tier, item, item.order, slack);
    used[item.tier] += spent;
    slack -= spent;
  }
  return slack;
}

/**
 * A memory quoted in excerpts becomes the whole memory when that is small
 * next to the budget (an eighth) and the rest still fits in `slack`: the
 * finest level. Changes `placement` in place.
 */
function widenExcerpts(placement: Placement, budget: number, slack: number): void {
  const { placed, used } = placement;
  let left = slack;
  for (const p of [...placed].sort((a, b) => a.order - b.order)) {
    if (!p.whole || p.level !== 'excerpt' || p.whole.tokens > budget / 8 || !placed.includes(p)) continue;
    const mine = placed.filter((q) => q.tier === p.tier && q.level === 'excerpt' && q.version.source === p.version.source);
    const extra = p.whole.tokens - mine.reduce((sum, q) => sum + q.tokens, 0);
    if (extra > left) continue;
    for (const q of mine) placed.splice(placed.indexOf(q), 1);
    placed.push({ tier: p.tier, version: p.whole.version, tokens: p.whole.tokens, level: 'full', order: p.order });
    used[p.tier] += extra;
    left -= extra;
  }
}

/** The context text: the title, then each tier in order with its items in candidate order. */
function renderContext(title: string, items: readonly Placed[], bodyLine: BodyLine): string {
  const parts = [title];
  for (const tier of TIER_NAMES) {
    const mine = items.filter((p) => p.tier === tier);
    if (mine.length === 0) continue;
    // The index is one line: "Ask me about: auth (2026-02, 2026-W07), payments (2026-09), …".
    if (tier === 'index') {
      parts.push(`${HEADINGS[tier]}\n\nAsk me about: ${mine.map((p) => p.version.text).join(', ')}.\n`);
      continue;
    }
    // Excerpts of one memory are shown together, where the first of them was placed.
    const groups = new Map<string, Version[]>();
    for (const p of mine) {
      const key = p.version.part ? p.version.source : `${p.order}`;
      groups.set(key, [...(groups.get(key) ?? []), p.version]);
    }
    parts.push(`${HEADINGS[tier]}\n\n${[...groups.values()].map((group) => renderGroup(group, bodyLine)).join('\n')}`);
  }
  return `${parts.join('\n').trimEnd()}\n`;
}

/**
 * Renders the placed items in order, then counts the whole text and drops
 * items from the end (cut ones last) while it is over budget: tokens do not
 * add up exactly across joins. An empty context when nothing fits.
 */
function fitToBudget(
  placed: readonly Placed[],
  budget: number,
  count: (text: string) => number,
  render: (items: Placed[]) => string,
): { kept: Placed[]; context: string; total: number } {
  let kept = [...placed].sort((a, b) => a.order - b.order);
  let context = render(kept);
  let total = count(context);
  while (total > budget && kept.length > 0) {
    const drop = [...kept].reverse().find((p) => p.level !== 'cut' || kept.every((q) => q.level === 'cut'))!;
    kept = kept.filter((p) => p !== drop);
    context = render(kept);
    total = count(context);
  }
  if (total > budget) {
    context = '';
    total = 0;
  }
  return { kept, context, total };
}
