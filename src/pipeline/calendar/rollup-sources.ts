import { resolveRelativeDates } from '../../retention/index.js';
import { tierTitle } from '../../time/tiers.js';
import type { SummarySource } from '../../llm/types.js';
import { demoteHeadings } from '../../vault/demote-headings.js';
import type { Memory, Summary, Tier } from '../../vault/model.js';
import type { RollupJob } from './plan.js';
import type { ContentStore } from '../../load/content-store.js';
import { oneLine } from '../../text/safe-text.js';
import { shorten } from '../../text/shorten.js';

/**
 * A rollup's sources as the summarizer sees them, and the lossless merge used
 * when they fit the budget: headings, titles, demoted headings. A copy marked
 * `duplicate_of` becomes a one-line mention (it is a source only on a day
 * with no other memory, see duplicate-marks.ts).
 */

/** A summary's text: its heading, then the content. */
export function compose(title: string, content: string): string {
  return `${title}\n\n${content.trim()}\n`;
}

/** The heading of a generated summary. */
export function titleOf(job: Pick<RollupJob, 'tier' | 'stream' | 'period' | 'start' | 'end'>): string {
  return tierTitle(job.tier, job);
}

/** One source of a job as the summarizer sees it: a memory (its text, dates resolved) or a summary of the tier below. */
/** What reading a source needs of a rollup's context (rollup.ts's `RollupContext` has it). */
export interface SourceContext {
  content: ContentStore;
  memoriesById: ReadonlyMap<string, Memory>;
  summariesById: ReadonlyMap<string, Summary>;
}

export function toSummarySource(id: string, ctx: SourceContext): SummarySource {
  const memory = ctx.memoriesById.get(id);
  if (memory) {
    const parsed = ctx.content.memory(memory);
    const time = /T\d{2}:\d{2}/.test(memory.date)
      ? `${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}`
      : undefined;
    // "yesterday" in a memory means the day before the memory: say which day, for every tier above it.
    const resolve = (text: string): string => resolveRelativeDates(text, memory.day);
    const kept = memory.duplicateOf === undefined ? undefined : ctx.memoriesById.get(memory.duplicateOf);
    if (kept && kept.duplicateOf !== memory.id) {
      // A copy is a source only on a day with nothing else (the day keeps its daily); a mention, never its text again.
      const mention = `A copy of \`${kept.id}\` (${kept.day}), marked \`duplicate_of\`: see that memory.`;
      const label = memory.title === undefined ? memory.id : oneLine(memory.title);
      const sentence = { text: mention, section: '', block: 0, role: 'context' as const, mustKeep: [] };
      return {
        id,
        label,
        day: memory.day,
        ...(time ? { time } : {}),
        kind: memory.kind,
        importance: 'low',
        body: mention,
        sentences: [sentence],
      };
    }
    return {
      id,
      // An untitled memory is named by its first sentence, cut at a word (never mid-word) with an ellipsis.
      // A title is one line (`oneLine`): it heads the source in a summary, where a line break would start a section.
      label: memory.title !== undefined ? oneLine(memory.title) : parsed.sentences[0] ? shorten(parsed.sentences[0].text, 80) : memory.id,
      day: memory.day,
      ...(time ? { time } : {}),
      kind: memory.kind,
      importance: memory.importance,
      body: resolve(parsed.body),
      sentences: parsed.sentences.map((sentence) => ({ ...sentence, text: resolve(sentence.text) })),
    };
  }
  const summary = ctx.summariesById.get(id);
  if (!summary) throw new Error(`source \`${id}\` of a planned summary is not loaded`);
  const parsed = ctx.content.summary(summary);
  return {
    id,
    label: summary.meta.tier === 'longterm' ? 'long-term memory' : summary.meta.period,
    day: summary.meta.start,
    kind: 'summary',
    importance: 'normal',
    body: bodyWithoutTitle(parsed.body),
    sentences: parsed.sentences,
  };
}

/** Concatenates sources under their own headings: lossless, used when it fits the budget. */
export function mergeSources(tier: Tier, sources: readonly SummarySource[]): string {
  return sources
    .map((source) => {
      if (tier === 'daily' && source.importance === 'pinned') {
        // The package always carries pinned memories in full: here a mention is enough.
        const lead = source.sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
        return `### ${source.time ? `${source.time} ` : ''}${source.label} (pinned)\n\n${lead}`.trim();
      }
      const heading = tier === 'daily' ? `### ${source.time ? `${source.time} ` : ''}${source.label}` : `### ${source.label}`;
      return `${heading}\n\n${demoteHeadings(source.body, 3)}`.trim();
    })
    .join('\n\n');
}

function bodyWithoutTitle(body: string): string {
  return body.replace(/^# [^\n]*\n+/, '');
}

/**
 * The most sources one summary reads (issue 29). A day an agent fills with a
 * memory per step can hold 100,000 memories; reading, sending and scoring all
 * of them made one daily cost minutes and its every update as much. Above the
 * cap the summarizer reads a sample: every pinned and high-importance memory
 * (up to the cap), then every `stride`th of the others from the first, in
 * order, the stride a power of two (`strided`). The summary's `sources` still
 * name them all (`boundSources`). The busiest day of the bench's three-year
 * vaults has ~60 memories: only such days change.
 */
export const MAX_SUMMARIZED_SOURCES = 2000;

/** The refs a summary of `refs` reads: all of them up to `MAX_SUMMARIZED_SOURCES`, else a sample in their order (see there). */
export function summarizedRefs<T extends { id: string }>(
  refs: readonly T[],
  importanceOf: (id: string) => string | undefined,
  cap = MAX_SUMMARIZED_SOURCES,
): readonly T[] {
  if (refs.length <= cap) return refs;
  const vital: number[] = [];
  const rest: number[] = [];
  refs.forEach((ref, index) => {
    const importance = importanceOf(ref.id);
    (importance === 'pinned' || importance === 'high' ? vital : rest).push(index);
  });
  const keep = [...strided(vital, cap), ...strided(rest, Math.max(0, cap - vital.length))].sort((a, b) => a - b);
  return keep.map((index) => refs[index]!);
}

/**
 * At most `count` of `items`: every `stride`th from the first, the stride the
 * smallest power of two that leaves no more than `count` (all of them when
 * there are no more than `count`). A memory added at the end of a busy day
 * keeps the sample as it was, unless its place is a multiple of the stride
 * (one in `stride`) or it doubles the stride: the day's summary is then the
 * one kept from the build before (`SampledRollups`, rollup.ts). Spacing the
 * sample evenly from the first to the last instead moved half of it with
 * every memory added.
 */
export function strided<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count === 0) return [];
  let stride = 2;
  while (Math.ceil(items.length / stride) > count) stride *= 2;
  return items.filter((_, index) => index % stride === 0);
}
