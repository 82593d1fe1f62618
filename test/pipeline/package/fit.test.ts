import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leaveOutOldest, shortenOldestMemory } from '../../../src/pipeline/package/degrade.js';
import { degradeItemByItem, provablyOver } from '../../../src/pipeline/package/fit.js';
import { memoryItem } from '../../../src/pipeline/package/items.js';
import { leftOutPrefix } from '../../../src/pipeline/package/left-out-prefix.js';
import type { Item, PackageInput } from '../../../src/pipeline/package/model.js';
import { renderPackage } from '../../../src/pipeline/package/render.js';
import type { ParsedContent } from '../../../src/store/cache.js';
import type { Memory } from '../../../src/vault/model.js';
import { countBytes, countTokens } from '../../../src/util/tokens.js';
import { memoryAt } from '../../helpers/memory-object.js';

/**
 * The package's item-by-item degradation (shorten the oldest memory, then leave out the oldest item) skips
 * rendering while a lower bound of the package's bytes is over budget (fit.ts): it must end where the plain
 * loop ends, with the same text and the same statuses, whatever the memories and the budget.
 */

const WORDS = ['deploy', 'cache', 'p99', 'latency', 'went', 'from', '120ms', 'to', '840ms', 'Caroline', '#412', '`retry()`', 'fixed'];

function sentence(seed: number, words: number): string {
  return `${Array.from({ length: words }, (_, i) => WORDS[(seed * 31 + i * 7) % WORDS.length]).join(' ')}.`;
}

interface Shape {
  /** Sentences (by word count) of each memory, all on one day. */
  memories: number[][];
  maxBytes: number;
  maxTokens: number;
}

/** `titleRead`: told the id of each memory whose title is read (its heading worked out, or it is rendered). */
function setUp(shape: Shape, titleRead?: (id: string) => void): { input: PackageInput; history: Item[] } {
  const bodies = new Map<string, ParsedContent>();
  const memories: Memory[] = shape.memories.map((words, n) => {
    const id = `2026-11-20-m${String(n).padStart(4, '0')}`;
    const memory = {
      ...memoryAt('main', id),
      day: '2026-11-20',
      date: `2026-11-20T${String(n % 24).padStart(2, '0')}:00:00Z`,
      minute: (n % 24) * 60,
    };
    const sentences = words.map((count, k) => ({ text: sentence(n + k, count), role: 'body' }));
    bodies.set(id, { body: sentences.map((s) => s.text).join(' '), sentences, headings: [] } as unknown as ParsedContent);
    const title = `Step ${n}`;
    if (!titleRead) return { ...memory, title };
    return Object.defineProperty({ ...memory }, 'title', {
      enumerable: true,
      get: () => {
        titleRead(id);
        return title;
      },
    }) as Memory;
  });
  const input = {
    stream: 'main',
    vaultLabel: 'vault',
    bands: { today: '2026-11-21', rawFrom: '2026-11-20' },
    memories,
    summaries: new Map(),
    upload: { max_tokens: shape.maxTokens, max_bytes: shape.maxBytes },
    tokenizer: 'o200k_base',
    readMemory: (memory: Memory) => bodies.get(memory.id)!,
    readSummary: () => {
      throw new Error('no summaries here');
    },
  } as unknown as PackageInput;
  return { input, history: memories.map((memory) => memoryItem(memory, 'memory', input)) };
}

function degrade(
  shape: Shape,
  fast: boolean,
  titleRead?: (id: string) => void,
): { text: string; statuses: string[]; renders: number; ids: string[] } {
  const { input, history } = setUp(shape, titleRead);
  let renders = 0;
  // The fast loop renders as assemblePackage does, past the remembered left-out run at the front (left-out-prefix.ts).
  const prefix = leftOutPrefix();
  const render = (): string => {
    renders++;
    return renderPackage(input, '2026-11-20', [], history, undefined, fast ? prefix : undefined);
  };
  const fits = (text: string): boolean => countBytes(text) <= shape.maxBytes && countTokens(text, 'o200k_base') <= shape.maxTokens;
  if (fast) {
    let text: string | undefined = provablyOver(history, shape.maxBytes) ? undefined : render();
    text = degradeItemByItem(history, input, text, render, fits, shape.maxBytes, (item) => shortenOldestMemory([item], input));
    text = degradeItemByItem(history, input, text, render, fits, shape.maxBytes, (item) => leaveOutOldest([item])) ?? render();
    return { text, statuses: history.map((item) => `${item.status} ${item.reason ?? ''}`), renders, ids: history.map((item) => item.id) };
  }
  let text = render();
  for (const step of [() => shortenOldestMemory(history, input), () => leaveOutOldest(history)])
    while (!fits(text) && step()) text = render();
  return { text, statuses: history.map((item) => `${item.status} ${item.reason ?? ''}`), renders, ids: history.map((item) => item.id) };
}

describe('package degradation item by item', () => {
  it('ends with the text and statuses of the plain loop', () => {
    const shape = fc.record({
      memories: fc.array(fc.array(fc.integer({ min: 1, max: 14 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 30 }),
      maxBytes: fc.integer({ min: 200, max: 4000 }),
      maxTokens: fc.integer({ min: 50, max: 1000 }),
    });
    fc.assert(
      fc.property(shape, (s) => {
        const plain = degrade(s, false);
        const fast = degrade(s, true);
        expect(fast.text).toBe(plain.text);
        expect(fast.statuses).toEqual(plain.statuses);
      }),
      { numRuns: 40 },
    );
  });

  it('renders a busy day a few times, not once per memory', () => {
    const shape: Shape = { memories: Array.from({ length: 3000 }, (_, n) => [6 + (n % 5), 9]), maxBytes: 6000, maxTokens: 1500 };
    const fast = degrade(shape, true);
    expect(fast.statuses.filter((s) => s.startsWith('left-out')).length).toBeGreaterThan(2900);
    // Bounded by what the budget holds (headings of ~60 bytes in 6,000), not by the 3,000 memories: the plain loop renders ~6,000 times.
    expect(fast.renders).toBeLessThan(300);
  });

  it("works out the headings of a busy day's newest memories, not of all the memories it leaves out", () => {
    const shape: Shape = { memories: Array.from({ length: 3000 }, (_, n) => [6 + (n % 5), 9]), maxBytes: 6000, maxTokens: 1500 };
    const read = new Set<string>();
    const fast = degrade(shape, true, (id) => read.add(id));
    const leftOut = fast.ids.filter((_id, i) => fast.statuses[i]!.startsWith('left-out'));
    expect(leftOut.length).toBeGreaterThan(2900);
    // The budget holds ~100 headings: the walk sums that many from each end, not the 2,900 left out (~60 bytes each).
    expect(leftOut.filter((id) => read.has(id)).length).toBeLessThan(600);
  });

  it("works each shown item's text out once per assembly, the text a fresh item gives whatever its status since", () => {
    const shape: Shape = { memories: [[6, 9], [7], [8, 5]], maxBytes: 100_000, maxTokens: 100_000 };
    const reads = new Map<string, number>();
    const { input, history } = setUp(shape);
    const readMemory = input.readMemory;
    input.readMemory = (memory) => {
      reads.set(memory.id, (reads.get(memory.id) ?? 0) + 1);
      return readMemory(memory);
    };
    const render = () => renderPackage(input, '2026-11-20', [], history, undefined);
    const first = render();
    // Degraded then bought back, as a step near the budget and `refine` do: the memory's own text does not change.
    history[1]!.status = 'degraded';
    history[1]!.status = 'included';
    expect([render(), render()]).toEqual([first, first]);
    expect([...reads.values()]).toEqual([1, 1, 1]);
    expect(renderPackage(input, '2026-11-20', [], setUp(shape).history, undefined)).toBe(first);
  });
});
