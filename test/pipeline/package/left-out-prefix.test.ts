import { describe, expect, it } from 'vitest';
import { memoryItem } from '../../../src/pipeline/package/items.js';
import { leftOutPrefix, pastLeftOut } from '../../../src/pipeline/package/left-out-prefix.js';
import type { Item, PackageInput } from '../../../src/pipeline/package/model.js';
import { renderPackage } from '../../../src/pipeline/package/render.js';
import type { ParsedContent } from '../../../src/store/cache.js';
import type { Memory } from '../../../src/vault/model.js';
import { memoryAt } from '../../helpers/memory-object.js';

/**
 * The package remembers the run of left-out items at the front of its history between renderings (a busy day leaves
 * out ~99,800 of 100,000 memories, oldest first): the text must be what a walk of the whole history gives, also after
 * items are left out, or inserted before the run (a summary replaced by its finer items, `history.sort`).
 */

const input = {
  stream: 'main',
  vaultLabel: 'vault',
  bands: { today: '2026-11-21', rawFrom: '2026-11-20' },
  memories: [] as Memory[],
  summaries: new Map(),
  upload: { max_tokens: 1000, max_bytes: 10_000 },
  tokenizer: 'o200k_base',
  readMemory: (memory: Memory) =>
    ({
      body: `Body of ${memory.id}.`,
      sentences: [{ text: `Body of ${memory.id}.`, role: 'body' }],
      headings: [],
    }) as unknown as ParsedContent,
  readSummary: () => {
    throw new Error('no summaries here');
  },
} as unknown as PackageInput;

function item(day: string, n: number): Item {
  const memory = { ...memoryAt('main', `${day}-m${n}`), day, date: `${day}T${String(n).padStart(2, '0')}:00:00Z`, minute: n * 60 };
  return memoryItem(memory, 'memory', input);
}

describe('the left-out run at the front of a package history', () => {
  it('is walked once, then grows as items are left out', () => {
    const history = Array.from({ length: 6 }, (_, n) => item('2026-11-20', n));
    const prefix = leftOutPrefix();
    expect(pastLeftOut(history, prefix)).toBe(0);
    history[0]!.status = 'left-out';
    history[1]!.status = 'left-out';
    expect(pastLeftOut(history, prefix)).toBe(2);
    history[2]!.status = 'left-out';
    expect(pastLeftOut(history, prefix)).toBe(3);
  });

  it('is looked for again when an item is inserted before its end', () => {
    const history = Array.from({ length: 6 }, (_, n) => item('2026-11-20', n));
    for (const old of history.slice(0, 4)) old.status = 'left-out';
    const prefix = leftOutPrefix();
    expect(pastLeftOut(history, prefix)).toBe(4);
    history.splice(1, 0, item('2026-11-19', 1)); // shown, before the run's end
    expect(pastLeftOut(history, prefix)).toBe(1);
    history.splice(0, 0, item('2026-11-18', 1));
    expect(pastLeftOut(history, prefix)).toBe(0);
  });

  it('renders the text a walk of the whole history renders, step after step', () => {
    const history = [...Array.from({ length: 8 }, (_, n) => item('2026-11-20', n))];
    const prefix = leftOutPrefix();
    const render = (remembered: boolean) => renderPackage(input, '2026-11-18', [], history, undefined, remembered ? prefix : undefined);
    const steps: (() => void)[] = [
      () => (history[0]!.status = 'left-out'),
      () => (history[1]!.status = 'left-out'),
      () => (history[2]!.status = 'degraded'),
      () => history.splice(1, 0, item('2026-11-19', 3)),
      () => (history[0]!.status = 'left-out'),
      () => history.splice(0, 0, item('2026-11-18', 2)),
      () => {
        for (const each of history.slice(0, 6)) each.status = 'left-out';
      },
    ];
    expect(render(true)).toBe(render(false));
    for (const step of steps) {
      step();
      const text = render(true);
      expect(text).toBe(render(false));
    }
    expect(render(true)).toContain('6 older item(s) did not fit the budget (2026-11-18 to 2026-11-20)');
  });
});
