import { eng } from 'stopword';
import type { ConvertedConversation, LocomoQa } from './locomo.js';

/**
 * The evaluation's measures, pure functions of texts and questions:
 * - answer retention: the share of scorable questions whose answer appears
 *   (case-insensitive, whitespace and markdown emphasis ignored) in a text;
 * - evidence-token recall: per question, the share of the distinctive tokens
 *   of its evidence turns (≥ 3 characters, not stop words, used in at most 3
 *   sessions of the conversation) that appear in a text, averaged over questions.
 */

/** LoCoMo's categories (5, adversarial, is never scored). */
export const CATEGORIES: Readonly<Record<number, string>> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

/** Answers longer than this many words are not scored for answer retention (they are paraphrases, not strings to find). */
export const MAX_ANSWER_WORDS = 5;
/** A token used in more sessions than this says nothing about one evidence turn. */
export const MAX_SESSIONS_PER_TOKEN = 3;

/** A question the measures count: non-adversarial, with an answer. */
export function isNonAdversarial(qa: LocomoQa): boolean {
  return qa.category >= 1 && qa.category <= 4 && qa.answer !== undefined && qa.answer !== null && String(qa.answer).trim() !== '';
}

/** A question answer retention counts: non-adversarial, with an answer of at most `MAX_ANSWER_WORDS` words. */
export function isScorable(qa: LocomoQa): boolean {
  return isNonAdversarial(qa) && String(qa.answer).trim().split(/\s+/).length <= MAX_ANSWER_WORDS;
}

/** Lower case, markdown emphasis and code ticks removed, whitespace collapsed: what a reader of the rendered text sees. */
export function normalizeText(text: string): string {
  return text.replace(/[*`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Whether `answer` appears in the (already normalised) `haystack`. */
export function containsAnswer(haystack: string, answer: string | number): boolean {
  const needle = normalizeText(String(answer));
  return needle.length > 0 && haystack.includes(needle);
}

const STOP = new Set(eng.map((word) => word.toLowerCase()));

/** Word tokens of a text for recall: lower case, letters and digits, at least 3 characters, not stop words. */
export function recallTokens(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (word.length >= 3 && !STOP.has(word)) out.push(word);
  }
  return out;
}

/** Hits and totals per category; `overall` pools every question (a micro average). */
export interface Tally {
  hits: Record<number, number>;
  totals: Record<number, number>;
}

export function emptyTally(): Tally {
  return { hits: { 1: 0, 2: 0, 3: 0, 4: 0 }, totals: { 1: 0, 2: 0, 3: 0, 4: 0 } };
}

/** Adds `b` into `a`. */
export function addTally(a: Tally, b: Tally): void {
  for (const c of Object.keys(CATEGORIES).map(Number)) {
    a.hits[c] = (a.hits[c] ?? 0) + (b.hits[c] ?? 0);
    a.totals[c] = (a.totals[c] ?? 0) + (b.totals[c] ?? 0);
  }
}

/** The rate per category and overall (`null` where nothing was counted). */
export function rates(tally: Tally): { byCategory: Record<number, number | null>; overall: number | null } {
  const byCategory: Record<number, number | null> = {};
  let hits = 0;
  let totals = 0;
  for (const c of Object.keys(CATEGORIES).map(Number)) {
    const t = tally.totals[c] ?? 0;
    byCategory[c] = t > 0 ? (tally.hits[c] ?? 0) / t : null;
    hits += tally.hits[c] ?? 0;
    totals += t;
  }
  return { byCategory, overall: totals > 0 ? hits / totals : null };
}

/** Answer retention of `text` over the scorable questions. */
export function answerRetention(text: string, qas: readonly LocomoQa[]): Tally {
  const haystack = normalizeText(text);
  const tally = emptyTally();
  for (const qa of qas) {
    if (!isScorable(qa)) continue;
    tally.totals[qa.category] = (tally.totals[qa.category] ?? 0) + 1;
    if (containsAnswer(haystack, qa.answer!)) tally.hits[qa.category] = (tally.hits[qa.category] ?? 0) + 1;
  }
  return tally;
}

/** Dialogue ids of a question's evidence; LoCoMo sometimes packs several in one string (`D8:6; D9:17`). */
export function evidenceIds(qa: LocomoQa): string[] {
  return (qa.evidence ?? []).flatMap((item) => String(item).match(/D\d+:\d+/g) ?? []);
}

/** For each non-adversarial question with evidence, the distinctive tokens of its evidence turns. */
export function evidenceTokens(conversation: ConvertedConversation): { qa: LocomoQa; tokens: Set<string> }[] {
  const sessionsOf = new Map<string, number>();
  for (const session of conversation.sessions) {
    for (const token of new Set(recallTokens(session.body))) sessionsOf.set(token, (sessionsOf.get(token) ?? 0) + 1);
  }
  const turns = new Map<string, string>();
  for (const session of conversation.sessions) for (const [id, text] of session.turns) turns.set(id, text);
  const out: { qa: LocomoQa; tokens: Set<string> }[] = [];
  for (const qa of conversation.qa) {
    if (!isNonAdversarial(qa)) continue;
    const tokens = new Set<string>();
    for (const id of evidenceIds(qa)) {
      const turn = turns.get(id);
      if (turn === undefined) continue;
      // The speaker's name opens every turn: it is not evidence.
      const text = turn.slice(turn.indexOf(':') + 1);
      for (const token of recallTokens(text)) if ((sessionsOf.get(token) ?? 0) <= MAX_SESSIONS_PER_TOKEN) tokens.add(token);
    }
    if (tokens.size > 0) out.push({ qa, tokens });
  }
  return out;
}

/** Evidence-token recall of `text` for the given questions. */
export function evidenceRecall(text: string, questions: readonly { qa: LocomoQa; tokens: ReadonlySet<string> }[]): Tally {
  const present = new Set(recallTokens(text));
  // Recall is fractional per question: hits hold the sum of recalls, totals the number of questions.
  const tally = emptyTally();
  for (const { qa, tokens } of questions) {
    let found = 0;
    for (const token of tokens) if (present.has(token)) found++;
    tally.hits[qa.category] = (tally.hits[qa.category] ?? 0) + found / tokens.size;
    tally.totals[qa.category] = (tally.totals[qa.category] ?? 0) + 1;
  }
  return tally;
}

/** A turn's words as a reader compares them: the speaker and any image caption left out, normalised. */
function turnWords(turn: string): string {
  const text = turn.slice(turn.indexOf(':') + 1).replace(/\s*\[image:[^\]]*\]\s*$/, '');
  return normalizeText(stripResolvedDates(text));
}

/** `yesterday (7 May 2023)` → `yesterday`: resolved dates do not make a turn absent. */
function stripResolvedDates(text: string): string {
  return text.replace(/\s*\((?:[^()]*\d{4})\)/g, '');
}

/** For each non-adversarial question with evidence, the texts of its evidence turns. */
export function evidenceTurns(conversation: ConvertedConversation): { qa: LocomoQa; turns: string[] }[] {
  const turns = new Map<string, string>();
  for (const session of conversation.sessions) for (const [id, text] of session.turns) turns.set(id, text);
  const out: { qa: LocomoQa; turns: string[] }[] = [];
  for (const qa of conversation.qa) {
    if (!isNonAdversarial(qa)) continue;
    const texts = [...new Set(evidenceIds(qa))].map((id) => turns.get(id)).filter((t): t is string => t !== undefined);
    const words = texts.map(turnWords).filter((w) => w.length > 0);
    if (words.length > 0) out.push({ qa, turns: words });
  }
  return out;
}

/**
 * Evidence-turn recall of `text`: per question, the share of its evidence turns that appear whole in the text
 * (normalised, speaker and resolved dates aside); a turn quoted in part or only summarised does not count.
 */
export function evidenceTurnRecall(text: string, questions: readonly { qa: LocomoQa; turns: readonly string[] }[]): Tally {
  const haystack = normalizeText(stripResolvedDates(text));
  const tally = emptyTally();
  for (const { qa, turns } of questions) {
    const found = turns.filter((turn) => haystack.includes(turn)).length;
    tally.hits[qa.category] = (tally.hits[qa.category] ?? 0) + found / turns.length;
    tally.totals[qa.category] = (tally.totals[qa.category] ?? 0) + 1;
  }
  return tally;
}
