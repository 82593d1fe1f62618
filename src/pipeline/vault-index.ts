import { streamFacts } from '../facts/collect.js';
import { statesFacts, unresolvedLine } from '../facts/surface.js';
import { oneLine } from '../text/safe-text.js';
import { periodTopics } from '../text/topics.js';
import { ALL_TIERS_COARSEST_FIRST, calendarTier, type CalendarTier, type Tier } from '../time/tiers.js';
import { hashFields, hashValue } from '../util/hash.js';
import type { ParsedContent } from '../store/cache.js';
import { sourceCount } from '../vault/summary-file.js';
import type { Diagnostic, Memory, Summary } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import type { Manifest } from './package/index.js';
import type { HeldSummary } from './calendar/plan.js';
import { counted } from '../text/plural.js';

/**
 * Stage 6, index: INDEX.md (for people) and index.json (for scripts) listing,
 * per stream, every summary, the coverage, the topics one can ask about and
 * the review queue. Pure: bodies come through `readSummary`.
 */

export interface StreamIndexInput {
  name: string;
  memories: readonly Memory[];
  summaries: readonly Summary[];
  held: readonly HeldSummary[];
  deferred: readonly { tier: string; period: string; reason: string }[];
  manifest: Manifest | undefined;
  /** Stale memories (vault path) and what they cite (src/citations/): listed in the review queue. */
  citationNotes?: ReadonlyMap<string, string>;
}

export interface ReviewItem {
  path: string;
  kind: 'over-budget' | 'edited' | 'edited, stale' | 'deferred' | 'invalid' | 'contradiction' | 'stale citation';
  reason: string;
}

export interface StreamIndex {
  name: string;
  memories: { total: number; archived: number; pinned: number };
  coverage: { first_day: string | null; last_day: string | null; days_with_memories: number };
  package: { path: string; tokens: number; bytes: number; max_tokens: number; max_bytes: number } | null;
  summaries: {
    tier: string;
    period: string;
    path: string;
    start: string;
    end: string;
    tokens: number;
    bytes: number;
    sources: number;
    memories: number;
    generator: string;
    flags: string[];
  }[];
  topics: { tier: string; period: string; path: string; terms: string[] }[];
  /** Fingerprint of the weeklies and monthlies the topics were computed from: a build whose fingerprint matches reuses them. */
  topics_hash: string;
  review: ReviewItem[];
}

export interface VaultIndex {
  memvault: 'index';
  streams: StreamIndex[];
  invalid: Diagnostic[];
  input_hash: string;
}

/** Fingerprint of the index inputs: equal hash, equal index files. */
export function indexInputHash(streams: readonly StreamIndexInput[], diagnostics: readonly Diagnostic[]): string {
  return hashValue({
    // Bump when the index's content or layout changes for the same inputs (or the hash's own form: v6, the memories as
    // one digest).
    v: 6,
    diagnostics,
    streams: streams.map((s) => ({
      name: s.name,
      memories: hashFields(s.memories, (m) => [m.path, m.sha256, m.importance]),
      summaries: s.summaries.map((x) => [x.path, x.sha256, x.bodyHash]).sort(),
      held: s.held,
      deferred: s.deferred,
      manifest: s.manifest ? [s.manifest.input_hash, s.manifest.tokens, s.manifest.bytes] : null,
      ...staleOf(s),
    })),
    // Indexes written before contradictions were queued are rebuilt once; a vault without facts keeps its hash.
    ...(streams.some((s) => statesFacts(s.memories)) ? { facts: 1 } : {}),
  });
}

/** The stream's stale memories, for the hash and the memo key: absent when none, so a vault without citations keeps its hash. */
export function staleOf(stream: Pick<StreamIndexInput, 'memories' | 'citationNotes'>): { stale?: string[][] } {
  if (!stream.citationNotes?.size) return {};
  const stale = stream.memories.flatMap((m) => {
    const note = stream.citationNotes!.get(m.path);
    return note ? [[m.path, note]] : [];
  });
  return stale.length > 0 ? { stale } : {};
}

/** Stale memories listed one by one in a stream's review queue; past this, one line counts the rest (INDEX.md is committed). */
const MAX_STALE_LISTED = 50;

const TOPIC_TERMS = 8;

/**
 * `previous`: the index on disk, if any. Topics (tf·idf over every weekly
 * and monthly body) are taken from it when those bodies are unchanged, as
 * after an edit to a recent memory: reading ~200 bodies back and counting
 * their words is most of the index's cost in such a rebuild. `inputHash`:
 * `indexInputHash(streams, diagnostics)`, when the caller has it already.
 */
export function buildIndex(
  streams: readonly StreamIndexInput[],
  diagnostics: readonly Diagnostic[],
  readSummary: (summary: Summary) => ParsedContent,
  options: { previous?: VaultIndex | undefined; inputHash?: string } = {},
): { json: VaultIndex; markdown: string } {
  const { previous } = options;
  const previousStreams = new Map((Array.isArray(previous?.streams) ? previous.streams : []).map((stream) => [stream.name, stream]));
  const json: VaultIndex = {
    memvault: 'index',
    streams: streams.map((stream) => indexStream(stream, diagnostics, readSummary, previousStreams.get(stream.name))),
    invalid: [...diagnostics],
    input_hash: options.inputHash ?? indexInputHash(streams, diagnostics),
  };
  return { json, markdown: renderIndex(json) };
}

function indexStream(
  stream: StreamIndexInput,
  diagnostics: readonly Diagnostic[],
  readSummary: (summary: Summary) => ParsedContent,
  previous: StreamIndex | undefined,
): StreamIndex {
  const summaries = [...stream.summaries].sort(
    (a, b) => tierOrder(a.meta.tier) - tierOrder(b.meta.tier) || (a.meta.period < b.meta.period ? -1 : 1),
  );
  const days = [...new Set(stream.memories.map((memory) => memory.day))].sort();
  const topics = streamTopics(summaries, readSummary, previous);
  return {
    name: stream.name,
    memories: {
      total: stream.memories.length,
      archived: stream.memories.filter((memory) => memory.location === 'archive').length,
      pinned: stream.memories.filter((memory) => memory.importance === 'pinned').length,
    },
    coverage: { first_day: days[0] ?? null, last_day: days[days.length - 1] ?? null, days_with_memories: days.length },
    package: stream.manifest
      ? {
          path: vaultPaths.package(stream.name),
          tokens: stream.manifest.tokens,
          bytes: stream.manifest.bytes,
          max_tokens: stream.manifest.budget.max_tokens,
          max_bytes: stream.manifest.budget.max_bytes,
        }
      : null,
    summaries: summaries.map(summaryEntry),
    topics: topics.topics,
    topics_hash: topics.hash,
    review: reviewQueue(stream, summaries, diagnostics),
  };
}

/** A summary's line in the index: where it is, its size, sources, generator and flags (`edited` when a person changed it). */
function summaryEntry(summary: Summary): StreamIndex['summaries'][number] {
  return {
    tier: summary.meta.tier,
    period: summary.meta.period,
    path: summary.path,
    start: summary.meta.start,
    end: summary.meta.end,
    tokens: summary.meta.tokens,
    bytes: summary.meta.bytes,
    // From the parse cache's entry when the list itself was not read (cache-codec.ts): no list is read for the index.
    sources: sourceCount(summary.meta),
    memories: summary.meta.memories,
    generator: summary.meta.generator.provider === 'merge' ? 'merge' : `${summary.meta.generator.provider}/${summary.meta.generator.model}`,
    flags: [...(summary.meta.review ?? []), ...(summary.bodyHash !== summary.meta.output_hash ? ['edited'] : [])],
  };
}

/**
 * Topics per month (the unit people ask about), from the monthly summary,
 * else the weeklies; the terms of the previous index are kept while the
 * summaries they came from are unchanged (`topics_hash`).
 */
function streamTopics(
  summaries: readonly Summary[],
  readSummary: (summary: Summary) => ParsedContent,
  previous: StreamIndex | undefined,
): { topics: StreamIndex['topics']; hash: string } {
  const topicSources = summaries.filter(
    (summary) => summary.meta.tier === TOPIC_TIER || summary.meta.tier === calendarTier(TOPIC_TIER).finer,
  );
  const hash = hashValue({ v: 2, limit: TOPIC_TERMS, bodies: topicSources.map((summary) => [summary.path, summary.bodyHash]) });
  const terms =
    previous?.topics_hash === hash && isTopicList(previous.topics)
      ? new Map(previous.topics.map((topic) => [topic.path, topic.terms]))
      : periodTopics(new Map(topicSources.map((summary) => [summary.path, readSummary(summary).body])), TOPIC_TERMS);
  const topics = topicSources
    .filter(
      (summary) =>
        summary.meta.tier === TOPIC_TIER ||
        !topicSources.some(
          (other) => other.meta.tier === TOPIC_TIER && other.meta.start <= summary.meta.start && other.meta.end >= summary.meta.end,
        ),
    )
    .map((summary) => ({
      tier: summary.meta.tier,
      period: summary.meta.period,
      path: summary.path,
      terms: terms.get(summary.path) ?? [],
    }));
  return { topics, hash };
}

/**
 * What a person should look at, in this order: summaries over budget, held
 * (edited) summaries, deferred ones, open contradictions (at the later fact's
 * file: a person decides which holds, `memvault resolve`), memories citing
 * files that are gone, moved or much changed (`memvault verify`), invalid files.
 */
function reviewQueue(stream: StreamIndexInput, summaries: readonly Summary[], diagnostics: readonly Diagnostic[]): ReviewItem[] {
  const review: ReviewItem[] = [];
  for (const summary of summaries) {
    if (summary.meta.review?.includes('over-budget'))
      review.push({
        path: summary.path,
        kind: 'over-budget',
        reason: `${summary.meta.tokens} tokens after retries; the package uses the finer tier instead`,
      });
  }
  for (const held of stream.held)
    review.push({
      path: held.path,
      kind: held.status,
      reason:
        held.status === 'edited'
          ? 'edited by a person; kept as is'
          : 'edited by a person and its sources changed since; run `memvault build --regenerate PATH` to replace it',
    });
  for (const deferred of stream.deferred)
    review.push({ path: `${stream.name}/${deferred.tier}/${deferred.period}.md`, kind: 'deferred', reason: deferred.reason });
  if (statesFacts(stream.memories))
    for (const contradiction of streamFacts(stream.memories).contradictions)
      review.push({ path: contradiction.b.path, kind: 'contradiction', reason: unresolvedLine(contradiction) });
  const stale = staleOf(stream).stale ?? [];
  for (const [path, note] of stale.slice(0, MAX_STALE_LISTED)) review.push({ path: path!, kind: 'stale citation', reason: note! });
  if (stale.length > MAX_STALE_LISTED)
    review.push({
      path: `${stream.name}/memories`,
      kind: 'stale citation',
      reason: `and ${stale.length - MAX_STALE_LISTED} more stale memories: \`memvault verify\` lists them all`,
    });
  for (const diagnostic of diagnostics) {
    if (diagnostic.path.startsWith(`${stream.name}/`) && diagnostic.severity === 'error')
      review.push({ path: diagnostic.path, kind: 'invalid', reason: `${diagnostic.line}:${diagnostic.column} ${diagnostic.reason}` });
  }
  return review;
}

/** A topic list read back from index.json (a file on disk: checked, not trusted). */
function isTopicList(value: unknown): value is StreamIndex['topics'] {
  return (
    Array.isArray(value) &&
    value.every(
      (topic: { path?: unknown; terms?: unknown }) =>
        typeof topic?.path === 'string' && Array.isArray(topic.terms) && topic.terms.every((term) => typeof term === 'string'),
    )
  );
}

/** Topics are per month, the unit people ask about: from the tier whose period is a month, else from the tier below it. */
const TOPIC_TIER: CalendarTier = 'monthly';

function tierOrder(tier: string): number {
  return ALL_TIERS_COARSEST_FIRST.indexOf(tier as Tier);
}

function renderIndex(index: VaultIndex): string {
  const lines: string[] = [
    '# Memory vault index',
    '',
    'Generated by `memvault build`. Every stream, its summaries, the topics you can ask about, and what needs review.',
    '',
    'Ask the vault: `memvault zoom 2026-W07` (the full memories of a period, with the summaries that cover it),',
    '`memvault search "auth sessions" tag:auth` (ranked hits with path:line),',
    '`memvault context --query "how do sessions expire?" --budget 8000` (a context within a token budget).',
    '',
  ];
  for (const stream of index.streams) {
    lines.push(`## Stream \`${stream.name}\``, '');
    const { coverage, memories } = stream;
    lines.push(`- Memories: ${memories.total} (${memories.archived} archived, ${memories.pinned} pinned)`);
    lines.push(
      `- Coverage: ${
        coverage.first_day
          ? `${coverage.first_day} to ${coverage.last_day}, ${counted(coverage.days_with_memories, 'day')} with memories`
          : 'no memories yet'
      }`,
    );
    if (stream.package)
      lines.push(
        `- Package: [${stream.package.path}](${stream.package.path}), ` +
          `${stream.package.tokens}/${stream.package.max_tokens} tokens, ${stream.package.bytes}/${stream.package.max_bytes} bytes`,
      );
    lines.push('');
    if (stream.review.length > 0) {
      lines.push('### Review queue', '');
      // A reason can quote a memory (a fact's value): one line, so it cannot start a section of INDEX.md.
      for (const item of stream.review) lines.push(`- **${item.kind}** [${item.path}](${item.path}): ${oneLine(item.reason)}`);
      lines.push('');
    }
    if (stream.topics.length > 0) {
      lines.push('### Topics', '');
      for (const topic of [...stream.topics].reverse()) lines.push(`- [${topic.period}](${topic.path}): ${topic.terms.join(', ')}`);
      lines.push('');
    }
    if (stream.summaries.length > 0) {
      lines.push(
        '### Summaries',
        '',
        '| tier | period | tokens | sources | memories | generator | flags |',
        '| --- | --- | ---: | ---: | ---: | --- | --- |',
      );
      for (const s of stream.summaries)
        lines.push(
          `| ${s.tier} | [${s.period}](${s.path}) | ${s.tokens} | ${s.sources} | ${s.memories} | ${s.generator} | ${s.flags.join(', ')} |`,
        );
      lines.push('');
    }
  }
  if (index.invalid.length > 0) {
    lines.push('## Files that could not be used', '');
    for (const d of index.invalid)
      lines.push(`- \`${d.path}:${d.line}:${d.column}\` ${d.severity}: ${oneLine(d.reason)}${d.hint ? ` (${oneLine(d.hint)})` : ''}`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
