import { countBytes } from '../../util/tokens.js';
import { memoryHeading } from './items.js';
import type { Item, PackageInput } from './model.js';

/**
 * The loop of the degradation steps that go item by item (shorten the oldest
 * memory, leave out the oldest item) — `while (!fits(text) && step()) text = render()`
 * — without its two quadratic costs on a very busy day (issue 29: 10,000
 * memories of one day took 435 s in this loop, 100,000 never finished):
 *
 * - each step looked for its item from the start of the history: here a
 *   cursor moves forward (an item a step passed over or changed never becomes
 *   eligible again while these steps run: they only mark items);
 * - each step rendered the whole package to check it: here a lower bound of
 *   its size in bytes (the shown items' text and the blank line before each)
 *   is kept up to date per step, and the package is rendered only when the
 *   bound is within the budget. Above it, `fits` would say no anyway.
 *
 * The result is the same as the plain loop's, byte for byte (test/package-fit.test.ts).
 */
export function degradeItemByItem(
  history: readonly Item[],
  input: Pick<PackageInput, 'readMemory'>,
  text: string,
  render: () => string,
  fits: (text: string) => boolean,
  maxBytes: number,
  /** Marks `item` as the step does (true) or says it is not the step's item (false), e.g. `(item) => leaveOutOldest([item])`. */
  apply: (item: Item) => boolean,
): string {
  let bound: number | undefined; // worked out at the first step: a package that fits already never pays for it
  let cursor = 0;
  const step = (): boolean => {
    bound ??= lowerBoundBytes(history, input);
    for (; cursor < history.length; cursor++) {
      const item = history[cursor]!;
      const before = shownBytesAtLeast(item, input);
      if (!apply(item)) continue;
      bound! += shownBytesAtLeast(item, input) - before;
      return true;
    }
    return false;
  };
  let current: string | undefined = text; // undefined: the items changed since `current` was rendered
  for (;;) {
    if (current === undefined) {
      if (bound! > maxBytes) {
        if (!step()) return render();
        continue;
      }
      current = render();
    }
    if (fits(current) || !step()) return current;
    current = undefined;
  }
}

/** At most the bytes the shown items take in the rendered package: each item's text and the `\n\n` before it. */
export function lowerBoundBytes(history: readonly Item[], input: Pick<PackageInput, 'readMemory'>): number {
  let bytes = 0;
  for (const item of history) bytes += shownBytesAtLeast(item, input);
  return bytes;
}

/**
 * At most the bytes `item` takes in the package (render.ts): none when left
 * out; a shortened memory at least its heading and its first sentence (a
 * note follows them); anything else its whole text.
 */
function shownBytesAtLeast(item: Item, input: Pick<PackageInput, 'readMemory'>): number {
  if (item.status === 'left-out') return 0;
  if (item.type === 'memory' && item.status === 'degraded') {
    const first = input.readMemory(item.memory!).sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
    return countBytes(`### ${memoryHeading(item.memory!)}\n\n${first}`) + 2;
  }
  return countBytes(item.render()) + 2;
}
