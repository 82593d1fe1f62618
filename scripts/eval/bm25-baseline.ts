import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';
import { resolveRelativeDates } from '../../src/retention/dates.js';
import { countTokens } from '../../src/util/tokens.js';
import type { ConvertedConversation } from './locomo.js';

/**
 * The strong plain-retrieval baseline `context` must beat: a flat BM25
 * (minisearch) over the conversation's raw turns, with English stop words
 * dropped and Porter stemming; each hit brings its ±1 neighbouring turns;
 * relative dates are resolved against the session's day; the kept turns are
 * rendered in conversation order under a dated session header; hits are
 * packed greedily, best first, until the token budget is spent. No summaries,
 * no tiers: what any retriever with a good analyzer would hand a model.
 */

interface Turn {
  id: number;
  /** Position of the session in the conversation and of the turn in its session. */
  session: number;
  position: number;
  text: string;
}

const STOP = new Set(eng.map((word) => word.toLowerCase()));

/** Lower case, stop words out, Porter stem: the same for turns and questions. */
function processTerm(term: string): string | null {
  const word = term.toLowerCase();
  return word.length < 2 || STOP.has(word) ? null : stemmer(word);
}

export interface Bm25Baseline {
  /** The packed text for `question` within `budget` tokens (o200k_base, as memvault counts). */
  contextFor(question: string, budget: number): string;
}

/** Indexes one conversation's turns once; each question then costs a search and a packing. */
export function bm25Baseline(conversation: ConvertedConversation): Bm25Baseline {
  const turns: Turn[] = [];
  const bySession: Turn[][] = [];
  conversation.sessions.forEach((session, s) => {
    const list: Turn[] = [];
    for (const line of session.turns.values()) {
      const turn = { id: turns.length, session: s, position: list.length, text: resolveRelativeDates(line, session.day) };
      turns.push(turn);
      list.push(turn);
    }
    bySession.push(list);
  });
  const index = new MiniSearch<Turn>({ fields: ['text'], storeFields: [], processTerm });
  index.addAll(turns);
  const headers = conversation.sessions.map((session) => `## Session ${session.index} (${session.date})\n\n`);
  const tokens = new Map<number, number>();
  const turnTokens = (turn: Turn): number => {
    let n = tokens.get(turn.id);
    if (n === undefined) tokens.set(turn.id, (n = countTokens(`${turn.text}\n\n`, 'o200k_base')));
    return n;
  };
  const headerTokens = headers.map((header) => countTokens(header, 'o200k_base'));

  const render = (kept: ReadonlySet<number>): string =>
    bySession
      .map((list, s) => {
        const shown = list.filter((turn) => kept.has(turn.id));
        return shown.length === 0 ? '' : `${headers[s]}${shown.map((turn) => turn.text).join('\n\n')}\n\n`;
      })
      .join('');

  return {
    contextFor(question, budget) {
      const kept = new Set<number>();
      const sessions = new Set<number>();
      const order: number[][] = [];
      let used = 0;
      for (const hit of index.search(question)) {
        const turn = turns[hit.id as number]!;
        const list = bySession[turn.session]!;
        const window = [list[turn.position - 1], turn, list[turn.position + 1]].filter((t): t is Turn => !!t && !kept.has(t.id));
        if (window.length === 0) continue;
        const cost = window.reduce((sum, t) => sum + turnTokens(t), sessions.has(turn.session) ? 0 : headerTokens[turn.session]!);
        if (used + cost > budget) continue;
        used += cost;
        sessions.add(turn.session);
        for (const t of window) kept.add(t.id);
        order.push(window.map((t) => t.id));
      }
      // The pieces were counted apart: the whole text is counted again, and the last windows go while it is over.
      let text = render(kept);
      while (order.length > 0 && countTokens(text, 'o200k_base') > budget) {
        for (const id of order.pop()!) kept.delete(id);
        text = render(kept);
      }
      return text;
    },
  };
}

/** BM25 over whole sessions with the same analyzer: a question's sessions, best first (the search measures' baseline). */
export function bm25Sessions(conversation: ConvertedConversation): (question: string) => number[] {
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], storeFields: [], processTerm });
  index.addAll(conversation.sessions.map((session) => ({ id: session.index, text: session.body })));
  return (question) => index.search(question).map((hit) => hit.id as number);
}
