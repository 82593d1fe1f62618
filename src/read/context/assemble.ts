import { todayIn } from '../../time/periods.js';
import type { StreamState } from '../../vault/model.js';
import type { SearchIndex } from '../search/index.js';
import { tokensOf, type ReadVault } from '../vault.js';
import { allocateBudget, sharesFor, TIER_NAMES, type Activity, type TierName } from './budget.js';
import { tierCandidates, type Candidate, type Version } from './candidates.js';
import type { Signals } from './signals.js';

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
}

export interface ContextItem {
  tier: TierName;
  source: string;
  tokens: number;
  /** `full`, `coarser` (a summary instead of the memory found), or `cut` (a pinned memory cut to fit). */
  level: 'full' | 'coarser' | 'cut';
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

const renderVersion = (v: Version, tier: TierName): string =>
  tier === 'index' ? v.text : `### ${v.label}\nsource: \`${v.source}\`\n\n${v.text.trim()}\n`;

interface Placed {
  tier: TierName;
  version: Version;
  block: string;
  tokens: number;
  level: ContextItem['level'];
  order: number;
}

export function assembleContext(options: ContextOptions): AssembledContext {
  const { vault, budget } = options;
  const count = (text: string): number => tokensOf(vault, text);
  const candidates = tierCandidates({ vault, stream: options.stream, signals: options.signals, now: options.now, index: options.index });
  const title = `# Context: stream \`${options.stream.name}\`, ${todayIn(options.now, vault.config.timezone)}\n`;
  const headingTokens = Object.fromEntries(TIER_NAMES.map((t) => [t, count(`${HEADINGS[t]}\n\n`)])) as Record<TierName, number>;
  const sized = Object.fromEntries(
    TIER_NAMES.map((tier) => [
      tier,
      candidates[tier].map((c) => ({
        c,
        tokens: c.versions.map((v) => count(`${renderVersion(v, tier)}${tier === 'index' ? ', ' : '\n'}`)),
      })),
    ]),
  ) as Record<TierName, { c: Candidate; tokens: number[] }[]>;
  const demand = Object.fromEntries(
    TIER_NAMES.map((t) => [t, sized[t].length === 0 ? 0 : headingTokens[t] + sized[t].reduce((s, x) => s + x.tokens[0]!, 0)]),
  ) as Record<TierName, number>;
  const allowance = allocateBudget(Math.max(0, budget - count(title)), demand, sharesFor(options.activity));

  const placed: Placed[] = [];
  const used = { critical: 0, relevant: 0, background: 0, index: 0 } as Record<TierName, number>;
  const skipped: { tier: TierName; c: Candidate; tokens: number[]; order: number }[] = [];
  const tryPlace = (tier: TierName, c: Candidate, tokens: number[], order: number, room: number): number => {
    const heading = used[tier] === 0 ? headingTokens[tier] : 0;
    const i = tokens.findIndex((t) => heading + t <= room);
    if (i >= 0) {
      placed.push({
        tier,
        version: c.versions[i]!,
        block: renderVersion(c.versions[i]!, tier),
        tokens: tokens[i]!,
        level: i === 0 ? 'full' : 'coarser',
        order,
      });
      return heading + tokens[i]!;
    }
    // A pinned memory is cut rather than left out; any other item is cut only to fill a large remainder (a long summary in a small budget).
    if ((c.must && room - heading > 40) || (tier !== 'index' && room - heading >= CUT_MIN)) {
      const cut = cutVersion(c.versions[0]!, room - heading, (v) => count(`${renderVersion(v, tier)}\n`), tier);
      placed.push({ tier, version: cut.version, block: renderVersion(cut.version, tier), tokens: cut.tokens, level: 'cut', order });
      return heading + cut.tokens;
    }
    return 0;
  };
  let order = 0;
  for (const tier of TIER_NAMES) {
    for (const { c, tokens } of sized[tier]) {
      const spent = tryPlace(tier, c, tokens, order, allowance[tier] - used[tier]);
      if (spent === 0) skipped.push({ tier, c, tokens, order });
      used[tier] += spent;
      order++;
    }
  }
  // Room a tier could not fill (its next item was too big) goes to items left out elsewhere, critical first.
  let slack = Math.max(0, budget - count(title)) - TIER_NAMES.reduce((s, t) => s + used[t], 0);
  for (const { tier, c, tokens, order: o } of skipped) {
    if (slack <= 0) break;
    const spent = tryPlace(tier, c, tokens, o, slack);
    used[tier] += spent;
    slack -= spent;
  }

  // Render in tier order, items in candidate order; then count the whole and drop from the end while over budget (tokens do not add up exactly across joins).
  let kept = [...placed].sort((a, b) => a.order - b.order);
  const render = (items: Placed[]): string => {
    const parts = [title];
    for (const tier of TIER_NAMES) {
      const mine = items.filter((p) => p.tier === tier);
      if (mine.length === 0) continue;
      // The index is one line: "Ask me about: auth (2026-02, 2026-W07), payments (2026-09), …".
      parts.push(
        `${HEADINGS[tier]}\n\n${tier === 'index' ? `Ask me about: ${mine.map((p) => p.block).join(', ')}.\n` : mine.map((p) => p.block).join('\n')}`,
      );
    }
    return `${parts.join('\n').trimEnd()}\n`;
  };
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
    items: kept.map((p) => ({ tier: p.tier, source: p.version.source, tokens: p.tokens, level: p.level })),
  };
}

/** A pinned memory cut by halves until its block fits `room` tokens, marked as cut. */
function cutVersion(version: Version, room: number, size: (v: Version) => number, _tier: TierName): { version: Version; tokens: number } {
  const marker = ' […cut to fit; zoom into its day for all of it]';
  let keep = version.text.length;
  let cut = version;
  while (keep > 0) {
    cut = { ...version, text: `${version.text.slice(0, keep).trimEnd()}${marker}` };
    if (size(cut) <= room) return { version: cut, tokens: size(cut) };
    keep = Math.floor(keep / 2);
  }
  cut = { ...version, text: marker.trim() };
  return { version: cut, tokens: size(cut) };
}
