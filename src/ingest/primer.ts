import { DateTime } from 'luxon';
import type { TierBudget } from '../config/schema.js';
import type { Summarizer, SummarySource } from '../llm/types.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import { parseMarkdown } from '../vault/markdown.js';
import type { Tier } from '../vault/model.js';
import { extractSentences } from '../vault/sentences.js';
import { bodyHash, cleanText, describeCall, isoInZone, MAX_TURN_CHARS, type MemoryDraft, type RenderContext } from './render.js';
import { FORMAT_LABELS, type Session } from './session.js';

/**
 * `ingest --primer`: instead of the transcript, one memory holding a session
 * primer, what the next session needs to pick up the work (done, decisions,
 * state, open threads), written by the configured summarizer through the
 * `Summarizer` interface (the embedded extractive one works offline).
 *
 * The summarizer sees the session's messages as sources, redacted first, so
 * a secret never reaches an LLM endpoint either. The request uses the
 * `daily` tier's instructions and budget: a session is summarized like a day
 * of memories. The primer is dated at the session's last message: it is the
 * state of the work when the session ended.
 */

/** The tier whose instructions and budget write a primer. */
export const PRIMER_TIER: Tier = 'daily';

/** Rendering context plus what a summary needs: the summarizer, the budget and the retries. */
export interface PrimerContext extends RenderContext {
  summarizer: Summarizer;
  budget: TierBudget;
  tokenizer: TokenizerName;
  /** Tighter retries when the answer is over budget (`llm.retries`). */
  retries: number;
  stream: string;
}

/** One `session-primer` memory draft for a session (see the module comment). */
export async function renderPrimer(session: Session, ctx: PrimerContext): Promise<MemoryDraft> {
  const timed = session.turns.map((turn) => ({ turn, time: turn.time ?? ctx.fallback }));
  const zone = ctx.timezone;
  const dayOf = (date: Date): string => DateTime.fromJSDate(date, { zone }).toISODate()!;
  const sources: SummarySource[] = [];
  timed.forEach(({ turn, time }, i) => {
    if (turn.role !== 'user' && turn.role !== 'assistant') return;
    const tools = turn.tools.map((call) => `- ${describeCall(call, session, ctx)}`);
    const text = cleanText([turn.text.slice(0, MAX_TURN_CHARS), tools.join('\n')].filter(Boolean).join('\n\n'), ctx);
    if (text.trim() === '') return;
    const clockTime = DateTime.fromJSDate(time, { zone }).toFormat('HH:mm');
    sources.push({
      id: `${session.id}#${i + 1}`,
      label: `${turn.role} ${clockTime}`,
      day: dayOf(time),
      ...(turn.time ? { time: clockTime } : {}),
      kind: turn.role === 'user' ? 'request' : 'session',
      importance: 'normal',
      body: text,
      sentences: extractSentences(parseMarkdown(text), { pinned: false }),
    });
  });
  const first = timed[0]?.time ?? ctx.fallback;
  const last = timed[timed.length - 1]?.time ?? ctx.fallback;
  const title = cleanText(session.title ?? `${FORMAT_LABELS[session.format]} ${session.id.slice(0, 8)}`, ctx);

  let body = '';
  if (sources.length > 0) {
    const request = {
      tier: PRIMER_TIER,
      stream: ctx.stream,
      period: dayOf(last),
      start: dayOf(first),
      end: dayOf(last),
      sources,
      budget: { tokens: ctx.budget.target_tokens, bytes: ctx.budget.max_bytes },
      attempt: 0,
      missing: [] as string[],
    };
    for (let attempt = 0; attempt <= ctx.retries; attempt++) {
      const output = await ctx.summarizer.summarize({ ...request, attempt });
      body = output.body.trim();
      if (countTokens(body, ctx.tokenizer) <= request.budget.tokens && countBytes(body) <= request.budget.bytes) break;
    }
  }
  const messages = sources.length;
  const span = `${isoInZone(first, zone).slice(0, 16).replace('T', ' ')} to ${isoInZone(last, zone).slice(0, 16).replace('T', ' ')} ${zone}`;
  const lead =
    `Session primer for ${FORMAT_LABELS[session.format]} "${title}" (${span}, ${messages} message${messages === 1 ? '' : 's'}): ` +
    'the full transcript was not stored.';
  const full = cleanText(`${lead}\n\n${body || 'The session had no messages to summarize.'}`, ctx);
  return {
    day: dayOf(last),
    date: isoInZone(last, zone),
    title: `Session primer: ${title}`,
    kind: 'session-primer',
    tags: [...new Set([session.format, 'primer', ...ctx.tags])],
    body: full,
    source: { ...ctx.source, format: session.format, session: session.id, mode: 'primer', body_sha256: bodyHash(full) },
    extra: {},
  };
}
