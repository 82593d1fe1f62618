import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { Sentence } from '../../vault/model.js';
import type { SummaryRequest, SummarySource } from '../types.js';
import { isLeadIn, isToolCallLine, opensWithReference, wordCount } from './standalone.js';

/**
 * A day of coding-agent sessions summarized so a person can resume from it:
 * per session its goal, what got done, what was decided and what is open or
 * next, with the identifiers that find things again (work items `LED-231`,
 * PRs `#418`, commits, the branch, files). The sessions are read in the shape
 * `memvault ingest` writes them (`src/ingest/distill.ts`: a header line with
 * the branch, `## Requests`, `## Outcome`, `## Changes`).
 *
 * The budget is shared out in rounds, each session in turn, the busiest
 * (longest) first: every session gets its heading and goal before any gets
 * what it did, that before decisions, then what is open, then the
 * identifiers not said yet, then more of what was done. So a busy session is
 * never crowded out by a quiet one, and a quiet one still says its goal.
 * Sentences are whole (never cut), and never a tool-call line, a lead-in or
 * an opening that points back at a sentence left out.
 */

/** A work-item id (`LED-231`, `ABC-12`) or a PR or issue number (`#418`). */
const WORK_ITEM = /\b[A-Z][A-Z0-9]{1,9}-\d+\b|(?<![\w#&])#\d+\b/g;
const WORK_ITEM_TEST = new RegExp(WORK_ITEM.source);
/** What is open or next. */
const OPEN =
  /\b(?:open:|next:|todo|to do|follow[- ]up|remains?|remaining|still (?:needs?|open|to do|failing|broken)|not yet|left to do|filed (?:it )?as|blocked|blocker|waiting (?:for|on)|should (?:move|be|get)|needs? (?:a|an|to|the))\b/i;
const DECIDED =
  /^\s*(?:\*\*)?decision\b|\b(?:we|I|they|the team) (?:decided|chose|agreed)\b|\bdecided (?:to|that|against)\b|\b(?:going with|settled on|opted for)\b/i;
const DONE =
  /\b(?:done|fixed|implemented|added|shipped|merged|released|replaced|refactored|wrote|written|deployed|completed|finished|migrated|removed|resolved|landed|upgraded|created|committed|addressed|documented|measured|passes|passing|now (?:works|returns|ends|handles|fails))\b/i;
/** A session's sections as ingest writes them (a heading path ends with the section's name). */
const SECTION = (name: string): RegExp => new RegExp(`(?:^|/ )${name}$`);
const REQUESTS = SECTION('Requests');
const OUTCOME = SECTION('Outcome');
const CHANGES = SECTION('Changes');
const BEFORE_COMPACTION = SECTION('Before compaction');

interface SessionFacts {
  order: number;
  /** `09:24–09:54 on \`feat/LED-214-currency\``, or the source's label. */
  heading: string;
  /** Body size: how busy the session was. */
  size: number;
  goal: string[];
  asks: string[];
  done: string[];
  decisions: string[];
  open: string[];
  commits: string[];
  files: string[];
  /** Outcome sentences of no kind above that name a work item or PR: said when the id is not said yet. */
  naming: string[];
}

/** Whether the request is a day of ingested agent sessions only (the layout above applies). */
export function isAgentSessionDay(request: SummaryRequest): boolean {
  if (request.tier !== 'daily' || request.sources.length === 0) return false;
  return request.sources.every(isAgentSession);
}

function isAgentSession(source: SummarySource): boolean {
  if (source.kind !== 'session') return false;
  return source.sentences.some((sentence) => REQUESTS.test(sentence.section) || OUTCOME.test(sentence.section));
}

/** A said sentence: whole, able to stand alone, not bookkeeping. */
function sayable(text: string): boolean {
  return text.length > 0 && !isToolCallLine(text) && !isLeadIn(text) && !opensWithReference(text) && wordCount(text) >= 4;
}

function factsOf(source: SummarySource, order: number): SessionFacts {
  const sentences = source.sentences.filter((sentence) => sentence.role !== 'heading');
  const header = sentences.find((sentence) => sentence.section === '')?.text ?? '';
  const branch = /on branch `([^`]+)`/.exec(header)?.[1];
  const span = /(\d{2}:\d{2}[–-]\d{2}:\d{2})/.exec(header)?.[1] ?? source.time;
  const heading = [span, branch ? `on \`${branch}\`` : source.label].filter(Boolean).join(' ');
  const of = (section: RegExp): Sentence[] => sentences.filter((sentence) => section.test(sentence.section));
  // The heading names the branch: a request's `on \`branch\`` is left out, and a sentence naming only the branch too.
  const withoutBranch = (text: string): string => (branch ? text.replace(` on \`${branch}\``, '').trim() : text.trim());
  const requestSentences = of(REQUESTS).filter((sentence) => {
    const text = withoutBranch(sentence.text);
    return sayable(text) && !(branch && text.includes(`\`${branch}\``) && wordCount(text) <= 5);
  });
  const firstBlock = requestSentences[0]?.block;
  const requests = requestSentences.map((sentence) => withoutBranch(sentence.text));
  // The goal: the first request (its first two sentences); later requests are asks, said when they name something new.
  const goalCount = Math.min(2, requestSentences.filter((sentence) => sentence.block === firstBlock).length);
  const outcome = [...of(BEFORE_COMPACTION), ...of(OUTCOME)].map((s) => s.text.trim()).filter(sayable);
  const facts: SessionFacts = {
    order,
    heading: heading || source.label,
    size: source.body.length,
    goal: requests.slice(0, goalCount),
    asks: requests.slice(goalCount),
    done: [],
    decisions: [],
    open: [],
    commits: [],
    files: [],
    naming: [],
  };
  for (const text of outcome) {
    if (DECIDED.test(text)) facts.decisions.push(text);
    else if (OPEN.test(text)) facts.open.push(text);
    // A commit is said by its hash in the identifiers line.
    else if (DONE.test(text) && !/^Committed\b/.test(text)) facts.done.push(text);
    else if (WORK_ITEM_TEST.test(text)) facts.naming.push(text);
  }
  // The last conclusion says where the session ended: it comes first.
  facts.done.reverse();
  facts.open.reverse();
  for (const sentence of of(CHANGES)) {
    for (const match of sentence.text.matchAll(/^Committed `([0-9a-f]{7,40})`/g)) facts.commits.push(match[1]!);
    if (/^Files:/.test(sentence.text)) for (const match of sentence.text.matchAll(/`([^`]+)`/g)) facts.files.push(match[1]!);
  }
  facts.files = [...new Set(facts.files)];
  return facts;
}

/** Lines chosen so far for one session, by facet. */
interface Chosen {
  facts: SessionFacts;
  /** Work items and PRs named by the session but by no sentence said: listed after its commits and files. */
  alsoIds: string[];
  goal: string[];
  done: string[];
  decisions: string[];
  open: string[];
  refs: boolean;
}

/** `chosen`: the sessions with a goal said, in the order they ran. */
function renderSessions(chosen: readonly Chosen[], extra: string | undefined): string {
  const parts: string[] = [];
  for (const session of chosen) {
    const lines = [`- Goal: ${session.goal.join(' ')}`];
    const refs = [session.refs ? refsLine(session.facts) : '', alsoLine(session.alsoIds)].filter(Boolean).join(' ');
    if (session.done.length > 0 || refs) lines.push(`- Done: ${[...session.done, refs].filter(Boolean).join(' ')}`);
    if (session.decisions.length > 0) lines.push(`- Decision: ${unlabelled(session.decisions)}`);
    if (session.open.length > 0) lines.push(`- Next: ${unlabelled(session.open)}`);
    parts.push(`### ${session.facts.heading}\n\n${lines.join('\n')}`);
  }
  if (extra) parts.push(extra);
  return parts.length > 0 ? `## Sessions\n\n${parts.join('\n\n')}` : '';
}

/** Sentences joined, without the `Decision:` / `Open:` / `Next:` labels the line's own label replaces. */
function unlabelled(sentences: readonly string[]): string {
  return sentences.map((text) => text.replace(/^(?:\*\*)?(?:Decision|Open|Next)(?:\*\*)?:\s*/i, '')).join(' ');
}

/** `Also named: LED-138, #381.` */
function alsoLine(ids: readonly string[]): string {
  return ids.length > 0 ? `Also named: ${ids.join(', ')}.` : '';
}

/** `Commits \`4734f98\`, \`c68c64f\`; files \`src/a.ts\`, \`src/b.ts\`.` */
function refsLine(facts: SessionFacts): string {
  const commits = facts.commits.length > 0 ? `Commits ${facts.commits.map((sha) => `\`${sha}\``).join(', ')}` : '';
  const files =
    facts.files.length > 0
      ? `files ${facts.files
          .slice(0, 6)
          .map((file) => `\`${file}\``)
          .join(', ')}`
      : '';
  const text = [commits, files].filter(Boolean).join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : '';
}

/** Attempts in a row that did not fit before the fill stops (a day of thousands of sessions stays linear). */
const MAX_MISSES = 64;

/**
 * The fill's state: the sessions with a goal said (`active`, in the order they ran), the body rendered so far, and what
 * it says (sentences and ids), so a later round does not say a sentence or an id again.
 */
class SessionFill {
  readonly active: Chosen[] = [];
  readonly said = new Set<string>();
  readonly idsSaid = new Set<string>();
  body = '';
  private misses = 0;

  constructor(private readonly fits: (text: string) => boolean) {}

  /** Applies a change, keeps it when the rendered body still fits the budget, else undoes it. */
  tryAdd(apply: () => void, undo: () => void): boolean {
    if (this.misses >= MAX_MISSES) return false;
    apply();
    const next = renderSessions(this.active, undefined);
    if (this.fits(next)) {
      this.body = next;
      this.misses = 0;
      return true;
    }
    undo();
    this.misses++;
    return false;
  }

  /** Adds a sentence to one of a session's lists when it is new and fits. */
  addLine(list: string[], text: string | undefined): boolean {
    if (!text || this.said.has(text)) return false;
    const added = this.tryAdd(
      () => list.push(text),
      () => list.pop(),
    );
    if (added) this.markSaid(text);
    return added;
  }

  markSaid(text: string): void {
    this.said.add(text);
    for (const id of text.match(WORK_ITEM) ?? []) this.idsSaid.add(id);
  }
}

/** The summary body of a day of agent sessions, within the request's budget; undefined when not even one goal fits. */
export function summarizeSessionDay(request: SummaryRequest, tokenizer: TokenizerName): string | undefined {
  const { tokens, bytes } = request.budget;
  const fits = (text: string): boolean => countBytes(text) <= bytes && countTokens(text, tokenizer) <= tokens;
  const chosen: Chosen[] = request.sources.map((source, index) => ({
    facts: factsOf(source, index),
    alsoIds: [],
    goal: [],
    done: [],
    decisions: [],
    open: [],
    refs: false,
  }));
  // The busiest session first in every round.
  const byBusy = [...chosen].sort((a, b) => b.facts.size - a.facts.size || a.facts.order - b.facts.order);
  const fill = new SessionFill(fits);
  addGoals(fill, byBusy);
  addFirstLines(fill, byBusy);
  addRefs(fill, byBusy);
  addNamingSentences(fill, byBusy, request.missing);
  addUnnamedIds(fill, byBusy);
  const left = chosen.filter((session) => session.goal.length === 0);
  if (left.length > 0) {
    const extra = `${left.length} more session${left.length === 1 ? '' : 's'} did not fit: \`memvault zoom ${request.start}\` has every session in full.`;
    const withExtra = renderSessions(fill.active, extra);
    if (fits(withExtra)) return withExtra;
  }
  return fill.body || undefined;
}

/** Round 1: each session's first request (its goal); a session whose goal fits becomes active, in the order they ran. */
function addGoals(fill: SessionFill, byBusy: readonly Chosen[]): void {
  const { active } = fill;
  for (const session of byBusy) {
    const goal = session.facts.goal[0] ?? session.facts.done[0];
    if (!goal) continue;
    const at = active.findIndex((other) => other.facts.order > session.facts.order);
    const added = fill.tryAdd(
      () => {
        session.goal.push(goal);
        active.splice(at < 0 ? active.length : at, 0, session);
      },
      () => {
        session.goal.pop();
        active.splice(active.indexOf(session), 1);
      },
    );
    if (added) fill.markSaid(goal);
  }
}

/** Rounds 2–4: the last conclusion, the decision, what is open; then the first request's second sentence. */
function addFirstLines(fill: SessionFill, byBusy: readonly Chosen[]): void {
  for (const session of byBusy) if (session.goal.length > 0) fill.addLine(session.done, session.facts.done[0]);
  for (const session of byBusy) if (session.goal.length > 0) fill.addLine(session.decisions, session.facts.decisions[0]);
  for (const session of byBusy) if (session.goal.length > 0) fill.addLine(session.open, session.facts.open[0]);
  // The first request's second sentence often says what was asked after naming the item.
  for (const session of byBusy) if (session.goal.length === 1) fill.addLine(session.goal, session.facts.goal[1]);
}

/** Round 5: commits and files. */
function addRefs(fill: SessionFill, byBusy: readonly Chosen[]): void {
  for (const session of byBusy) {
    if (session.goal.length === 0 || (session.facts.commits.length === 0 && session.facts.files.length === 0)) continue;
    const refs = refsLine(session.facts);
    const added = fill.tryAdd(
      () => (session.refs = true),
      () => (session.refs = false),
    );
    if (added) for (const id of refs.match(WORK_ITEM) ?? []) fill.idsSaid.add(id);
  }
}

/** Rounds 6–7: sentences naming a work item, PR or missing item not said yet; then the rest of what was done and decided. */
function addNamingSentences(fill: SessionFill, byBusy: readonly Chosen[], missingItems: readonly string[]): void {
  const missing = missingItems.map((item) => item.toLowerCase());
  const namesNew = (text: string): boolean =>
    (text.match(WORK_ITEM) ?? []).some((id) => !fill.idsSaid.has(id)) || missing.some((item) => text.toLowerCase().includes(item));
  for (const session of byBusy) {
    if (session.goal.length === 0) continue;
    const { facts } = session;
    for (const text of [...facts.goal.slice(1), ...facts.asks]) if (namesNew(text)) fill.addLine(session.goal, text);
    for (const text of [...facts.done.slice(1), ...facts.naming]) if (namesNew(text)) fill.addLine(session.done, text);
    for (const text of [...facts.decisions.slice(1), ...facts.open.slice(1)]) if (namesNew(text)) fill.addLine(session.open, text);
  }
  for (const session of byBusy) {
    if (session.goal.length === 0) continue;
    for (const text of session.facts.decisions.slice(1)) fill.addLine(session.decisions, text);
    for (const text of session.facts.done.slice(1, 3)) fill.addLine(session.done, text);
  }
}

/** Round 8: ids the session names that no sentence said, as a list (they find the work again). */
function addUnnamedIds(fill: SessionFill, byBusy: readonly Chosen[]): void {
  for (const session of byBusy) {
    if (session.goal.length === 0) continue;
    const { facts } = session;
    const all = [...facts.goal, ...facts.asks, ...facts.done, ...facts.decisions, ...facts.open, ...facts.naming];
    for (const id of new Set(all.flatMap((text) => text.match(WORK_ITEM) ?? []))) {
      if (fill.idsSaid.has(id)) continue;
      const added = fill.tryAdd(
        () => session.alsoIds.push(id),
        () => session.alsoIds.pop(),
      );
      if (added) fill.idsSaid.add(id);
    }
  }
}
