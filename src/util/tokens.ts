import { requireLazy } from './lazy.js';

/**
 * Token counting with a real tokenizer (gpt-tokenizer). The encoding tables
 * take ~200 ms to load, so they are loaded on first use: a no-change rebuild
 * that counts nothing never pays for them.
 */
export type TokenizerName = 'o200k_base' | 'cl100k_base';

type Counter = (text: string) => number;

const counters = new Map<TokenizerName, Counter>();

/** Number of tokens of `text` in the given encoding (default o200k_base, as for GPT-4o and later). */
export function countTokens(text: string, tokenizer: TokenizerName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  return (counters.get(tokenizer) ?? loadTokenizer(tokenizer))(text);
}

/** Loads an encoding's tables on this thread now (~150-200 ms), ahead of the counts that need them. */
export function loadTokenizer(tokenizer: TokenizerName): Counter {
  let counter = counters.get(tokenizer);
  if (!counter) {
    // requireLazy keeps the load synchronous and lazy; the package ships CommonJS builds of each encoding.
    const encoding = requireLazy(`gpt-tokenizer/cjs/encoding/${tokenizer}`) as { countTokens: Counter };
    counter = encoding.countTokens;
    counters.set(tokenizer, counter);
  }
  return counter;
}

/** UTF-8 byte length of `text`. */
export function countBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
