import type { TierName } from './budget.js';
import type { Candidate, Version } from './candidates.js';
import type { Signals } from './signals.js';
import type { CitationLookup } from '../../citations/read.js';

/**
 * Citations in the context: a stale memory (a cited file gone, moved or much
 * changed) says so under its heading, and in the relevant tier it comes after
 * the others unless the signals name what it cites. Pure over the candidates.
 */
export function markStaleCandidates(
  candidates: Record<TierName, Candidate[]>,
  citations: CitationLookup | undefined,
  signals: Signals,
): Record<TierName, Candidate[]> {
  if (!citations) return candidates;
  const asked = [signals.query, signals.file, signals.error, signals.branch].filter(Boolean).join(' ');
  const mark = (version: Version): Version => {
    const note = citations.note(version.source);
    return note ? { ...version, text: `> **Stale:** ${note.replace(/\s+/g, ' ')}\n\n${version.text}` } : version;
  };
  const marked = {} as Record<TierName, Candidate[]>;
  for (const tier of Object.keys(candidates) as TierName[]) {
    // The index tier is one line of topics: nothing to mark.
    if (tier === 'index') {
      marked[tier] = candidates[tier];
      continue;
    }
    const list = candidates[tier].map((c) => ({
      ...c,
      versions: c.versions.map(mark),
      ...(c.whole ? { whole: mark(c.whole) } : {}),
    }));
    const demoted = (c: Candidate): boolean => citations.rankFactor(c.versions[0]!.source, asked) < 1;
    marked[tier] = tier === 'relevant' ? [...list.filter((c) => !demoted(c)), ...list.filter(demoted)] : list;
  }
  return marked;
}
