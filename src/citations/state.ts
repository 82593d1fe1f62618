import type { Memory } from '../vault/model.js';
import { type CheckedCitation, type Citation, type CitationState, HEAVY_CHANGES, type MemoryCitations } from '../vault/citation-model.js';
import { quoteKey } from './quote.js';
import type { CitingMemory, PathFacts, QuoteFinding, Verification } from './schema.js';

/**
 * From the repository facts (verify.ts) to each memory's citation states:
 * pure, so the build, `memvault verify` and the tests agree. A citation is
 * `verified` when nothing touched what it cites since the memory's date,
 * `changed` (N commits since), `moved` (renamed, the new path given), or
 * `gone` (deleted, with the commit and day, or never in the repository).
 */

const SEVERITY: Record<CitationState, number> = { gone: 4, moved: 3, changed: 2, verified: 1, unchecked: 0 };

/** How far a rename is followed (a → b → c …) before the chain is taken as broken. */
const MAX_HOPS = 5;

export const shortCommit = (id: string): string => id.slice(0, 7);
const dayOf = (isoDate: string): string => isoDate.slice(0, 10);

/** The instant of a memory in Unix seconds (a bare date is the start of that day, UTC). */
export function memorySeconds(memory: Pick<Memory, 'date' | 'day'>): number {
  const ms = Date.parse(memory.date);
  return Math.floor((Number.isNaN(ms) ? Date.parse(memory.day) : ms) / 1000);
}

/** One citation's state for a memory written at `since` (Unix seconds). */
export function checkCitation(citation: Pick<Citation, 'kind' | 'target'>, since: number, verification: Verification): CheckedCitation {
  const base = { kind: citation.kind, target: citation.target };
  if (citation.kind === 'issue') return { ...base, state: 'unchecked', detail: 'issues are not checked (no network)' };
  if (citation.kind === 'commit') {
    const full = verification.commits[citation.target];
    if (full === undefined) return { ...base, state: 'unchecked' };
    return full === null ? { ...base, state: 'gone', detail: 'no such commit in the repository' } : { ...base, state: 'verified' };
  }
  if (citation.kind === 'branch') {
    const exists = verification.branches[citation.target];
    if (exists === undefined) return { ...base, state: 'unchecked' };
    return exists ? { ...base, state: 'verified' } : { ...base, state: 'gone', detail: 'no branch of that name (merged and deleted?)' };
  }
  const facts = verification.paths[citation.target];
  if (!facts) return { ...base, state: 'unchecked' };
  if (facts.at !== 'absent') return changedSince(base, facts, since);
  // Renamed: followed to where it is now.
  let current: PathFacts = facts;
  let name = citation.target;
  for (let hop = 0; hop < MAX_HOPS && current.at === 'absent' && current.movedTo; hop++) {
    const next = verification.paths[current.movedTo];
    if (!next) break;
    name = current.movedTo;
    current = next;
  }
  if (current.at !== 'absent' && name !== citation.target) {
    const renamed = facts.renamed ? ` in ${shortCommit(facts.renamed.commit)} on ${dayOf(facts.renamed.date)}` : '';
    const changes = countAfter(current.touched, since);
    // The rename commit itself touched the new path: it is not a change to what the memory says.
    const after = Math.max(0, changes - (facts.renamed ? 1 : 0));
    const more = after > 0 ? `, ${after} commit${after === 1 ? '' : 's'} since` : '';
    return { ...base, state: 'moved', to: name, since: after, detail: `renamed to ${name}${renamed}${more}` };
  }
  const removed = current.removed;
  // Never in this repository's history: most likely another repository's file (or a name that only looks like a path),
  // not a claim gone stale. Flagging it would mark every memory of a vault kept apart from its code.
  if (!removed) return { ...base, state: 'unchecked', detail: "not in this repository's history" };
  return { ...base, state: 'gone', detail: `deleted in ${shortCommit(removed.commit)} on ${dayOf(removed.date)}` };
}

function changedSince(base: Pick<CheckedCitation, 'kind' | 'target'>, facts: PathFacts, since: number): CheckedCitation {
  const changes = countAfter(facts.touched, since);
  if (changes === 0) return { ...base, state: 'verified' };
  return { ...base, state: 'changed', since: changes, detail: `${changes} commit${changes === 1 ? '' : 's'} since` };
}

/** Commit times after `since` (no array made: this runs for every citation of every memory worked out). */
function countAfter(times: readonly number[], since: number): number {
  let count = 0;
  for (const t of times) if (t > since) count++;
  return count;
}

/** Whether a checked citation makes its memory stale: gone, moved, heavily changed, or its quoted text no longer in the file. */
export const isStaleCitation = (c: CheckedCitation): boolean =>
  c.state === 'gone' || c.state === 'moved' || (c.state === 'changed' && (c.since ?? 0) >= HEAVY_CHANGES) || c.quote === 'missing';

/**
 * A memory's citations checked, the worst first; undefined when it cites nothing. `findings`: its quotes not at their
 * cited lines (`quoteFindings`), when the caller has them already.
 */
export function memoryCitations(
  memory: Memory,
  verification: Verification,
  findings: readonly QuoteFinding[] | undefined = quoteFindings(memory, verification),
): MemoryCitations | undefined {
  return citationsAt(memory.citations ?? [], memorySeconds(memory), verification, findings);
}

/** The quotes of a memory (find.ts) that the verification's facts say are not at their cited lines; undefined when none. */
export function quoteFindings(memory: Pick<Memory, 'citations'>, verification: Verification): QuoteFinding[] | undefined {
  let findings: QuoteFinding[] | undefined;
  for (const c of memory.citations ?? []) {
    if (!c.quote || !c.lines) continue;
    const facts = verification.quotes?.[quoteKey(c.target, c.lines, c.quote)];
    if (!facts || facts.held) continue;
    (findings ??= []).push({ target: c.target, lines: c.lines, ...(facts.at ? { now: facts.at } : {}) });
  }
  return findings;
}

/**
 * Citations written at `since` (Unix seconds), checked against `verification`: what the store's readers compute too.
 * `findings`: the memory's quotes not at their cited lines (`verification.quoted` keeps them per memory).
 */
export function citationsAt(
  cited: readonly Pick<Citation, 'kind' | 'target'>[],
  since: number,
  verification: Verification,
  findings?: readonly QuoteFinding[],
): MemoryCitations | undefined {
  // Issues and pull requests are found and kept with the memory, but nothing can be checked about them offline.
  const checkable = cited.filter((c) => c.kind !== 'issue');
  if (checkable.length === 0) return undefined;
  const checked = checkable.map((c) => checkCitation(c, since, verification));
  // One entry per target (a path cited at two line ranges is one claim about one file).
  const byTarget = new Map<string, CheckedCitation>();
  for (const c of checked) if (!byTarget.has(`${c.kind}:${c.target}`)) byTarget.set(`${c.kind}:${c.target}`, c);
  for (const finding of findings ?? []) {
    const c = byTarget.get(`path:${finding.target}`);
    if (c && c.state !== 'gone' && c.state !== 'unchecked') byTarget.set(`path:${finding.target}`, withQuoteFinding(c, finding));
  }
  const citations = [...byTarget.values()].sort((a, b) => SEVERITY[b.state] - SEVERITY[a.state]);
  return {
    state: citations[0]!.state,
    stale: citations.some(isStaleCitation),
    checked: { commit: verification.head, at: verification.checkedAt },
    citations,
  };
}

/**
 * A path citation whose quoted text is not at the cited lines any more: `changed` at least (a quote elsewhere in the
 * file is a line number to update; one nowhere in it, a claim about code that is gone: stale).
 */
function withQuoteFinding(c: CheckedCitation, finding: QuoteFinding): CheckedCitation {
  // A second quote of the same file that moved too: the first one's note says enough.
  if (c.quote === 'missing' || (c.quote === 'moved' && finding.now)) return c;
  const range = ([a, b]: readonly [number, number]): string => (a === b ? `line ${a}` : `lines ${a}-${b}`);
  const note = `quoted text not at ${range(finding.lines)}, ${finding.now ? `now at ${range(finding.now)}` : 'no longer in the file'}`;
  const detail = c.detail ? `${c.detail.replace(/; quoted text .*$/, '')}; ${note}` : note;
  return {
    ...c,
    state: c.state === 'verified' ? 'changed' : c.state,
    since: c.since ?? 0,
    detail,
    quote: finding.now ? 'moved' : 'missing',
  };
}

/** The citing-memory record the store keeps (and search annotates hits with). */
export function citingMemory(memory: Memory, checked: MemoryCitations): CitingMemory {
  return {
    id: memory.id,
    stream: memory.stream,
    day: memory.day,
    kind: memory.kind,
    at: memorySeconds(memory),
    sha: memory.sha256,
    ...(memory.title ? { title: memory.title } : {}),
    ...checked,
  };
}

/** One line a person reads about a stale memory: `cites \`src/net/retry.ts\`, deleted in 3f2a1c0 on 2026-10-02`. */
export function staleNote(checked: Pick<MemoryCitations, 'citations'>): string | undefined {
  const stale = checked.citations.filter(isStaleCitation);
  if (stale.length === 0) return undefined;
  return stale
    .slice(0, 3)
    .map((c) => `cites \`${c.target}\`, ${c.detail ?? c.state}`)
    .join('; ')
    .concat(stale.length > 3 ? `; and ${stale.length - 3} more` : '');
}

/** The fix a person can make for a stale memory, as `memvault verify` suggests it. */
export function fixFor(path: string, checked: Pick<MemoryCitations, 'citations'>): string {
  const stale = checked.citations.filter(isStaleCitation);
  const moved = stale.find((c) => c.state === 'moved');
  if (moved && stale.every((c) => c.state === 'moved'))
    return `edit ${path}: write \`${moved.to}\` for \`${moved.target}\` (or mark \`valid_to:\` if it no longer holds)`;
  if (stale.some((c) => c.state === 'gone'))
    return `edit ${path} to say what replaced it, mark \`valid_to:\` in its frontmatter, or \`memvault resolve\` it if it states a fact`;
  return `re-read ${path} against the changed files and edit it, or mark \`valid_to:\` if it no longer holds`;
}
