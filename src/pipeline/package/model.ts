import type { UploadConfig } from '../../config/schema.js';
import type { LeftOut } from '../../maintain/left-out.js';
import type { TokenizerName } from '../../util/tokens.js';
import type { ParsedContent } from '../../store/cache.js';
import type { CalendarTier, Memory, Summary } from '../../vault/model.js';
import { firstSentences } from '../../vault/opening.js';
import type { Bands } from './bands.js';

/** The package's data: what assembly takes, the manifest it writes, and the items it chooses among. */

export interface PackageInput {
  stream: string;
  /** The vault folder as the user knows it (e.g. `vault`), for the hints in an empty package. */
  vaultLabel: string;
  bands: Bands;
  memories: readonly Memory[];
  summaries: ReadonlyMap<string, Summary>;
  upload: UploadConfig;
  tokenizer: TokenizerName;
  readMemory: (memory: Memory) => ParsedContent;
  readSummary: (summary: Summary) => ParsedContent;
  /** A body to show, parsed only if a line may be a heading (`ContentStore.shown`); without it the readers above are used. */
  readShown?: (file: Memory | Summary) => Pick<ParsedContent, 'body' | 'headings'>;
  /** A memory's first `count` sentences, headings left out (`ContentStore.opening`); without it `readMemory`'s are used. */
  readOpening?: (memory: Memory, count: number) => string[];
  /** Copies marked `duplicate_of` and forgotten memories: not shown in full (raw band, detail bought back); see left-out.ts. */
  leftOut?: LeftOut;
  /** Stale memories (vault path): the line shown under each one's heading, e.g. "cites `src/a.ts`, deleted in 3f2a1c0 on 2026-10-02". */
  citationNotes?: ReadonlyMap<string, string>;
}

export type ItemStatus = 'included' | 'degraded' | 'left-out';

export interface ManifestItem {
  type: 'pinned' | 'summary' | 'memory';
  tier: CalendarTier | 'raw';
  /** Period of a summary, or the memory id. */
  id: string;
  path: string;
  start: string;
  end: string;
  status: ItemStatus;
  /** Why an item is degraded, left out, or raw outside the full-detail band. */
  reason?: string;
  /** Summaries only: must-keep items of its sources the summary lost (its frontmatter `dropped:`), so nothing is lost silently. */
  dropped?: string[];
}

export interface Manifest {
  memvault: 'manifest';
  stream: string;
  budget: { max_tokens: number; max_bytes: number };
  tokens: number;
  bytes: number;
  bands: Bands;
  coverage: { first_day: string | null; last_day: string; days_with_memories: number; days_covered: number };
  items: ManifestItem[];
  /**
   * Ids of the memories forgetting took out of the detail (nothing used them for `forget_after_days`); still in summaries,
   * zoom and search. Ids only: at 20,000 memories 13,686 were forgotten, 2.1 MB of the manifest as objects; `status --json`
   * gives each one's path and last use.
   */
  forgotten?: string[];
  /** Copies marked `duplicate_of`, left out of the package and of new summaries: `{ id, duplicate_of }`. */
  duplicates?: { id: string; duplicate_of: string }[];
  /**
   * Facts, when a memory of the stream states one: the open contradictions (their ids; listed first in the package),
   * how many facts are in force on the package's day and how many of them the package shows.
   */
  facts?: { contradictions: string[]; in_force: number; shown: number };
  /** Hash of everything the package was assembled from: equal hash, equal package. */
  input_hash: string;
}

export interface AssembledPackage {
  text: string;
  manifest: Manifest;
}

/** An item of the package: a pinned memory, a summary or a raw memory, with how to render it. */
export interface Item extends ManifestItem {
  /** Rendered markdown of the item (a section). */
  render: () => string;
  /** Shown by this many of its first sentences: an included memory of a day bought back in part (a degraded one shows 1). */
  opening?: number;
  memory?: Memory;
  summary?: Summary;
}

/** A memory shown by its first sentences, not in full: degraded over budget, or an opening of a day bought back in part. */
export const shownShortened = (item: Item): boolean => item.type === 'memory' && (item.status === 'degraded' || item.opening !== undefined);

/** A memory's first `count` sentences, headings left out: what a shortened memory shows (`PackageInput.readOpening`). */
export function openingOf(input: Pick<PackageInput, 'readMemory' | 'readOpening'>, memory: Memory, count: number): string[] {
  if (input.readOpening) return input.readOpening(memory, count);
  return firstSentences(input.readMemory(memory).sentences, count);
}
