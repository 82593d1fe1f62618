import * as z from 'zod';
import { sha256 } from '../util/hash.js';
import { parseFrontmatter, stringifyFrontmatter } from './frontmatter.js';
import type { Diagnostic, Summary, SummaryMeta } from './model.js';

const sourceRef = z.strictObject({ id: z.string(), sha256: z.string() });

const summaryMetaSchema = z.looseObject({
  memvault: z.literal('summary'),
  tier: z.enum(['daily', 'weekly', 'monthly', 'longterm', 'waterfall-recent', 'waterfall-longterm']),
  stream: z.string(),
  period: z.string(),
  start: z.string(),
  end: z.string(),
  sources: z.array(sourceRef),
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
  const parsed = summaryMetaSchema.safeParse(fm.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? 'memvault');
    const pos = fm.positionOf(key);
    return {
      ok: false,
      diagnostics: [
        {
          path,
          line: pos.line,
          column: pos.column,
          severity: 'error',
          reason: `not a valid generated summary: \`${issue.path.join('.') || key}\` ${issue.message}`,
          hint: 'restore the file from git, or delete it and run `memvault build` to regenerate it',
          rule: 'summary/schema',
        },
      ],
    };
  }
  const meta = parsed.data as SummaryMeta;
  return { ok: true, summary: { meta, path, sha256: sha256(text), bodyHash: sha256(fm.body) }, body: fm.body };
}

/** Serialises a summary; `parseSummaryFile` reads back the same meta and body. */
export function writeSummaryFile(meta: SummaryMeta, body: string): string {
  const ordered: Record<string, unknown> = {
    memvault: meta.memvault,
    tier: meta.tier,
    stream: meta.stream,
    period: meta.period,
    start: meta.start,
    end: meta.end,
    sources: meta.sources,
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
