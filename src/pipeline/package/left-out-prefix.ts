import type { Item } from './model.js';

/**
 * The run of left-out items at the front of a package's history, remembered
 * between renderings of one assembly. On a busy day nearly every item is left
 * out, oldest first (issue 29: ~99,800 of a day's 100,000 memories), and each
 * of the ~250 renderings and refine steps walked past all of them again.
 *
 * Sound because, within one assembly, an item left out is never shown again
 * (`refine` buys back only shown summaries and shortened memories) and is
 * never removed from the history (`promote` and `refine` take out shown items
 * only). Items may be inserted anywhere (`history.sort`): one inserted before
 * the remembered run's last item moves that item, and the run is then looked
 * for from the start again.
 */
export interface LeftOutPrefix {
  /** Leading items known to be left out. */
  length: number;
  /** The last of them (`history[length - 1]` when nothing was inserted before it since). */
  last: Item | undefined;
}

export function leftOutPrefix(): LeftOutPrefix {
  return { length: 0, last: undefined };
}

/** Index of the first item of `history` that is not left out at its front (0 when the first one is shown); updates `prefix`. */
export function pastLeftOut(history: readonly Item[], prefix: LeftOutPrefix): number {
  let length = prefix.length;
  if (length > 0 && (history[length - 1] !== prefix.last || prefix.last?.status !== 'left-out')) length = 0;
  while (history[length]?.status === 'left-out') length++;
  prefix.length = length;
  prefix.last = length > 0 ? history[length - 1] : undefined;
  return length;
}
