import { oneLine } from '../../text/safe-text.js';
import { hashValue } from '../../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { ParsedContent } from '../../store/cache.js';
import { stringifyFrontmatter } from '../../vault/frontmatter.js';
import type { Memory, Summary } from '../../vault/model.js';
import { demoteHeadings } from '../../vault/demote-headings.js';
import type { WaterfallLayers, WaterfallPosition } from './plan.js';

/**
 * `CONTEXT.md` of a waterfall stream: the prompt block an agent loads, oldest
 * layer first — older memories (the long-term summary), the recent past (the
 * recent summary), then the immediate memories in full. Pure: bodies come
 * through the readers passed in.
 *
 * It stays within `waterfall.context_max_tokens` (the whole file, frontmatter
 * included): when it would not, the oldest immediate memories are shortened
 * to their first sentence, then left out, oldest first, and the block says
 * so. The summaries are never cut (their own budgets bound them).
 */

export const CONTEXT_SECTIONS = ['Older memories (summary)', 'Recent past (summary)', 'Recent memories (in full)'] as const;

export interface ContextInput {
  stream: string;
  position: WaterfallPosition;
  layers: WaterfallLayers;
  longterm: Summary | undefined;
  recent: Summary | undefined;
  maxTokens: number;
  tokenizer: TokenizerName;
  readMemory: (memory: Memory) => ParsedContent;
  readSummary: (summary: Summary) => ParsedContent;
}

export interface AssembledContext {
  text: string;
  tokens: number;
  bytes: number;
  /** Immediate memories shortened to their first sentence to fit the budget. */
  shortened: number;
  /** Immediate memories left out to fit the budget. */
  leftOut: number;
  /** Even with every immediate memory left out, the summaries alone exceed the budget. */
  overBudget: boolean;
  inputHash: string;
}

/** Fingerprint of everything CONTEXT.md is made from: equal hash, equal file. */
export function contextInputHash(input: Omit<ContextInput, 'readMemory' | 'readSummary'>): string {
  const ref = (summary: Summary | undefined) => (summary ? [summary.path, summary.sha256] : null);
  return hashValue({
    v: 1,
    stream: input.stream,
    maxTokens: input.maxTokens,
    tokenizer: input.tokenizer,
    position: [input.position.memories, input.position.compaction, input.position.nextAt],
    longterm: input.layers.longterm.length > 0 ? ref(input.longterm) : null,
    recent: input.layers.recent.length > 0 ? ref(input.recent) : null,
    layers: [input.layers.longterm.length, input.layers.recent.length],
    immediate: input.layers.immediate.map((memory) => [memory.path, memory.sha256]),
  });
}

type State = 'full' | 'short' | 'out';

export function assembleContext(input: ContextInput): AssembledContext {
  const inputHash = contextInputHash(input);
  const { layers } = input;
  const items = layers.immediate.map((memory) => ({ memory, state: 'full' as State }));
  const render = (): string => renderContext(input, items, inputHash);
  const measure = (text: string): number => countTokens(text, input.tokenizer);

  let text = render();
  let tokens = measure(text);
  if (tokens > input.maxTokens) {
    // Estimate from per-memory costs to trim in one go, then check on the real text.
    const cost = (item: (typeof items)[number], state: State): number =>
      state === 'out' ? 0 : countTokens(renderMemory(item.memory, state, input), input.tokenizer) + 1;
    let over = tokens - input.maxTokens;
    for (const item of items) {
      if (over <= 0) break;
      over -= cost(item, 'full') - cost(item, 'short');
      item.state = 'short';
    }
    for (const item of items) {
      if (over <= 0) break;
      over -= cost(item, 'short');
      item.state = 'out';
    }
    text = render();
    tokens = measure(text);
    // Notes and joins cost a little more than the estimate: trim one more at a time.
    for (;;) {
      if (tokens <= input.maxTokens) break;
      const next = items.find((item) => item.state === 'full') ?? items.find((item) => item.state === 'short');
      if (!next) break;
      next.state = next.state === 'full' ? 'short' : 'out';
      text = render();
      tokens = measure(text);
    }
  }
  return {
    text,
    tokens,
    bytes: countBytes(text),
    shortened: items.filter((item) => item.state === 'short').length,
    leftOut: items.filter((item) => item.state === 'out').length,
    overBudget: tokens > input.maxTokens,
    inputHash,
  };
}

function renderContext(input: ContextInput, items: readonly { memory: Memory; state: State }[], inputHash: string): string {
  const { stream, layers, position } = input;
  const front = {
    memvault: 'context',
    stream,
    memories: position.memories,
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    next_compaction_at: position.nextAt,
    input_hash: inputHash,
  };
  const parts: string[] = [`# Memory of ${stream}`];
  if (position.memories === 0) {
    parts.push(
      `No memories yet. Write markdown files with a \`date:\` in their frontmatter under \`${stream}/memories/\`, then run \`memvault build\`.`,
    );
    return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
  }
  const range = (from: number, count: number): string => (count === 1 ? `memory ${from}` : `memories ${from}–${from + count - 1}`);
  const nL = layers.longterm.length;
  const nR = layers.recent.length;
  const nI = layers.immediate.length;
  parts.push(
    `Memories of \`${stream}\`, oldest first: ${[
      nL > 0 ? `a summary of the older ${range(1, nL)}` : '',
      nR > 0 ? `a summary of the recent past (${range(nL + 1, nR)})` : '',
      nI > 0 ? `then the latest ${nI === 1 ? 'memory' : `${nI} memories`} in full` : '',
    ]
      .filter(Boolean)
      .join(', ')}. The next compaction happens at ${position.nextAt} memories.`,
  );

  parts.push(`## ${CONTEXT_SECTIONS[0]}`);
  parts.push(
    nL > 0 && input.longterm
      ? summaryBody(input.longterm, input)
      : '_Nothing yet: older memories are folded in here from the second compaction on._',
  );
  parts.push(`## ${CONTEXT_SECTIONS[1]}`);
  parts.push(
    nR > 0 && input.recent
      ? summaryBody(input.recent, input)
      : `_Nothing yet: the first compaction summarizes the oldest memories here once the stream has ${position.nextAt}._`,
  );
  parts.push(`## ${CONTEXT_SECTIONS[2]}`);
  const shortened = items.filter((item) => item.state === 'short').length;
  const out = items.filter((item) => item.state === 'out');
  if (out.length > 0) {
    parts.push(
      `_To stay within ${input.maxTokens.toLocaleString('en-US')} tokens, the ${out.length === 1 ? 'oldest memory' : `${out.length} oldest memories`} ` +
        `of this section (${out[0]!.memory.day} to ${out[out.length - 1]!.memory.day}) ${out.length === 1 ? 'is' : 'are'} left out; ` +
        `${out.length === 1 ? 'it is' : 'they are'} in the vault under \`${stream}/memories/\`._`,
    );
  }
  if (shortened > 0) {
    parts.push(
      `_To stay within ${input.maxTokens.toLocaleString('en-US')} tokens, the ${shortened === 1 ? 'oldest memory' : `${shortened} oldest memories`} ` +
        `below ${shortened === 1 ? 'is' : 'are'} shortened to ${shortened === 1 ? 'its' : 'their'} first sentence._`,
    );
  }
  for (const item of items) if (item.state !== 'out') parts.push(renderMemory(item.memory, item.state, input));
  if (nI === 0) parts.push('_None: every memory is in the summaries above._');
  return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
}

/** A summary's body under a context section: its title dropped, a lone `## Summary` heading too, other headings nested. */
function summaryBody(summary: Summary, input: ContextInput): string {
  const parsed = input.readSummary(summary);
  let body = parsed.body.replace(/^# [^\n]*\n+/, '');
  if (/^## Summary\n/.test(body) && !/^#{1,6} /m.test(body.replace(/^## Summary\n/, ''))) body = body.replace(/^## Summary\n+/, '');
  return demoteHeadings(body, 2, parsed);
}

function renderMemory(memory: Memory, state: State, input: ContextInput): string {
  const parsed = input.readMemory(memory);
  if (state === 'short') {
    const first = parsed.sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
    return `### ${memoryHeading(memory)}\n\n${first} (shortened)`;
  }
  return `### ${memoryHeading(memory)}\n\n${demoteHeadings(parsed.body, 3, parsed)}`;
}

function memoryHeading(memory: Memory): string {
  const time = /T\d{2}:\d{2}/.test(memory.date)
    ? ` ${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}`
    : '';
  // Title, kind and tags are one line each (`oneLine`): a line break in one cannot start a section of CONTEXT.md.
  const kind = memory.kind !== 'note' ? ` (${oneLine(memory.kind)})` : '';
  const tags = memory.tags.length > 0 ? ` [${memory.tags.map(oneLine).join(', ')}]` : '';
  return `${memory.day}${time}${memory.title ? ` ${oneLine(memory.title)}` : ''}${kind}${tags}`;
}
