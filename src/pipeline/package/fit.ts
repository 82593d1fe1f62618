import { countBytes } from '../../util/tokens.js';
import { memoryHeading } from './items.js';
import { type Item, openingOf, type PackageInput, shownShortened } from './model.js';

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
 *   its size in bytes (the shown items' headings and the blank line before
 *   each, `BoundAtCursor`) is compared with the budget per step, and the
 *   package is rendered only when the bound is within it. Above it, `fits`
 *   would say no anyway.
 *
 * The result is the same as the plain loop's, byte for byte (test/pipeline/package/fit.test.ts), but for one thing: a
 * package still over budget when the steps run out is returned unrendered (undefined), as it may have come in; the
 * next steps start from it, and the caller renders what the last one leaves (a busy day's 100,000 shortened
 * memories were rendered only to be left out).
 */
export function degradeItemByItem(
  history: readonly Item[],
  input: Pick<PackageInput, 'readMemory' | 'readOpening'>,
  /** The package as it stands, or undefined when it was not rendered because `provablyOver` said it is over budget. */
  text: string | undefined,
  render: () => string,
  fits: (text: string) => boolean,
  maxBytes: number,
  /** Marks `item` as the step does (true) or says it is not the step's item (false), e.g. `leaveOut` (degrade.ts). */
  apply: (item: Item) => boolean,
): string | undefined {
  const texts = new WeakMap<Item, number>();
  const shortBytes = new WeakMap<object, number>(); // a shortened memory's heading and first sentence
  let firstShown = 0;
  const bound = new BoundAtCursor(history, maxBytes);
  const step = (): boolean => {
    for (; bound.cursor < history.length; bound.advance()) if (apply(history[bound.cursor]!)) return true;
    return false;
  };
  let current: string | undefined = text; // undefined: the items changed since `current` was rendered
  for (;;) {
    if (current === undefined) {
      // Near the budget the headings alone say too little: the shown items' text (few of them by then) says more.
      // Items are only ever left out here, never brought back: the scan starts past the left-out ones at the front.
      while (history[firstShown]?.status === 'left-out') firstShown++;
      if (bound.over() || closerBoundBytes(history, firstShown, input, texts, shortBytes) > maxBytes) {
        // Out of steps and still over: the next steps (or the caller) render it if need be, not this one.
        if (!step()) return undefined;
        continue;
      }
      current = render();
    }
    if (fits(current) || !step()) return current;
    current = undefined;
  }
}

/**
 * Whether the shown items' bytes (`shownBytesAtLeast`, summed) are over `maxBytes` while a step walks the history with
 * a cursor, without working out every item's heading: a busy day has 100,000, and summing them all cost ~100 ms of
 * its one-more-memory build (issue 29). A step changes only the item at the cursor and the cursor only moves forward,
 * so the items before it keep the bytes they had when it passed them (summed until the sum is over: it only grows),
 * and the items after it keep the bytes they had when the walk began (summed from the end, until that is over). The
 * answer is the one the sum of every item would give.
 */
class BoundAtCursor {
  cursor = 0;
  /** Bytes of the items before the cursor, as the steps left them; past `maxBytes` no longer added up. */
  private passed = 0;
  /** `tail[k]`: bytes of the last k items; past `maxBytes` no longer extended. */
  private readonly tail: number[] = [0];

  constructor(
    private readonly history: readonly Item[],
    private readonly maxBytes: number,
  ) {}

  /** Moves the cursor past its item. */
  advance(): void {
    if (this.passed <= this.maxBytes) this.passed += shownBytesAtLeast(this.history[this.cursor]!);
    this.cursor++;
  }

  over(): boolean {
    if (this.passed > this.maxBytes) return true;
    const after = this.bytesFrom(this.cursor + 1);
    if (after > this.maxBytes) return true;
    const at = this.cursor < this.history.length ? shownBytesAtLeast(this.history[this.cursor]!) : 0;
    return this.passed + at + after > this.maxBytes;
  }

  /** Bytes of `history[from..]`: exact up to `maxBytes`, else some number over it. */
  private bytesFrom(from: number): number {
    const { history } = this;
    const tail = this.tail;
    if (from >= history.length) return 0;
    while (tail.length - 1 < history.length - from) {
      const sum = tail[tail.length - 1]!;
      if (sum > this.maxBytes) return sum; // the items further front only add to it
      tail.push(sum + shownBytesAtLeast(history[history.length - tail.length]!));
    }
    return tail[history.length - from]!;
  }
}

/**
 * A closer lower bound than the headings (`BoundAtCursor`), reading bodies: a memory in full is its whole text, a shortened one its
 * heading and first sentence (a note follows). Asked only once the headings fit, when few items are shown.
 */
function closerBoundBytes(
  history: readonly Item[],
  from: number,
  input: Pick<PackageInput, 'readMemory' | 'readOpening'>,
  texts: WeakMap<Item, number>,
  shortBytes: WeakMap<object, number>,
): number {
  let bytes = 0;
  for (let i = from; i < history.length; i++) {
    const item = history[i]!;
    if (item.status === 'left-out') continue;
    // Its first sentence: at most what a shortened memory shows, so the bound stays a lower bound.
    if (shownShortened(item)) {
      // Asked at every step near the budget for each shown memory (a few hundred on a busy day): worked out once per memory.
      let size = shortBytes.get(item.memory!);
      if (size === undefined) {
        const first = openingOf(input, item.memory!, 1)[0] ?? '';
        shortBytes.set(item.memory!, (size = countBytes(`### ${memoryHeading(item.memory!)}\n\n${first}`) + 2));
      }
      bytes += size;
      continue;
    }
    let size = texts.get(item);
    if (size === undefined) texts.set(item, (size = countBytes(item.render()) + 2));
    bytes += size;
  }
  return bytes;
}

/** True when the package of `history` cannot fit `maxBytes` whatever else it holds: no need to render it to know. */
export function provablyOver(history: readonly Item[], maxBytes: number): boolean {
  // Summed only until it is over: a busy day's first few hundred headings say so, not all 100,000.
  let bytes = 0;
  for (const item of history) {
    bytes += shownBytesAtLeast(item);
    if (bytes > maxBytes) return true;
  }
  return false;
}

const headingBytes = new WeakMap<object, number>();

/**
 * At most the bytes `item` takes in the package (render.ts): none when left
 * out; a memory, shown in full or shortened, at least its heading line (its
 * body, or its first sentence and a note, come after it: no body is read to
 * know this); a summary its whole text.
 */
function shownBytesAtLeast(item: Item): number {
  if (item.status === 'left-out') return 0;
  if (item.type === 'memory') {
    // Asked for every memory of the day at each phase and twice per step: worked out once per memory.
    let bytes = headingBytes.get(item.memory!);
    if (bytes === undefined) headingBytes.set(item.memory!, (bytes = countBytes(`### ${memoryHeading(item.memory!)}\n\n`) + 2));
    return bytes;
  }
  return countBytes(item.render()) + 2;
}

/**
 * `input` with its body readers remembering what they read, for one assembly: the package is rendered again after
 * each degradation step near the budget, and each rendering read every shown body again (from the content pack).
 */
export function rememberingReaders(input: PackageInput): PackageInput {
  const once = <K extends object, V>(read: (key: K) => V): ((key: K) => V) => {
    const known = new Map<K, V>();
    return (key) => {
      let value = known.get(key);
      if (value === undefined) known.set(key, (value = read(key)));
      return value;
    };
  };
  return {
    ...input,
    readMemory: once(input.readMemory),
    readSummary: once(input.readSummary),
    ...(input.readShown ? { readShown: once(input.readShown) } : {}),
    ...(input.readOpening ? { readOpening: openingOnce(input.readOpening) } : {}),
  };
}

/** `read` remembering each memory's opening per count of sentences (a degraded memory shows 1, an opening 3). */
function openingOnce(read: NonNullable<PackageInput['readOpening']>): NonNullable<PackageInput['readOpening']> {
  const known = new Map<object, Map<number, string[]>>();
  return (memory, count) => {
    let counts = known.get(memory);
    if (!counts) known.set(memory, (counts = new Map()));
    let sentences = counts.get(count);
    if (!sentences) counts.set(count, (sentences = read(memory, count)));
    return sentences;
  };
}
