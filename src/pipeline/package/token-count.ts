import { countTokens, type TokenizerName } from '../../util/tokens.js';

/**
 * The exact token count of texts that share most of their lines (the package
 * rendered again after each step of `refine`: a busy day's ~170 steps each
 * counted a ~30 KB package whole, ~5 % of a one-more-memory build).
 *
 * Both encodings cut a text into pieces with a regular expression before
 * byte-pair encoding each piece (gpt-tokenizer's `tokenSplitRegex`), and no
 * piece of either (`o200k_base`, `cl100k_base`) runs from a line break into a
 * line that starts with a character other than white space or `/`: letters
 * never take a line break before them, punctuation takes line breaks (and `/`)
 * after it but nothing else, and white space ending in a line break is a piece
 * of its own whatever follows it. The count of a text is then the sum of the
 * counts of its pieces between such line starts, each counted once and
 * remembered (test/pipeline/package/token-count.test.ts checks the sum
 * against the whole count).
 */
export function segmentedTokenCounter(tokenizer: TokenizerName): (text: string) => number {
  const known = new Map<string, number>();
  return (text) => {
    let sum = 0;
    for (const segment of text.split(LINE_START)) {
      let tokens = known.get(segment);
      if (tokens === undefined) known.set(segment, (tokens = countTokens(segment, tokenizer)));
      sum += tokens;
    }
    return sum;
  };
}

/** Where a line starts with a character that no piece before it can take: after a line break, before anything but white space or `/`. */
const LINE_START = /(?<=\n)(?=[^\s/])/;
