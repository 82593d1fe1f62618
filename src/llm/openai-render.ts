import { calendarTier, isCalendarTier } from '../time/tiers.js';
import { renderTemplate, type PromptFile } from './prompts.js';
import type { OpenAiSettings } from './openai-settings.js';
import type { SummaryRequest, SummarySource } from './types.js';

/** How a summary request becomes the text sent to an OpenAI-compatible model (chat or completion mode). */

/** Each budget attempt asks for less than the budget: models overshoot what they are told. */
const BUDGET_FACTORS = [0.9, 0.75, 0.6] as const;
/** Words per token of English prose in markdown bullets, for the `about N words` hint. */
const WORDS_PER_TOKEN = 0.7;

/** A rendered request: what is sent, before sampling settings. */
export type RenderedPrompt = { mode: 'chat'; system: string; user: string } | { mode: 'completion'; prompt: string; stop: string[] };

/**
 * The text sent for a request: the tier's prompt with the request's values,
 * the tighter instruction of a budget retry, and the must-keep items a
 * previous attempt lost. Pure; exported for tests and dry runs.
 */
export function renderPrompt(prompt: PromptFile, request: SummaryRequest, settings: Pick<OpenAiSettings, 'mode' | 'stop'>): RenderedPrompt {
  const factor = BUDGET_FACTORS[Math.min(request.attempt, BUDGET_FACTORS.length - 1)]!;
  const maxTokens = Math.max(16, Math.floor(request.budget.tokens * factor));
  const variables: Record<string, string> = {
    stream: request.stream,
    tier: request.tier,
    period: request.period,
    start: request.start,
    end: request.end,
    max_tokens: String(maxTokens),
    max_words: String(Math.max(10, Math.floor(maxTokens * WORDS_PER_TOKEN))),
    max_bytes: String(Math.floor(request.budget.bytes * factor)),
    source_count: String(request.sources.length),
    attempt: String(request.attempt),
  };
  const notes: string[] = [];
  if (request.attempt > 0) {
    const retry = prompt.retry[Math.min(request.attempt - 1, prompt.retry.length - 1)]!;
    const previous = request.previousTokens !== undefined ? String(request.previousTokens) : `more than ${request.budget.tokens}`;
    notes.push(renderTemplate(retry, { ...variables, previous_tokens: previous }));
  }
  if (request.missing.length > 0)
    notes.push(renderTemplate(prompt.keep, { ...variables, missing: request.missing.map((item) => `“${item}”`).join('; ') }));
  const notesText = notes.join('\n');
  const sources = request.sources.map((source) => renderTemplate(prompt.source, sourceVariables(source)).trim()).join('\n\n');
  const fill = (text: string): string => {
    let out = renderTemplate(text, { ...variables, sources, notes: notesText });
    if (notesText && !/\{\{\s*notes\s*\}\}/.test(text))
      out = settings.mode === 'chat' ? `${out.trimEnd()}\n\n${notesText}` : `${notesText}\n\n${out}`;
    return tidy(out);
  };
  if (settings.mode === 'chat') return { mode: 'chat', system: tidy(renderTemplate(prompt.system, variables)), user: fill(prompt.user) };
  return { mode: 'completion', prompt: fill(prompt.completion.prompt), stop: settings.stop ?? prompt.completion.stop };
}

function sourceVariables(source: SummarySource): Record<string, string> {
  return {
    heading: headingOf(source),
    label: source.label,
    day: source.day,
    time: source.time ?? '',
    kind: source.kind,
    importance: source.importance,
    id: source.id,
    body: demote(source.body.trim()),
  };
}

/** How a source is introduced: `09:05 Auth refactor (session, pinned)`, `2026-02-10 (Tue)`, `week 2026-W07`. */
function headingOf(source: SummarySource): string {
  if (source.kind !== 'summary') {
    const notes = [source.kind, source.importance === 'pinned' ? 'pinned' : ''].filter(Boolean).join(', ');
    return `${source.time ? `${source.time} ` : ''}${source.label}${notes ? ` (${notes})` : ''}`;
  }
  // A source summary's id is its summary id (`weekly/2026-W07`, `longterm`: time/tiers.ts, summaryId).
  const tier = source.id.includes('/') ? source.id.slice(0, source.id.indexOf('/')) : source.id;
  return isCalendarTier(tier) ? calendarTier(tier).sourceHeading(source.label, source.day) : source.label;
}

/** Headings of a source body go below the source's own `###` heading (fenced code is left alone). */
function demote(body: string): string {
  let inFence = false;
  return body
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      if (inFence) return line;
      const match = /^(#{1,6})(\s.*)$/.exec(line);
      return match ? `${'#'.repeat(Math.min(6, match[1]!.length + 3))}${match[2]}` : line;
    })
    .join('\n');
}

/** Blank-only lines emptied, runs of blank lines cut to one, trailing space dropped. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
