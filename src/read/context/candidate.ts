import type { StreamState } from '../../vault/model.js';
import type { ReadVault } from '../vault.js';
import type { TierName } from './budget.js';

/** The items a context is assembled from (candidates.ts makes them; facts.ts and relevant.ts too); types only. */

export interface Version {
  /** Vault-relative path of what the text comes from. */
  source: string;
  /** Heading of the item: a date and title, or a tier and period. */
  label: string;
  text: string;
  /** Which blocks of a memory an excerpt holds; absent when the text is all of it. */
  part?: Part | undefined;
}

/** Blocks `first` to `last` (0-based, inclusive) of a memory of `of` blocks, the first starting on line `line` (0-based) of the body. */
export interface Part {
  first: number;
  last: number;
  of: number;
  line: number;
}

export interface Candidate {
  tier: TierName;
  /** Finest version first, then coarser ones. */
  versions: Version[];
  /** Pinned memories: cut to fit rather than left out. */
  must?: boolean;
  /** For an excerpt: its whole memory, taken instead when it is small next to the tier's room. */
  whole?: Version;
}

/**
 * The first critical items, before the pinned memories: the seam for unresolved
 * contradictions between facts (default: the stream's own, `openContradictions`).
 * Gets the loaded vault and the stream, returns the items best first (each names its source).
 */
export type CriticalSource = (vault: ReadVault, stream: StreamState) => Version[];
