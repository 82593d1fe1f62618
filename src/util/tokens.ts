import { createRequire } from 'node:module';

/**
 * Token counting with a real tokenizer (gpt-tokenizer). The encoding tables
 * take ~200 ms to load, so they are loaded on first use: a no-change rebuild
 * that counts nothing never pays for them.
 */
export type TokenizerName = 'o200k_base' | 'cl100k_base';

type Counter = (text: string) => number;

const require = createRequire(import.meta.url);
const counters = new Map<TokenizerName, Counter>();

/** Counts on another thread that already has the tables loaded; undefined when it cannot. */
export type RemoteCounter = (text: string, tokenizer: TokenizerName) => number | undefined;
let remote: RemoteCounter | undefined;

/**
 * While set, counts go to `counter` (the build helper's thread, helper.ts)
 * instead of loading the tables on this thread; `undefined` restores
 * in-process counting. Counts are the same either way.
 */
export function setRemoteCounter(counter: RemoteCounter | undefined): void {
  remote = counter;
}

/** Number of tokens of `text` in the given encoding (default o200k_base, as for GPT-4o and later). */
export function countTokens(text: string, tokenizer: TokenizerName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  let counter = counters.get(tokenizer);
  if (!counter && remote) {
    const counted = remote(text, tokenizer);
    if (counted !== undefined) return counted;
    remote = undefined;
  }
  return (counter ?? loadTokenizer(tokenizer))(text);
}

/** Loads an encoding's tables on this thread now (~150-200 ms), ahead of the counts that need them. */
export function loadTokenizer(tokenizer: TokenizerName): Counter {
  let counter = counters.get(tokenizer);
  if (!counter) {
    // createRequire keeps the load synchronous and lazy; the package ships CommonJS builds of each encoding.
    const encoding = require(`gpt-tokenizer/cjs/encoding/${tokenizer}`) as { countTokens: Counter };
    counter = encoding.countTokens;
    counters.set(tokenizer, counter);
  }
  return counter;
}

/** UTF-8 byte length of `text`. */
export function countBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
