import { oneLine } from '../text/safe-text.js';
import type { MemoryCitations } from '../vault/citation-model.js';
import { staleNote } from './state.js';

/**
 * The one line a read command's text gives about a memory's citations (zoom,
 * the MCP tools' text): stale with what and where to fix it, or how they stood
 * when last checked, with the commit and the day. The `--json` outputs and the
 * MCP structured results carry the same as data (`citations`).
 *
 * @example
 *   citationLine({ state: 'verified', stale: false, checked: { commit: 'aa4c1039…', at: '2026-11-28T06:00:00.000Z' }, citations: [] });
 *   // → 'citations verified at aa4c103 on 2026-11-28'
 */
export function citationLine(checked: MemoryCitations): string {
  const when = checkedWhen(checked);
  const note = checked.stale ? staleNote(checked) : undefined;
  if (note) return `stale: ${oneLine(note)} (checked at ${when}; \`memvault verify\`)`;
  const doubtful = checked.citations.filter((c) => c.state !== 'verified');
  if (checked.state === 'verified' || doubtful.length === 0) return `citations verified at ${when}`;
  const what = doubtful
    .slice(0, 3)
    .map((c) => `\`${c.target}\` ${c.detail ?? c.state}`)
    .join('; ');
  return oneLine(
    `citations ${checked.state} (${what}${doubtful.length > 3 ? `; and ${doubtful.length - 3} more` : ''}), checked at ${when}`,
  );
}

/** The commit (short) and the day the citations were checked at: `aa4c103 on 2026-11-28`. */
export function checkedWhen(checked: Pick<MemoryCitations, 'checked'>): string {
  return `${checked.checked.commit.slice(0, 7)} on ${checked.checked.at.slice(0, 10)}`;
}
