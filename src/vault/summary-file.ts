import * as z from 'zod';
import { hashValue, sha256 } from '../util/hash.js';
import { listLength } from './lazy-lists.js';
import { parseFrontmatter, stringifyFrontmatter } from './frontmatter.js';
import { ALL_TIERS, FINEST_TIER, type Tier } from '../time/tiers.js';
import type { Diagnostic, SourceRef, Summary, SummaryMeta } from './model.js';

/**
 * A daily lists its memories in `sources:`, one line each (~100 characters).
 * A very busy day (700 memories) passed the loader's 64 KiB frontmatter limit:
 * the build no longer recognised its own file and moved it to
 * `history/hand-written/` on every rebuild. Past these bounds a daily writes
 * `sources_count` and `sources_sha256` (`hashValue` of the full list) instead:
 * nothing needs the list written out, since the input hash already covers the
 * sources and readers that want the list (zoom, archive) rebuild it from the
 * day's memories and check it against the hash (`listedSources`).
 */
/** Sources a daily lists at most; ordinary days have a few dozen. */
export const MAX_LISTED_SOURCES = 200;
/** Characters the listed sources may take (ids are file names, up to 255 characters): half the loader's frontmatter limit. */
export const MAX_LISTED_SOURCES_CHARS = 32 * 1024;
/** Tiers whose long lists give way to a count and hash: a daily's sources are its day's memories, which readers can list again. */
const BOUNDED_TIERS: ReadonlySet<SummaryMeta['tier']> = new Set([FINEST_TIER]);

/** `meta` as it is written and read back: a daily with too many sources to list holds their count and hash instead. */
export function boundSources(meta: SummaryMeta): SummaryMeta {
  if (!BOUNDED_TIERS.has(meta.tier) || meta.sources_sha256 !== undefined) return meta;
  const { sources } = meta;
  if (sources.length <= MAX_LISTED_SOURCES) {
    let chars = 0;
    // One flow line per source: `  - { id: …, sha256: … }`, with room for quoting.
    for (const source of sources) chars += source.id.length + source.sha256.length + 32;
    if (chars <= MAX_LISTED_SOURCES_CHARS) return meta;
  }
  return { ...meta, sources: [], sources_count: sources.length, sources_sha256: hashValue(sources) };
}

/** How many sources a summary was built from, listed or not. */
export function sourceCount(meta: SummaryMeta): number {
  return meta.sources_count ?? listLength(meta, 'sources');
}

/**
 * A summary's sources: its list, or, when it holds only their count and hash,
 * `candidates()` (the list as the planner would make it now) if that is the
 * list it was built from. Undefined when it is not (the summary is stale).
 */
export function listedSources(meta: SummaryMeta, candidates: () => readonly SourceRef[] | undefined): readonly SourceRef[] | undefined {
  if (meta.sources_sha256 === undefined) return meta.sources;
  const list = candidates();
  return list && list.length === meta.sources_count && hashValue(list) === meta.sources_sha256 ? list : undefined;
}

/** The frontmatter of a generated summary (also what the committed record says of one: committed-record.ts). */
const sourceRef = z.strictObject({ id: z.string(), sha256: z.string() });

export const summaryMetaSchema = z.looseObject({
  memvault: z.literal('summary'),
  tier: z.enum(ALL_TIERS as readonly Tier[] as [Tier, ...Tier[]]),
  stream: z.string(),
  period: z.string(),
  start: z.string(),
  end: z.string(),
  sources: z.array(sourceRef).optional(),
  sources_count: z.number().int().min(0).optional(),
  sources_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  memories: z.number().int().min(0),
  tokens: z.number().int().min(0),
  bytes: z.number().int().min(0),
  generator: z.strictObject({ provider: z.string(), model: z.string(), prompt: z.string() }),
  input_hash: z.string(),
  output_hash: z.string(),
  review: z.array(z.enum(['over-budget'])).optional(),
  must_keep: z.number().int().min(0).optional(),
  dropped: z.array(z.string()).optional(),
  dropped_total: z.number().int().min(0).optional(),
  folded: z.array(sourceRef).optional(),
  waterfall: z
    .strictObject({
      compaction: z.number().int().min(1),
      compacted_at_count: z.number().int().min(1),
      covers_from: z.string(),
      covers_through: z.string(),
      history: z.string().optional(),
    })
    .optional(),
});

export type SummaryParseResult = { ok: true; summary: Summary; body: string } | { ok: false; diagnostics: Diagnostic[] };

/** Reads a generated summary file; a file whose frontmatter is not a valid summary yields a diagnostic. */
export function parseSummaryFile(text: string, path: string): SummaryParseResult {
  const fm = parseFrontmatter(text);
  if (fm.error) {
    return {
      ok: false,
      diagnostics: [
        {
          path,
          line: fm.error.line,
          column: fm.error.column,
          severity: 'error',
          reason: fm.error.reason,
          hint: 'generated summaries are rebuilt by `memvault build`; restore the frontmatter from git or delete the file',
          rule: 'summary/frontmatter',
        },
      ],
    };
  }
  /** Not a valid summary: one `summary/schema` error at `key`'s place. */
  const invalid = (key: string, reason: string): SummaryParseResult => {
    const pos = fm.positionOf(key);
    const hint = 'restore the file from git, or delete it and run `memvault build` to regenerate it';
    return {
      ok: false,
      diagnostics: [{ path, line: pos.line, column: pos.column, severity: 'error', reason, hint, rule: 'summary/schema' }],
    };
  };
  const parsed = summaryMetaSchema.safeParse(fm.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? 'memvault');
    return invalid(key, `not a valid generated summary: \`${issue.path.join('.') || key}\` ${issue.message}`);
  }
  const data = parsed.data;
  const counted = data.sources_count !== undefined && data.sources_sha256 !== undefined;
  // Either the list, or its count and hash (`boundSources`): never both, never neither.
  if (counted === (data.sources !== undefined) || (data.sources_count === undefined) !== (data.sources_sha256 === undefined)) {
    const key = data.sources !== undefined ? 'sources' : data.sources_count !== undefined ? 'sources_count' : 'memvault';
    return invalid(key, 'not a valid generated summary: it needs `sources`, or `sources_count` with `sources_sha256` instead');
  }
  const meta = (counted ? { ...data, sources: [] } : data) as SummaryMeta;
  return { ok: true, summary: { meta, path, sha256: sha256(text), bodyHash: sha256(fm.body) }, body: fm.body };
}

/** Serialises a summary; `parseSummaryFile` reads back the same meta and body (`boundSources(meta)` when the list is long). */
export function writeSummaryFile(full: SummaryMeta, body: string): string {
  const meta = boundSources(full);
  const ordered: Record<string, unknown> = {
    memvault: meta.memvault,
    tier: meta.tier,
    stream: meta.stream,
    period: meta.period,
    start: meta.start,
    end: meta.end,
    // In the list's place, so a summary with a short list is written byte for byte as before.
    ...(meta.sources_sha256 === undefined
      ? { sources: meta.sources }
      : { sources_count: meta.sources_count, sources_sha256: meta.sources_sha256 }),
    memories: meta.memories,
    tokens: meta.tokens,
    bytes: meta.bytes,
    generator: meta.generator,
    input_hash: meta.input_hash,
    output_hash: meta.output_hash,
  };
  if (meta.review && meta.review.length > 0) ordered.review = meta.review;
  if (meta.must_keep !== undefined) ordered.must_keep = meta.must_keep;
  if (meta.dropped && meta.dropped.length > 0) ordered.dropped = meta.dropped;
  if (meta.dropped_total !== undefined) ordered.dropped_total = meta.dropped_total;
  if (meta.folded) ordered.folded = meta.folded;
  if (meta.waterfall) ordered.waterfall = meta.waterfall;
  return stringifyFrontmatter(ordered, body);
}
