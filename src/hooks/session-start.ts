import path from 'node:path';
import type { Served } from './context.js';
import type { AssembledContext } from '../read/context/assemble.js';
import { loadValidConfigCached } from '../config/cached.js';
import { recordUsage } from '../usage/log.js';
import { isKindOrTag, type Memory } from '../vault/model.js';
import type { HookInput } from './input.js';
import type { Config } from '../config/schema.js';
import type { ScannedFile } from '../vault/scan.js';
import { usageStamp } from '../usage/read.js';
import type { ReadVault } from '../read/vault.js';
import {
  type CachedStart,
  readStartCache,
  readTokenCounts,
  requestKey,
  scanVault,
  startSlot,
  usageLeavesAnswer,
  vaultStamp,
  writeStartCache,
  writeTokenCounts,
} from './start-cache.js';

/**
 * `memvault hook session-start`: the memory a coding-agent session starts
 * with, printed for the agent to read: the critical items (pinned first,
 * then decisions and recent errors), then a query-less context, all within
 * `hooks.budget` tokens. Claude Code runs it on startup, resume, clear and
 * compact: after a compaction the agent gets it again, so what the summary
 * of the conversation dropped comes back.
 */

export interface SessionStartOptions {
  root: string;
  input: HookInput;
  now: Date;
  stream?: string;
  budget?: number;
  /** At most this many characters (default: `hooks.max_chars`, 9000). */
  maxChars?: number;
  /** The most characters the agent running the hook passes on whole (hooks/agents.ts): the text stays within it too. */
  agentMaxChars?: number;
}

export interface SessionStartResult {
  text: string;
  tokens: number;
  budget: number;
  stream: string;
  items: { tier: string; source: string }[];
}

export async function sessionStart(options: SessionStartOptions): Promise<SessionStartResult> {
  // The config from its cache, the vault not even opened (read/vault.ts would load the frontmatter parser): the reused
  // answer's path loads only what this file and start-cache.ts import.
  const config = await loadValidConfigCached(options.root);
  const budget = options.budget ?? config.hooks.budget;
  const stream = options.stream ?? config.hooks.stream;
  // The last answer, when nothing it depends on changed (start-cache.ts): no vault load, no tokenizer.
  const vaultDir = path.resolve(options.root, config.vault);
  const maxChars = Math.min(options.maxChars ?? config.hooks.max_chars, options.agentMaxChars ?? Number.POSITIVE_INFINITY);
  const request = { budget, maxChars, stream, compact: options.input.source === 'compact' };
  const key = requestKey(config, request);
  const slot = startSlot(request);
  const at = options.now.getTime();
  const cached = readStartCache<{ result: SessionStartResult; served: Served[] }>(options.root, slot);
  // One walk of the vault: it stamps the kept answer, and a miss loads the vault from it (a walk of 20,000 files is ~0.1 s).
  const scanned = scanVault(vaultDir, config);
  const before = vaultStamp(vaultDir, scanned);
  if (
    cached?.key === key &&
    at >= cached.from &&
    at < cached.until &&
    cached.vault === before &&
    usageLeavesAnswer(options.root, cached, usageStamp(options.root, vaultDir, cached.answer.result.stream))
  ) {
    recordUsage(options.root, cached.answer.served, 'hook:session-start', options.now);
    writeStartCache(options.root, slot, { ...cached, usage: usageStamp(options.root, vaultDir, cached.answer.result.stream) });
    return cached.answer.result;
  }
  return assembleAnswer(options, { config, budget, stream, maxChars, key, slot, at, scanned, before });
}

/** A miss: the vault loaded from the walk, the context assembled within the budget and the characters, the answer kept. */
async function assembleAnswer(
  options: SessionStartOptions,
  request: {
    config: Config;
    budget: number;
    stream: string | undefined;
    maxChars: number;
    key: string;
    slot: string;
    at: number;
    scanned: ScannedFile[];
    before: string;
  },
): Promise<SessionStartResult> {
  const { config, budget, stream, maxChars, key, slot, at } = request;
  const { pickStream } = await import('../read/vault.js');
  const { createIndex } = await import('../search/index.js');
  const { contextWarm } = await import('./context.js');
  const { countFor, countedTexts, measuredLines, useKnownCounts, useKnownLines } = await import('../read/context/warm.js');
  const { todayIn } = await import('../time/periods.js');
  const today = todayIn(options.now, config.timezone);
  const vault = await loadForContext(options.root, request, today);
  // The last assembly's counts first: the tokenizer is loaded only for a text it did not measure.
  const kept = readTokenCounts(options.root, config.tokenizer);
  useKnownCounts(vault, kept.count);
  // And its body lines (the `path:line` labels): the frontmatter parser is loaded only for a file it did not label.
  useKnownLines(vault, kept.line);
  const count = countFor(vault);
  // A query-less context searches nothing (no signal, no search): the index is not read, which is most of a read command's start-up.
  const index = createIndex();
  const header = headerFor(options.input);
  const { result, served, text } = fitToCharacters(
    (tokens) => contextWarm({ vault, index }, { budget: tokens, ...(stream ? { stream } : {}) }, options.now),
    { header, footer: FOOTER, maxChars },
    Math.max(1, budget - count(header + FOOTER)),
  );
  // Before the answer's own uses are recorded: what is left out is then the assembly's, remembered (left-out.ts).
  const forgotten = await forgottenOf(vault, stream, options.now, today);
  recordUsage(options.root, served, 'hook:session-start', options.now);
  const answer: SessionStartResult = {
    text,
    tokens: count(text),
    budget,
    stream: served[0]?.stream ?? stream ?? Object.keys(config.streams)[0] ?? 'main',
    items: result.items.map((item) => ({ tier: item.tier, source: item.source })),
  };
  const streams = vault.loaded.state.streams;
  const errors = streams.has(answer.stream) ? pickStream(vault, answer.stream).memories : [];
  writeTokenCounts(options.root, config.tokenizer, countedTexts(vault), measuredLines(vault));
  writeStartCache(options.root, slot, {
    key,
    vault: request.before,
    usage: usageStamp(options.root, vault.vaultDir, answer.stream),
    forgotten,
    from: at,
    until: await validUntil(options.now, config.timezone, errors),
    answer: { result: answer, served },
  });
  return answer;
}

/**
 * The vault as the context needs it: only the files it draws on when the parts kept by the last whole load say that is
 * the same context (start-parts.ts), else the whole vault, whose parts are then kept for the next answer.
 */
async function loadForContext(
  root: string,
  request: { config: Config; stream: string | undefined; scanned: ScannedFile[] },
  today: string,
): Promise<ReadVault> {
  const { openVault, pickStream } = await import('../read/vault.js');
  const { partsKey, partsHold, partsSubset, recordParts } = await import('./start-parts.js');
  const key = partsKey(request.config, request.stream);
  const partial = partsSubset(root, key, today, request.scanned);
  if (partial) {
    const some = await openVault(root, { scanned: partial.files, partial: true });
    const stream = some.loaded.state.streams.get(partial.parts.stream);
    if (stream && partsHold(partial, stream)) return some;
  }
  const vault = await openVault(root, { scanned: request.scanned });
  const streams = vault.loaded.state.streams;
  const stream = request.stream ?? Object.keys(request.config.streams)[0] ?? [...streams.keys()][0];
  if (stream !== undefined && streams.has(stream))
    recordParts(root, { key, stream: pickStream(vault, stream), streams, today, scanned: request.scanned });
  return vault;
}

/**
 * The context's stream and its forgotten memories the context could show if they came back (read/context/stream-view.ts):
 * what is left out is worked out as the assembly did (the same memories, usage and day: remembered, not again).
 */
async function forgottenOf(
  vault: ReadVault,
  stream: string | undefined,
  now: Date,
  today: string,
): Promise<CachedStart<unknown>['forgotten']> {
  const { pickStream } = await import('../read/vault.js');
  const { leftOutOf } = await import('../maintain/left-out.js');
  const { forgottenPushable } = await import('../read/context/stream-view.js');
  const state = pickStream(vault, stream);
  const leftOut = leftOutOf(vault.root, vault.vaultDir, vault.config, state, now);
  return { stream: state.name, ids: forgottenPushable(state, leftOut, today) };
}

/**
 * Until when the answer for `now` holds as far as time goes: the next midnight of the zone (the day is in the title and
 * decides forgetting and the facts in force), or the first moment an error memory enters or leaves the last 24 hours.
 */
async function validUntil(now: Date, zone: string, memories: readonly Memory[]): Promise<number> {
  const { DateTime } = await import('luxon');
  const at = now.getTime();
  let until = DateTime.fromJSDate(now, { zone }).plus({ days: 1 }).startOf('day').toMillis();
  for (const m of memories) {
    if (!isKindOrTag(m, 'error') || endedLongAgo(m.date, at)) continue;
    const instant = DateTime.fromISO(m.date, { zone }).toMillis();
    if (instant > at) until = Math.min(until, instant);
    else if (instant + DAY >= at) until = Math.min(until, instant + DAY + 1);
  }
  return until;
}

const DAY = 24 * 3_600_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}/;

/**
 * Whether a memory dated `date` (ISO, any offset or a bare date in any zone) left the last 24 hours before `at` for sure:
 * its day is before the UTC day of three days earlier, and an offset moves an instant by at most 14 hours. Compared as
 * text, since parsing every error memory's date with luxon cost ~0.1 s of the hook at 20,000 memories.
 */
export function endedLongAgo(date: string, at: number): boolean {
  return ISO_DAY.test(date) && date.slice(0, 10) < new Date(at - 3 * DAY).toISOString().slice(0, 10);
}

/** One line saying where this comes from, and why it is here again after a compaction. */
function headerFor(input: HookInput): string {
  const again = input.source === 'compact' ? ' (again after compaction: these instructions and decisions still hold)' : '';
  return `Project memory from memvault${again}.\n\n`;
}

/** The last line, whatever was cut: how the agent asks for the rest. */
const FOOTER = '\nMore on request: the memvault MCP tools `search`, `zoom` and `context` (or `memvault search <words>` in a shell).\n';

const NO_MEMORIES = '(no memories yet: `memvault add` or the add_memory tool saves one)\n';

/**
 * The context within `maxChars` characters as well as its token budget. An agent caps what a hook adds by characters
 * (Claude Code: 10,000, the rest only previewed to the model), while the assembly counts tokens: when the text is too
 * long, the token budget shrinks in proportion and the context is assembled again, so it stays whole items, most
 * important first. A few rounds reach the cap; a text still over it (a very dense item) is cut at a line boundary.
 * The footer saying how to ask for more always ends the text.
 */
export function fitToCharacters(
  assemble: (tokens: number) => { result: AssembledContext; served: Served[] },
  frame: { header: string; footer: string; maxChars: number },
  tokens: number,
): { result: AssembledContext; served: Served[]; text: string } {
  const room = Math.max(0, frame.maxChars - frame.header.length - frame.footer.length);
  let budget = tokens;
  let answer = assemble(budget);
  for (let round = 0; round < 4 && answer.result.context.length > room && budget > 1; round++) {
    budget = Math.max(1, Math.floor((budget * room * 0.97) / answer.result.context.length));
    answer = assemble(budget);
  }
  let body = answer.result.context || NO_MEMORIES;
  if (body.length > room) {
    const cut = body.lastIndexOf('\n', room - 4);
    body = `${body.slice(0, cut > 0 ? cut : room - 4)}\n…\n`;
  }
  return { ...answer, text: `${frame.header}${body}${frame.footer}` };
}
