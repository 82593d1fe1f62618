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

interface GptEncodingClass {
  getEncodingApi(name: TokenizerName, ranks: () => unknown[]): { countTokens: Counter };
}

/**
 * Loads an encoding's tables on this thread now (~150-200 ms), ahead of the counts that need them. The same encoding
 * as gpt-tokenizer's `encoding/<name>` module, made from its tables: in the bundle they are a JSON file
 * (scripts/bundle.mjs, `RANKS`), which costs each thread that loads them ~20 MB less memory than the tables' module
 * (a cold build loads them on three threads); from source, the tables' module itself.
 */
export function loadTokenizer(tokenizer: TokenizerName): Counter {
  let counter = counters.get(tokenizer);
  if (!counter) {
    // requireLazy keeps the load synchronous and lazy.
    const { GptEncoding } = requireLazy('gpt-tokenizer/cjs/GptEncoding') as { GptEncoding: GptEncodingClass };
    const tables = requireLazy(`gpt-tokenizer/cjs/bpeRanks/${tokenizer}`) as unknown[] | { default: unknown[] };
    const ranks = Array.isArray(tables) ? tables : tables.default;
    counter = GptEncoding.getEncodingApi(tokenizer, () => ranks).countTokens;
    counters.set(tokenizer, counter);
  }
  return counter;
}

/** UTF-8 byte length of `text`. */
export function countBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
