/**
 * Facts: atomic `key = value` statements with a scope and a validity window,
 * taken from memories of `kind: fact` (frontmatter `key`, `value`, `scope`,
 * `confidence`, `supersedes`, `valid_from`, `valid_to`) and from inline lines
 * `Fact: key = value (scope)` in any memory. A fact is never resolved
 * silently: two facts that hold at the same time for the same key and scope
 * with different values are a contradiction until a person says otherwise
 * (`memvault resolve`). See docs/facts.md.
 */

export interface Fact {
  /** The memory id for a `kind: fact` memory; `<memory id>#<key>[@<scope>]` for an inline fact. */
  id: string;
  memoryId: string;
  /** Vault-relative path of the memory. */
  path: string;
  /** 1-based line of the file the fact is written on (the `key:` line for a fact memory). */
  line: number;
  /** Normalized key: trimmed, lower case, inner spaces as `_` (`Primary DB` → `primary_db`). */
  key: string;
  value: string;
  /** `''` when the fact holds everywhere. Normalized like the key. */
  scope: string;
  confidence: number | undefined;
  /** Memory ids whose facts of the same key and scope this one replaces. */
  supersedes: string[];
  /** Memory ids a person said hold together with this one (`memvault resolve --keep both`). */
  compatibleWith: string[];
  /** Day the fact starts to hold (`valid_from`, else the memory's day), `YYYY-MM-DD`. */
  validFrom: string;
  /** Day it stops holding (exclusive), when written. */
  validTo: string | undefined;
  /** The memory's own day, `YYYY-MM-DD`. */
  day: string;
  source: 'frontmatter' | 'inline';
}

/** A fact with the end its supersessions give it: the day a fact replacing it starts, if earlier than its own end. */
export interface TimedFact extends Fact {
  /** Exclusive end of validity after supersession; undefined while open. */
  effectiveTo: string | undefined;
  /** Ids of the facts that replace this one. */
  supersededBy: string[];
}

/** Two facts that hold at the same time for the same key and scope with different values, neither replacing the other. */
export interface Contradiction {
  /** Stable id from the two facts' ids: `c-` and 8 hex digits. */
  id: string;
  key: string;
  scope: string;
  /** The earlier fact (by valid-from day, then path). */
  a: Fact;
  b: Fact;
  /** First day both hold. */
  since: string;
}

/**
 * A fact as its memory keeps it (`Memory.facts`, stored in the parse cache): without what the memory already says
 * (its id, path and day). `factsOf(memory)` gives the full facts back.
 */
export type MemoryFact = Omit<Fact, 'memoryId' | 'path' | 'day'>;
