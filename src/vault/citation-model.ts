/**
 * What a memory cites, as the loader finds it in the memory's text (find.ts),
 * and what checking it against the repository gave (verify.ts, state.ts).
 * Plain data: citations live in the parse cache with the memory.
 */

export type CitationKind = 'path' | 'commit' | 'branch' | 'issue';

export interface Citation {
  kind: CitationKind;
  /**
   * What is cited: a repository-relative POSIX path (a folder ends with `/`), a
   * commit id as written, a branch name, or an issue / pull request (`#12`, `owner/repo#12`).
   */
  target: string;
  /** 1-based line of the memory file where the citation is. */
  line: number;
  /** Path citations: the cited line range (`path:10`, `path:10-20`, `path#L10-L20`). */
  lines?: [number, number];
  /** Path citations: a symbol named next to the path (`` `retryWithBackoff` in `src/net/retry.ts` ``). */
  symbol?: string;
  /**
   * Path citations with a line range: the text the memory quotes from those lines (find.ts says what counts), which
   * verification looks for at the cited lines of the file at HEAD.
   */
  quote?: Quote;
}

/**
 * Text a memory quotes next to a line-ranged path citation: a fenced code block (`block`, its lines in order) or the
 * inline code spans of the citation's paragraph or list item (`spans`, each anywhere in the cited lines).
 */
export interface Quote {
  kind: 'block' | 'spans';
  /** The quoted lines or spans, whitespace runs made one space, trimmed; blank lines and `...` / `…` lines left out. */
  text: string[];
  /** Lines the quote covers in the memory (a block's, blank lines included): the cited range is read at least that long. */
  height: number;
}

/** How a citation stands against the repository's HEAD. */
export type CitationState = 'verified' | 'changed' | 'moved' | 'gone' | 'unchecked';

/** A citation with its state, as every read command and the hook report it. */
export interface CheckedCitation {
  kind: CitationKind;
  target: string;
  state: CitationState;
  /** One line a person reads: `deleted in 3f2a1c0 on 2026-10-02`, `renamed to src/net/backoff.ts`, `4 commits since`. */
  detail?: string;
  /** `changed` and `moved`: commits that touched the file after the memory's date. */
  since?: number;
  /** `moved`: where the file is now. */
  to?: string;
  /**
   * A quoted snippet (find.ts) not at the cited lines at HEAD: `moved` when it is elsewhere in the file (the detail says
   * where), `missing` when it is nowhere in it (a stale memory).
   */
  quote?: 'moved' | 'missing';
}

/** The citations of one memory, checked: the worst state first (gone, moved, changed, verified). */
export interface MemoryCitations {
  /** Worst state of its citations. */
  state: CitationState;
  /** True when the memory should not be trusted without a look: a citation gone, moved, or changed by many commits. */
  stale: boolean;
  /** The commit the repository was checked at, and when. */
  checked: { commit: string; at: string };
  citations: CheckedCitation[];
}

/** Commits since the memory's date from which a `changed` citation counts as heavily changed (a stale memory). */
export const HEAVY_CHANGES = 5;
