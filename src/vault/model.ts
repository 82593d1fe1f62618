import type { Diagnostic } from '../messages/message.js';
import type { MemoryFact } from './fact-model.js';
import type { HeadingSpan } from './markdown.js';
import type { Citation } from './citation-model.js';
import type { Tier } from '../time/tiers.js';
/**
 * The vault's data model: what the loader produces and the pure pipeline
 * stages consume. Every type here is plain data (JSON-serialisable) so it can
 * live in the parse cache and be compared in tests.
 */

/** Summary tiers of the calendar pyramid (and of the waterfall): the tier table, time/tiers.ts. */
export type { CalendarTier, Tier, WaterfallTier } from '../time/tiers.js';
export { CALENDAR_TIERS } from '../time/tiers.js';

export type Importance = 'low' | 'normal' | 'high' | 'pinned';

/** Where a memory file lives inside its stream. */
export type MemoryLocation = 'memories' | 'archive';

/**
 * One sentence (or list item, or heading) of a source, with the features the
 * summarizer scores it by. Produced once per file content by the parser.
 */
export interface Sentence {
  /** Markdown text of the sentence, inline code kept in backticks. */
  text: string;
  /** Heading path above the sentence inside its file (e.g. `Decisions`). */
  section: string;
  /** Index of the block (paragraph, list item) the sentence belongs to. */
  block: number;
  /** Role hints detected from wording and position. */
  role: SentenceRole;
  /** Why this sentence must survive summarization, if it must. */
  mustKeep: MustKeepReason[];
}

export type SentenceRole = 'done' | 'decision' | 'state' | 'context' | 'heading';

export type MustKeepReason = 'pinned' | 'decision' | 'critical' | 'code' | 'date';

/** A raw memory, as loaded from `memories/` or `archive/`. */
export interface Memory {
  /** Stable id: frontmatter `id`, else the path inside `memories/` (or inside `archive/<quarter>/`) without `.md`. */
  id: string;
  stream: string;
  /** Vault-relative POSIX path of the file. */
  path: string;
  location: MemoryLocation;
  /** The instant of the memory as an ISO string with its original offset (or a bare date). */
  date: string;
  /** Calendar day of the memory in the configured time zone (`YYYY-MM-DD`). */
  day: string;
  /** Minutes since midnight of `day` (orders memories within a day; 0 for bare dates). */
  minute: number;
  title: string | undefined;
  kind: string;
  tags: string[];
  importance: Importance;
  /** SHA-256 of the whole file content. */
  sha256: string;
  /** Frontmatter `duplicate_of`: the id of the memory this one repeats (`memvault consolidate --apply`); left out of summaries. */
  duplicateOf?: string;
  /** Facts the memory states (`kind: fact` frontmatter, inline `Fact:` lines), read when it is parsed; absent when none. */
  facts?: MemoryFact[];
  /** Why a fact of the memory could not be read (rules `fact/…`, warnings); absent when none. */
  factProblems?: Diagnostic[];
  /** What the memory's text cites (paths, commits, branches, issues: citations/find.ts), read when it is parsed; absent when none. */
  citations?: Citation[];
}

/** A memory together with its parsed body, loaded only when a stage needs the text. */
export interface MemoryContent {
  memory: Memory;
  /** Markdown body (frontmatter removed, trimmed). */
  body: string;
  sentences: Sentence[];
  /** Top-level headings of `body` (see `headingSpans`). */
  headings: HeadingSpan[];
  /** Every frontmatter key, unknown ones included (passed through untouched). Not kept in the parse cache: only writers need it. */
  frontmatter: Record<string, unknown>;
}

/** One input a summary was built from, pinned by content hash. */
export interface SourceRef {
  id: string;
  sha256: string;
}

export interface GeneratorInfo {
  /** `extractive`, `openai`, or `merge` (inputs fit the budget and were concatenated). */
  provider: string;
  model: string;
  /** Prompt name and hash, e.g. `daily@9c1e…`. */
  prompt: string;
}

/** Review flags a summary can carry. */
export type ReviewFlag = 'over-budget';

/** Frontmatter of a generated summary (`memvault: summary`; validated by `summary-file.ts`). */
export interface SummaryMeta {
  memvault: 'summary';
  tier: Tier;
  stream: string;
  period: string;
  start: string;
  end: string;
  /** Empty when the file holds `sources_count` and `sources_sha256` instead (a very busy day: see `boundSources`). */
  sources: SourceRef[];
  /** How many sources, when they are too many to list. */
  sources_count?: number;
  /** `hashValue` of the full list of sources, when they are too many to list. */
  sources_sha256?: string;
  memories: number;
  tokens: number;
  bytes: number;
  generator: GeneratorInfo;
  input_hash: string;
  output_hash: string;
  /** Present when the summary could not meet its budget; such a summary is not used by the package. */
  review?: ReviewFlag[];
  /** Must-keep items of the sources (see `src/retention/`): how many the retention check looked for. */
  must_keep?: number;
  /** Must-keep items of the sources this summary lost even after the retries: nothing is lost silently. */
  dropped?: string[];
  /**
   * How many were dropped, when more than `dropped` lists: the list is cut at
   * MAX_DROPPED_LISTED so the frontmatter stays far below the loader's size limit.
   */
  dropped_total?: number;
  /**
   * Long-term only: every monthly folded in so far, with the hash it had when folded.
   * Waterfall long-term: every recent summary folded in so far (its history copy).
   */
  folded?: SourceRef[];
  /** Waterfall summaries only: where the count-based compaction stands (see `WaterfallMeta`). */
  waterfall?: WaterfallMeta;
}

/**
 * Frontmatter block of a waterfall summary: the state that decides the next
 * compaction, so that it survives restarts (a new process reads it back).
 */
export interface WaterfallMeta {
  /** 1 for the first compaction, then 2, 3, … */
  compaction: number;
  /** Memories in the stream when this compaction ran (129, 193, … by default). */
  compacted_at_count: number;
  /** Ids of the first and last memory the summary covers, in memory order (by date, then path). */
  covers_from: string;
  covers_through: string;
  /** Recent summary only: its copy in `waterfall/history/` (vault-relative). */
  history?: string;
}

/** A generated summary as found on disk. */
export interface Summary {
  meta: SummaryMeta;
  /** Vault-relative POSIX path. */
  path: string;
  /** SHA-256 of the whole file. */
  sha256: string;
  /** SHA-256 of the body as it is now; differs from `meta.output_hash` when a person edited it. */
  bodyHash: string;
}

// The one message type lives in messages/; the vault's readers and the pipeline know it by these names.
export type { Diagnostic, Severity } from '../messages/message.js';

/** Everything the loader found in one stream. */
export interface StreamState {
  name: string;
  memories: Memory[];
  /** Generated summaries keyed by vault-relative path. */
  summaries: Map<string, Summary>;
}

/** Everything the loader found in the vault. */
export interface VaultState {
  streams: Map<string, StreamState>;
  diagnostics: Diagnostic[];
}

/** Whether a memory is of this kind or carries it as a tag (`convention`, `error`), in any case. */
export const isKindOrTag = (m: Memory, kind: string): boolean =>
  m.kind.toLowerCase() === kind || m.tags.some((t) => t.toLowerCase() === kind);
