import { lazy, requireLazy } from '../util/lazy.js';

// The stop-word list is loaded on first use: only index topics and metrics need it.
const stopWords = lazy(
  () =>
    new Set<string>([
      ...(requireLazy('stopword') as { eng: string[] }).eng,
      'also',
      'just',
      'like',
      'really',
      'today',
      'yesterday',
      'tomorrow',
      'got',
      'get',
      'make',
      'made',
      'still',
      'will',
      'would',
      'could',
      'should',
      'one',
      'two',
      'day',
      'week',
      'month',
      'done',
      'context',
      'keep',
      'state',
      'decisions',
      'mon',
      'tue',
      'wed',
      'thu',
      'fri',
      'sat',
      'sun',
      'pinned',
    ]),
);

/**
 * Content words of a text: lowercased words of three or more letters or
 * digits, English stop words removed. The unit for topics, distinctiveness
 * and recall metrics.
 */
export function contentWords(text: string): string[] {
  const stop = stopWords();
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
  // Digits and dashes only (dates, ranges, counts) say nothing about a topic.
  return words.filter((word) => word.length >= 3 && !stop.has(word) && !/^[\d-]+$/.test(word));
}

/** Term frequencies of a text's content words. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of contentWords(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * The most distinctive terms of each document against the others (tf·idf),
 * best first; ties broken alphabetically so the result is deterministic.
 */
export function distinctiveTerms(documents: ReadonlyMap<string, ReadonlyMap<string, number>>, limit: number): Map<string, string[]> {
  const documentFrequency = new Map<string, number>();
  for (const counts of documents.values())
    for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const total = documents.size;
  const out = new Map<string, string[]>();
  for (const [key, counts] of documents) {
    const scored = [...counts].map(([term, count]) => [term, count * Math.log((1 + total) / (documentFrequency.get(term) ?? 1))] as const);
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    out.set(
      key,
      scored.slice(0, limit).map(([term]) => term),
    );
  }
  return out;
}
