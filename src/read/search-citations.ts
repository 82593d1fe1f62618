import type { SearchGroup } from '../search/query.js';
import type { CitationLookup } from '../citations/read.js';

/**
 * Citations in search: a stale memory's score is multiplied down (read.ts,
 * `rankFactor`) on top of the usage boost, and every memory hit that cites
 * something carries its citations' state and when they were checked.
 */

export function citationBoost(
  citations: CitationLookup,
  query: string,
  usage: ((docPath: string) => number) | undefined,
): (docPath: string) => number {
  return (docPath) => (usage ? usage(docPath) : 1) * citations.rankFactor(docPath, query);
}

export function withCitations(hits: SearchGroup[], citations: CitationLookup | undefined): SearchGroup[] {
  if (!citations) return hits;
  for (const hit of hits) {
    const checked = hit.tier === 'memories' ? citations.get(hit.path) : undefined;
    if (checked) hit.citations = checked;
  }
  return hits;
}
