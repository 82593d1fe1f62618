import type { Memory } from '../vault/model.js';
import { type CheckedCitation, type Citation, type CitationState, HEAVY_CHANGES, type MemoryCitations } from '../vault/citation-model.js';
import { quoteKey } from './quote.js';
import type { CitingMemory, PathFacts, QuoteFinding, VerificationFacts } from './schema.js';

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
export function checkCitation(
  citation: Pick<Citation, 'kind' | 'target'>,
  since: number,
  verification: VerificationFacts,
): CheckedCitation {
  return statesOf(verification).check(citation.kind, citation.target, since);
}

/**
 * A citation's state depends on its target's facts and, for a path, only on how many of its commits are after the
 * memory's date: per verification, each target's states are made once per count and shared by every memory citing it
 * (a commit that touches a file 4,500 memories cite made 4,500 detail strings alike; the objects are never mutated).
 */
interface TargetStates {
  check(kind: Citation['kind'], target: string, since: number): CheckedCitation;
  /** The commit and time every state is at (one object for all memories). */
  checked: MemoryCitations['checked'];
}

const statesByVerification = new WeakMap<VerificationFacts, TargetStates>();

function statesOf(verification: VerificationFacts): TargetStates {
  let states = statesByVerification.get(verification);
  if (!states) statesByVerification.set(verification, (states = targetStates(verification)));
  return states;
}

/** A target's states: the one state, or (a path whose state counts commits) one per count, made when first asked. */
type Made = { one: CheckedCitation } | { touched: readonly number[]; byCount: CheckedCitation[] };

function targetStates(verification: VerificationFacts): TargetStates {
  // Per kind, per target (no key string made per question: thousands of memories ask).
  const made: Record<Citation['kind'], Map<string, Made>> = { path: new Map(), commit: new Map(), branch: new Map(), issue: new Map() };
  return {
    checked: { commit: verification.head, at: verification.checkedAt },
    check(kind, target, since) {
      let entry = made[kind].get(target);
      if (entry === undefined) {
        const counted = kind === 'path' ? countedFacts(target, verification) : undefined;
        entry = counted ? { touched: counted.touched, byCount: [] } : { one: uncachedCheck({ kind, target }, since, verification) };
        made[kind].set(target, entry);
      }
      if ('one' in entry) return entry.one;
      return (entry.byCount[countAfter(entry.touched, since)] ??= uncachedCheck({ kind, target }, since, verification));
    },
  };
}

/** The facts whose commit count makes a path citation's state (the file itself, or where it was renamed to); else undefined. */
function countedFacts(target: string, verification: VerificationFacts): PathFacts | undefined {
  const facts = verification.paths[target];
  if (!facts) return undefined;
  if (facts.at !== 'absent') return facts;
  let current: PathFacts = facts;
  for (let hop = 0; hop < MAX_HOPS && current.at === 'absent' && current.movedTo; hop++) {
    const next = verification.paths[current.movedTo];
    if (!next) break;
    current = next;
  }
  return current.at !== 'absent' ? current : undefined;
}

function uncachedCheck(citation: Pick<Citation, 'kind' | 'target'>, since: number, verification: VerificationFacts): CheckedCitation {
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
 * A memory's cited line ranges that the verification's facts say do not hold what it says: quotes (find.ts) not at
 * their cited lines, and ranges without a quote that run past the end of the file (its new name's, when renamed);
 * undefined when none.
 */
export function citedLineFindings(memory: Pick<Memory, 'citations'>, verification: VerificationFacts): QuoteFinding[] | undefined {
  let findings: QuoteFinding[] | undefined;
  for (const c of memory.citations ?? []) {
    if (c.kind !== 'path' || !c.lines) continue;
    if (!c.quote) {
      // A quote's own check says more (where the text is now); without one, the range can at least be in the file.
      const fileLines = countedFacts(c.target, verification)?.lines;
      if (fileLines !== undefined && c.lines[1] > fileLines) (findings ??= []).push({ target: c.target, lines: c.lines, fileLines });
      continue;
    }
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
  verification: VerificationFacts,
  findings?: readonly QuoteFinding[],
): MemoryCitations | undefined {
  // Issues and pull requests are found and kept with the memory, but nothing can be checked about them offline. One entry
  // per target (a path cited at two line ranges is one claim about one file); a loop, not maps and filters: this runs
  // for every memory a commit can change (thousands).
  const states = statesOf(verification);
  const citations: CheckedCitation[] = [];
  for (const c of cited)
    if (c.kind !== 'issue' && indexOf(citations, c.kind, c.target) < 0) citations.push(states.check(c.kind, c.target, since));
  if (citations.length === 0) return undefined;
  for (const finding of findings ?? []) {
    const at = indexOf(citations, 'path', finding.target);
    const c = citations[at];
    if (c && c.state !== 'gone' && c.state !== 'unchecked') citations[at] = withQuoteFinding(c, finding);
  }
  // Worst state first, in the order cited among equals (a stable insertion sort: most memories cite two or three things).
  for (let i = 1; i < citations.length; i++) {
    const c = citations[i]!;
    let at = i;
    for (; at > 0 && SEVERITY[citations[at - 1]!.state] < SEVERITY[c.state]; at--) citations[at] = citations[at - 1]!;
    citations[at] = c;
  }
  return {
    state: citations[0]!.state,
    stale: citations.some(isStaleCitation),
    checked: states.checked,
    citations,
  };
}

/** Where the citation of `kind` and `target` is in `citations`, or -1. */
function indexOf(citations: readonly CheckedCitation[], kind: Citation['kind'], target: string): number {
  for (let i = 0; i < citations.length; i++) if (citations[i]!.target === target && citations[i]!.kind === kind) return i;
  return -1;
}

/**
 * A path citation whose cited lines do not hold what the memory says: `changed` at least. A quote elsewhere in the file
 * or a range past its end is a line number to update; a quote nowhere in it, a claim about code that is gone: stale.
 */
function withQuoteFinding(c: CheckedCitation, finding: QuoteFinding): CheckedCitation {
  if (finding.fileLines !== undefined) return withRangePastEnd(c, finding.lines, finding.fileLines);
  // A second quote of the same file that moved too: the first one's note says enough.
  if (c.quote === 'missing' || (c.quote === 'moved' && finding.now)) return c;
  const note = `quoted text not at ${lineRange(finding.lines)}, ${finding.now ? `now at ${lineRange(finding.now)}` : 'no longer in the file'}`;
  const detail = c.detail ? `${withoutLineNote(c.detail)}; ${note}` : note;
  return {
    ...c,
    state: c.state === 'verified' ? 'changed' : c.state,
    since: c.since ?? 0,
    detail,
    quote: finding.now ? 'moved' : 'missing',
  };
}

const PAST_END = ' past the end (';

/** `changed`, with `line 120 is past the end (40 lines)`; a note about the same file's quote or another range is enough. */
function withRangePastEnd(c: CheckedCitation, lines: readonly [number, number], fileLines: number): CheckedCitation {
  if (c.quote || c.detail?.includes(PAST_END)) return c;
  const [a, b] = lines;
  // All of it after the last line (`line 120 is`, `lines 120-130 are`), or from inside the file past it (`lines 30-50 run`).
  const what = a > fileLines ? `${lineRange(lines)} ${a === b ? 'is' : 'are'}` : `${lineRange(lines)} run`;
  const note = `${what}${PAST_END}${fileLines} line${fileLines === 1 ? '' : 's'})`;
  return {
    ...c,
    state: c.state === 'verified' ? 'changed' : c.state,
    since: c.since ?? 0,
    detail: c.detail ? `${c.detail}; ${note}` : note,
  };
}

const lineRange = ([a, b]: readonly [number, number]): string => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** A detail without the note a quote or line range added (a later quote's note replaces it). */
const withoutLineNote = (detail: string): string =>
  detail.replace(/; quoted text .*$/, '').replace(/; lines? \S+ (is|are|run) past the end \(.*$/, '');

/** The citing-memory record the store keeps (and search annotates hits with). */
export function citingMemory(memory: Memory, checked: MemoryCitations, at: number = memorySeconds(memory)): CitingMemory {
  return {
    id: memory.id,
    stream: memory.stream,
    day: memory.day,
    kind: memory.kind,
    at,
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
