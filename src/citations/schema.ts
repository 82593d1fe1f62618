import * as z from 'zod/mini';

/**
 * The shapes of what verification stores (store.ts), as zod schemas and the
 * types they give: read back through them, since the rows live outside git
 * and may be damaged. Apart from store.ts so that state.ts, which works out
 * citation states from them, does not import the store that imports it.
 */

// 2: `lines` in a file's facts (a cited line range past the end of the file); a store of version 1 is checked again whole.
// 3: the stale memories and their notes in a table of their own (`citation_notes`), not in the verification row.
export const STORE_VERSION = 3;

const stateSchema = z.enum(['verified', 'changed', 'moved', 'gone', 'unchecked']);

/** What git said about one cited path at `head`. */
export const pathFactsSchema = z.object({
  /** What the path is at HEAD. */
  at: z.enum(['file', 'dir', 'absent']),
  /** Committer times (Unix seconds) of the commits that touched it, renames followed back; newest first. */
  touched: z.array(z.number()),
  /** Absent at HEAD and not renamed: the commit that deleted it. */
  removed: z.optional(z.object({ commit: z.string(), date: z.string() })),
  /** Renamed (as `-M` detects it): the path it has now, and the commit that renamed it. */
  movedTo: z.optional(z.string()),
  renamed: z.optional(z.object({ commit: z.string(), date: z.string() })),
  /** A file at HEAD: how many lines it has (a cited line range past them is flagged). */
  lines: z.optional(z.number()),
});
export type PathFacts = z.infer<typeof pathFactsSchema>;

const lineRangeSchema = z.tuple([z.number(), z.number()]);

/** A quoted snippet checked at `head` (quote.ts): held at its cited lines, or the lines holding it now, or neither. */
const quoteFactsSchema = z.object({ held: z.boolean(), at: z.optional(lineRangeSchema) });

/**
 * A memory's cited lines that do not hold what it says: a quote not at its cited lines (the cited path and lines, and
 * where the quote is now; absent: not in the file), or, with `fileLines`, a range without a quote that runs past the end
 * of the file (it has `fileLines` lines).
 */
const quoteFindingSchema = z.object({
  target: z.string(),
  lines: lineRangeSchema,
  now: z.optional(lineRangeSchema),
  fileLines: z.optional(z.number()),
});
export type QuoteFinding = z.infer<typeof quoteFindingSchema>;

const checkedCitationSchema = z.object({
  kind: z.enum(['path', 'commit', 'branch', 'issue']),
  target: z.string(),
  state: stateSchema,
  detail: z.optional(z.string()),
  since: z.optional(z.number()),
  to: z.optional(z.string()),
  quote: z.optional(z.enum(['moved', 'missing'])),
});

const memoryCitationsSchema = z.object({
  state: stateSchema,
  stale: z.boolean(),
  checked: z.object({ commit: z.string(), at: z.string() }),
  citations: z.array(checkedCitationSchema),
});

/**
 * A citing memory as stored (a `citing_memories` row): what it is and what it cites, nothing that depends on the
 * repository. Its states are worked out when it is read, from the verification's facts: a commit that changes the
 * states of thousands of memories rewrites the small facts row, not thousands of memory rows (as JSON shards, rewriting
 * them cost 2.5 s at 20,000 memories).
 */
export const storedMemorySchema = z.object({
  id: z.string(),
  stream: z.string(),
  day: z.string(),
  kind: z.string(),
  title: z.optional(z.string()),
  at: z.number(),
  /** `[kind, target]` of each checkable citation. */
  cites: z.array(z.tuple([z.enum(['path', 'commit', 'branch']), z.string()])),
});

export const citingMemorySchema = z.extend(memoryCitationsSchema, {
  /** The memory's instant, Unix seconds (what "commits since" counts from). */
  at: z.number(),
  /** The memory file's SHA-256 (kept with its row: an unchanged memory's row is not written again). */
  sha: z.optional(z.string()),
  id: z.string(),
  stream: z.string(),
  day: z.string(),
  kind: z.string(),
  title: z.optional(z.string()),
});
export type CitingMemory = z.infer<typeof citingMemorySchema>;

/**
 * The verification row (`kv` `citations/verification`): the facts, what they were checked at, the fingerprints and the
 * quote findings; small whatever the number of stale memories, whose notes are rows of `citation_notes` (store.ts).
 */
export const verificationFactsSchema = z.object({
  version: z.literal(STORE_VERSION),
  /** The repository checked (its top folder). */
  repo: z.string(),
  /** The commit every fact below was checked at, and when. */
  head: z.string(),
  checkedAt: z.string(),
  paths: z.record(z.string(), pathFactsSchema),
  /** Cited commit ids as written → the full id, or null when the repository has no such commit. */
  commits: z.record(z.string(), z.nullable(z.string())),
  /** Cited branch names → whether a local or remote branch (or tag) of that name exists. */
  branches: z.record(z.string(), z.boolean()),
  /** Fingerprint of the citing memories checked (paths and content hashes): with HEAD unchanged, nothing to check again. */
  inputs: z.optional(z.string()),
  /** Quoted snippets checked, by quote key (quote.ts): what the next check keeps for files that did not change. */
  quotes: z.optional(z.record(z.string(), quoteFactsSchema)),
  /**
   * Memories with a quote not at its cited lines or a line range past the end of its file (vault path → those
   * findings): what a reader's states are made with.
   */
  quoted: z.optional(z.record(z.string(), z.array(quoteFindingSchema))),
});
/** What a reader's states are worked out from (state.ts): the facts without the stale memories' notes. */
export type VerificationFacts = z.infer<typeof verificationFactsSchema>;

/** A verification as a check makes it and a build reads it back: the facts, and the stale memories with their notes. */
export interface Verification extends VerificationFacts {
  /** The memories (vault paths) that were stale at this check: the next one says which became stale since. */
  stale: string[];
  /** Each stale memory's note (vault path → `cites \`src/a.ts\`, deleted in …`), for a build that checks nothing again. */
  notes?: Record<string, string>;
}
