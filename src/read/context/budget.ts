/**
 * The token budget of an assembled context, split over four tiers: critical
 * 25%, relevant 37.5%, background 25%, index 12.5%.
 * A tier that needs less than its share gives the rest to the others, in
 * proportion to their shares; `debugging` widens critical (recent errors and
 * what fixed them). Pure.
 */

export type TierName = 'critical' | 'relevant' | 'background' | 'index';
export const TIER_NAMES: readonly TierName[] = ['critical', 'relevant', 'background', 'index'];
export type Activity = 'debugging' | 'feature' | 'review' | 'planning';
export const ACTIVITIES: readonly Activity[] = ['debugging', 'feature', 'review', 'planning'];

export type TierShares = Record<TierName, number>;

/** Shares per activity (each sums to 1). Default and `feature`: 25 / 37.5 / 25 / 12.5. */
export function sharesFor(activity: Activity | undefined): TierShares {
  switch (activity) {
    case 'debugging':
      return { critical: 0.4, relevant: 0.375, background: 0.125, index: 0.1 };
    case 'review':
      return { critical: 0.25, relevant: 0.45, background: 0.2, index: 0.1 };
    case 'planning':
      return { critical: 0.2, relevant: 0.3, background: 0.3, index: 0.2 };
    default:
      return { critical: 0.25, relevant: 0.375, background: 0.25, index: 0.125 };
  }
}

/**
 * Splits `budget` tokens over the tiers. `demand`: what each tier could use
 * at most (the tokens of all its candidates). A tier never gets more than its
 * demand; what it leaves goes to the tiers that want more, by share, until
 * every tier is satisfied or the budget is spent. The allowances never sum
 * to more than `budget`.
 *
 * @example
 *   allocateBudget(1000, { critical: 50, relevant: 5000, background: 5000, index: 10 }, sharesFor(undefined))
 *   // { critical: 50, relevant: 564, background: 376, index: 10 }
 */
export function allocateBudget(budget: number, demand: Record<TierName, number>, shares: TierShares): Record<TierName, number> {
  const allowance: Record<TierName, number> = { critical: 0, relevant: 0, background: 0, index: 0 };
  let remaining = Math.max(0, Math.floor(budget));
  let open = TIER_NAMES.filter((tier) => demand[tier] > 0 && shares[tier] > 0);
  while (open.length > 0 && remaining > 0) {
    const total = open.reduce((sum, tier) => sum + shares[tier], 0);
    const offers = new Map(open.map((tier) => [tier, Math.floor((remaining * shares[tier]) / total)]));
    const satisfied = open.filter((tier) => demand[tier] - allowance[tier] <= offers.get(tier)!);
    if (satisfied.length === 0) {
      // Everyone wants more than their share: give the shares, then the rounding remainder
      // (fewer tokens than open tiers) one token each, never past a tier's demand.
      for (const tier of open) allowance[tier] += offers.get(tier)!;
      let rest = remaining - open.reduce((sum, tier) => sum + offers.get(tier)!, 0);
      for (const tier of open) {
        if (rest === 0) break;
        if (allowance[tier] < demand[tier]) {
          allowance[tier] += 1;
          rest -= 1;
        }
      }
      break;
    }
    for (const tier of satisfied) {
      remaining -= demand[tier] - allowance[tier];
      allowance[tier] = demand[tier];
    }
    open = open.filter((tier) => !satisfied.includes(tier));
  }
  return allowance;
}
