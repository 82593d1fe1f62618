import { calendarTier, isCalendarTier } from '../../time/tiers.js';
import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { SummaryRequest, SummarySource } from '../types.js';

/**
 * Weeks, months and the long term of coding-agent sessions: the dailies
 * `sessions.ts` wrote (one `### …` block per session with `Goal:`, `Done:`,
 * `Decision:`, `Next:` lines) rolled up by work thread, the branch a session
 * ran on (else its heading). A thread says its goal (its first session's), the
 * latest of what got done, its decisions and what is open now (its latest
 * session's), under `### \`branch\` (first day to last day, N sessions)`, so a
 * person can pick any thread up again; the coarser tiers read the same shape
 * back.
 *
 * The budget is shared in rounds, the busiest thread (most sessions) first:
 * every thread gets its heading and goal before any gets more, so a busy
 * thread is never crowded out by quiet ones, and a quiet one is still named.
 */

interface Thread {
  key: string;
  order: number;
  first: string;
  last: string;
  sessions: number;
  goal: string[];
  /** Newest first. */
  done: string[];
  decisions: string[];
  /** Newest first. */
  next: string[];
}

const LINE = /^- (Goal|Done|Decision|Next): (.+)$/;
const BRANCH = /`([^`]+)`/;
const RANGE = /\((\d{4}-\d{2}-\d{2})(?: to (\d{4}-\d{2}-\d{2}))?, (\d+) sessions?\)$/;

/** The session blocks of a source written by `sessions.ts` or by this file; empty when it has none. */
function threadsOf(source: SummarySource): Thread[] {
  const sections = /^## (?:Sessions|Work threads)\s*$/m.exec(source.body);
  if (!sections) return [];
  const threads: Thread[] = [];
  let current: Thread | undefined;
  for (const line of source.body.slice(sections.index).split('\n')) {
    const heading = /^### (.+)$/.exec(line)?.[1];
    if (heading) {
      const range = RANGE.exec(heading);
      current = {
        key: BRANCH.exec(heading)?.[1] ?? heading.replace(RANGE, '').trim(),
        order: 0,
        first: range?.[1] ?? source.day,
        last: range?.[2] ?? range?.[1] ?? source.day,
        sessions: range ? Number(range[3]) : 1,
        goal: [],
        done: [],
        decisions: [],
        next: [],
      };
      threads.push(current);
      continue;
    }
    const fact = LINE.exec(line);
    if (!fact || !current) continue;
    const list = { Goal: current.goal, Done: current.done, Decision: current.decisions, Next: current.next }[fact[1] as 'Goal'];
    list.push(fact[2]!.trim());
  }
  return threads.filter((thread) => thread.goal.length > 0);
}

/** Threads of every source, merged by key, in the order they first appear. */
export function sessionThreads(request: SummaryRequest): Thread[] | undefined {
  // Only a summary of summaries (a calendar tier made from the tier below) merges its sources' threads.
  if (!isCalendarTier(request.tier) || calendarTier(request.tier).finer === undefined) return undefined;
  const byKey = new Map<string, Thread>();
  for (const source of request.sources) {
    const threads = threadsOf(source);
    // Only a period made of session days: a source of another kind would be lost.
    if (threads.length === 0) return undefined;
    for (const thread of threads) {
      const known = byKey.get(thread.key);
      if (!known) {
        byKey.set(thread.key, { ...thread, order: byKey.size });
        continue;
      }
      known.last = thread.last > known.last ? thread.last : known.last;
      known.sessions += thread.sessions;
      // Sources come oldest first: the newer thread's done and next go first.
      known.done = [...thread.done, ...known.done];
      known.next = [...thread.next, ...known.next];
      known.decisions.push(...thread.decisions.filter((decision) => !known.decisions.includes(decision)));
    }
  }
  return byKey.size > 0 ? [...byKey.values()] : undefined;
}

interface Chosen {
  thread: Thread;
  /** Sentences of the goal said: the first, then (budget allowing) the rest. */
  goal: number;
  done: string[];
  decisions: string[];
  next: string[];
}

/** The goal line's sentences (split after a full stop before a capital or a backtick). */
function goalSentences(goal: readonly string[]): string[] {
  return goal.join(' ').split(/(?<=[.!?])\s+(?=[A-Z`#])/);
}

function render(chosen: readonly Chosen[]): string {
  const parts: string[] = [];
  for (const { thread, goal, done, decisions, next } of chosen) {
    if (goal === 0) continue;
    const days = thread.first === thread.last ? thread.first : `${thread.first} to ${thread.last}`;
    const name = thread.key.includes(' ') ? thread.key : `\`${thread.key}\``;
    const lines = [`- Goal: ${goalSentences(thread.goal).slice(0, goal).join(' ')}`];
    for (const [label, list] of [
      ['Done', done],
      ['Decision', decisions],
      ['Next', next],
    ] as const)
      if (list.length > 0) lines.push(`- ${label}: ${list.join(' ')}`);
    parts.push(`### ${name} (${days}, ${thread.sessions} session${thread.sessions === 1 ? '' : 's'})\n\n${lines.join('\n')}`);
  }
  return parts.length > 0 ? `## Work threads\n\n${parts.join('\n\n')}` : '';
}

/** The summary body of a period of session days by thread, within budget; undefined when not even one goal fits. */
export function summarizeSessionThreads(request: SummaryRequest, threads: Thread[], tokenizer: TokenizerName): string | undefined {
  const fits = (text: string): boolean => countBytes(text) <= request.budget.bytes && countTokens(text, tokenizer) <= request.budget.tokens;
  const chosen: Chosen[] = threads.map((thread) => ({ thread, goal: 0, done: [], decisions: [], next: [] }));
  const busiest = [...chosen].sort((a, b) => b.thread.sessions - a.thread.sessions || a.thread.order - b.thread.order);
  let body = '';
  let misses = 0;
  const attempt = (apply: () => void, undo: () => void): void => {
    if (misses >= 64) return;
    apply();
    const next = render(chosen);
    if (fits(next)) {
      body = next;
      misses = 0;
    } else {
      undo();
      misses++;
    }
  };
  const push = (list: string[], text: string | undefined): void => {
    if (text === undefined || list.includes(text)) return;
    attempt(
      () => list.push(text),
      () => list.pop(),
    );
  };
  for (const c of busiest)
    attempt(
      () => (c.goal = 1),
      () => (c.goal = 0),
    );
  const named = busiest.filter((c) => c.goal > 0);
  for (const c of named) push(c.done, c.thread.done[0]);
  for (const c of named) push(c.next, c.thread.next[0]);
  for (const c of named) push(c.decisions, c.thread.decisions[0]);
  for (const c of named)
    if (goalSentences(c.thread.goal).length > 1)
      attempt(
        () => (c.goal = 2),
        () => (c.goal = 1),
      );
  for (const c of named) for (const text of c.thread.done.slice(1, 3)) push(c.done, text);
  for (const c of named) for (const text of c.thread.decisions.slice(1)) push(c.decisions, text);
  return body || undefined;
}
