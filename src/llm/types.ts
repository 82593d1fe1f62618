import type { Diagnostic, Importance, Sentence, Tier } from '../vault/model.js';

/** One input of a summary: a memory (for dailies) or a finer summary (for the tiers above). */
export interface SummarySource {
  id: string;
  /** What a reader should call this source: a memory's title, or a summary's period (`2026-02-13`). */
  label: string;
  /** First day the source covers (`YYYY-MM-DD`); for a memory, its day. */
  day: string;
  /** `HH:MM` for memories with a time of day; omitted for summaries and bare dates. */
  time?: string;
  kind: string;
  importance: Importance;
  /** Markdown body, frontmatter removed. */
  body: string;
  /** The body's sentences with role and must-keep features (see `extractSentences`). */
  sentences: Sentence[];
}

/** What a summarizer is asked to produce. */
export interface SummaryRequest {
  tier: Tier;
  stream: string;
  period: string;
  start: string;
  end: string;
  /** Sources in chronological order. */
  sources: SummarySource[];
  /** The output must stay within both. */
  budget: { tokens: number; bytes: number };
  /** 0 for the first try; each retry after an over-budget answer is one tighter. */
  attempt: number;
  /** Must-keep items the previous attempt left out, named so the next attempt keeps them. */
  missing: string[];
  /** Retries: tokens of the previous, over-budget answer (an LLM is told how far off it was). */
  previousTokens?: number;
  /**
   * A prompt other than the tier's, for requests that are not rollups: `session-primer` (a session
   * transcript → the primer the next session needs; see prompts/session-primer.yaml). The tier still
   * names the budget. Summarizers without prompts (extractive) ignore it.
   */
  prompt?: 'session-primer';
}

export interface SummaryUsage {
  /** Requests sent to a model (0 for the extractive summarizer), failed ones included. */
  calls: number;
  /** From the API's `usage` when it reports it, else counted with the configured tokenizer. */
  inputTokens: number;
  outputTokens: number;
  /** Requests repeated after a fault (timeout, 429, 5xx, empty answer); budget retries are counted by the caller. */
  retries?: number;
}

export interface SummaryOutput {
  /** Markdown body of the summary: sections with bullets, no frontmatter, no top-level title. */
  body: string;
  usage: SummaryUsage;
  /** `length`: the model was cut off by its `max_tokens` (a runaway answer); the body is incomplete. */
  finish?: 'stop' | 'length';
  /** What was cleaned out of the answer (`opening meta-commentary`, `frontmatter`, …). */
  notes?: string[];
}

/**
 * A summarizer turns sources into a summary body. Implementations: the
 * embedded `extractive` one (offline, deterministic) and `openai`.
 */
export interface Summarizer {
  /** Provider and model, recorded in each summary's `generator` and hashed into its `input_hash`. */
  readonly provider: string;
  readonly model: string;
  /**
   * Names the instructions used for a tier with their content hash (e.g. `daily@9c1e2a4b`).
   * Part of every summary's `input_hash`: changing the instructions regenerates exactly what used them.
   */
  promptId(tier: Tier): string;
  summarize(request: SummaryRequest): Promise<SummaryOutput>;
  /**
   * Input tokens one call for `request` would send (prompt included), for
   * `build --dry-run`. Absent for summarizers that make no calls.
   */
  estimateInputTokens?(request: SummaryRequest): number;
  /** Warnings found while setting up (e.g. a prompt file with an unknown name); the build reports them. */
  readonly diagnostics?: readonly Diagnostic[];
  /** Warnings found while summarizing since the last call (absurd usage figures from a server); the build reports them at its end. */
  takeDiagnostics?(): Diagnostic[];
}
