import { rmSync } from 'node:fs';
import path from 'node:path';
import { assembleContext } from '../../src/read/context/assemble.js';
import { openContextSearch } from '../../src/read/context/warm.js';
import { openVault, pickStream } from '../../src/read/vault.js';
import { conversationText, type ConvertedConversation, type LocomoQa } from './locomo.js';
import { openSearch } from '../../src/read/search.js';
import { bm25Baseline, bm25Sessions } from './bm25-baseline.js';
import {
  addTally,
  answerRetention,
  CATEGORIES,
  emptyTally,
  evidenceRecall,
  evidenceIds,
  evidenceTokens,
  evidenceTurnRecall,
  evidenceTurns,
  rates,
  type Tally,
} from './metrics.js';
import { buildConversation, buildOrReuse } from './project.js';
import { formatRate, lastTokens } from './report.js';

/**
 * `npm run eval -- --per-question`: for every LoCoMo question, the context
 * that `memvault context --query <question>` assembles at each budget
 * (in-process, on the conversation's vault built once by the real CLI),
 * measured for answer retention, evidence-token recall and evidence-turn
 * recall of that question alone; against the strong plain-retrieval baseline
 * at the same budget (bm25-baseline.ts: BM25 over raw turns, stemming, ±1
 * turns, resolved dates), the last N tokens, and the whole conversation (the
 * ceiling).
 */

/** The context budgets each question is answered at: 1,000, 2,000 and 4,000 tokens. */
export const PER_QUESTION_BUDGETS = [1000, 2000, 4000] as const;

/** Rows of the per-question tables: the context and the last-N baseline at each budget, and the whole conversation. */
export type Row = { kind: 'context' | 'bm25' | 'last-n'; budget: number } | { kind: 'whole' };

export interface PerQuestionTotals {
  rows: Row[];
  answer: Tally[];
  evidence: Tally[];
  /** Share of each question's evidence turns present whole. */
  turns: Tally[];
  /** `memvault search` and the session BM25 baseline, ranked sessions per question. */
  search: { memvault: SearchTotals; bm25: SearchTotals };
  /** Tokens of every context assembled, per budget (mean and max are reported). */
  tokens: Map<number, number[]>;
}

export interface ConversationRun {
  stream: string;
  questions: number;
  build_ms: number;
  context_ms: number;
  /** The project folder, with `--keep`. */
  project?: string;
}

export function emptyTotals(budgets: readonly number[]): PerQuestionTotals {
  const rows: Row[] = [
    ...budgets.flatMap((budget): Row[] => [
      { kind: 'context', budget },
      { kind: 'bm25', budget },
      { kind: 'last-n', budget },
    ]),
    { kind: 'whole' },
  ];
  return {
    rows,
    answer: rows.map(emptyTally),
    evidence: rows.map(emptyTally),
    turns: rows.map(emptyTally),
    search: { memvault: emptySearchTotals(), bm25: emptySearchTotals() },
    tokens: new Map(budgets.map((b) => [b, []])),
  };
}

/**
 * Builds one conversation's vault, opens it once, and adds every question's
 * measures into `totals`. The project folder is removed unless `keep`.
 */
export async function evaluateQuestions(
  conversation: ConvertedConversation,
  extraConfig: string,
  totals: PerQuestionTotals,
  keep = false,
  projects?: string,
): Promise<ConversationRun> {
  // With `projects`, the build is kept (and reused) in a folder of its own there: only the read side runs again.
  const { root, build } = projects
    ? await buildOrReuse(conversation, extraConfig, path.join(projects, `${conversation.sampleId}-${conversation.stream}`))
    : await buildConversation(conversation, extraConfig);
  try {
    const started = performance.now();
    const questions = await measureQuestions(root, conversation, totals);
    await measureSearch(root, conversation, totals.search);
    return {
      stream: conversation.stream,
      questions,
      build_ms: Math.round(build.ms),
      context_ms: Math.round(performance.now() - started),
      ...(keep || projects ? { project: root } : {}),
    };
  } finally {
    if (!keep && !projects) rmSync(root, { recursive: true, force: true });
  }
}

/** Measures every non-adversarial question of `conversation` on its built project at `root`; returns how many. */
export async function measureQuestions(root: string, conversation: ConvertedConversation, totals: PerQuestionTotals): Promise<number> {
  const vault = await openVault(root);
  const stream = pickStream(vault, conversation.stream);
  const search = openContextSearch(vault);
  const now = new Date(conversation.now);
  const whole = conversationText(conversation);
  const questions = conversation.qa.filter((qa) => qa.category >= 1 && qa.category <= 4);
  const evidence = evidenceTokens(conversation);
  const evidenceOf = new Map(evidence.map((q) => [q.qa, q]));
  const turns = evidenceTurns(conversation);
  const turnsOf = new Map(turns.map((q) => [q.qa, q]));
  const baseline = bm25Baseline(conversation);
  const measure = (i: number, qa: (typeof questions)[number], text: string): void => {
    addTally(totals.answer[i]!, answerRetention(text, [qa]));
    const ev = evidenceOf.get(qa);
    if (ev) addTally(totals.evidence[i]!, evidenceRecall(text, [ev]));
    const tv = turnsOf.get(qa);
    if (tv) addTally(totals.turns[i]!, evidenceTurnRecall(text, [tv]));
  };
  totals.rows.forEach((row, i) => {
    if (row.kind === 'context') {
      for (const qa of questions) {
        const { context, token_count } = assembleContext(vault, search, {
          stream: stream.name,
          budget: row.budget,
          now,
          signals: { query: qa.question },
        });
        totals.tokens.get(row.budget)!.push(token_count);
        measure(i, qa, context);
      }
      return;
    }
    if (row.kind === 'bm25') {
      for (const qa of questions) measure(i, qa, baseline.contextFor(qa.question, row.budget));
      return;
    }
    // The other baselines are the same text for every question: measured once over all of them.
    const text = row.kind === 'whole' ? whole : lastTokens(whole, row.budget);
    addTally(totals.answer[i]!, answerRetention(text, questions));
    addTally(totals.evidence[i]!, evidenceRecall(text, evidence));
    addTally(totals.turns[i]!, evidenceTurnRecall(text, turns));
  });
  return questions.length;
}

function labelOf(row: Row): string {
  if (row.kind === 'whole') return 'whole conversation (ceiling)';
  const n = row.budget.toLocaleString('en-US');
  if (row.kind === 'bm25') return `BM25 over turns, ${n} tokens (strong baseline)`;
  return row.kind === 'context' ? `**context, ${n} tokens**` : `last ${n} tokens (baseline)`;
}

/** The two markdown tables (answer retention, evidence-token recall), per category and overall, one row per text. */
export function renderPerQuestionTables(totals: PerQuestionTotals): string {
  const categories = Object.keys(CATEGORIES).map(Number);
  const header = `| text | ${categories.map((c) => `${c} ${CATEGORIES[c]}`).join(' | ')} | overall |`;
  const rule = `| --- | ${categories.map(() => '---:').join(' | ')} | ---: |`;
  const table = (tallies: Tally[]): string[] => [
    header,
    rule,
    ...totals.rows.map((row, i) => {
      const r = rates(tallies[i]!);
      return `| ${labelOf(row)} | ${categories.map((c) => formatRate(r.byCategory[c] ?? null)).join(' | ')} | ${formatRate(r.overall)} |`;
    }),
    `| questions | ${categories.map((c) => String(tallies[0]!.totals[c] ?? 0)).join(' | ')} | ${categories.reduce((s, c) => s + (tallies[0]!.totals[c] ?? 0), 0)} |`,
  ];
  return [
    'Answer retention per question (the answer appears in the context assembled for `--query <question>`; answers of at most 5 words)',
    '',
    ...table(totals.answer),
    '',
    'Evidence-token recall per question (share of the distinctive tokens of the question’s evidence turns found in its context)',
    '',
    ...table(totals.evidence),
    '',
    'Evidence-turn recall per question (share of the question’s evidence turns present whole in its context)',
    '',
    ...table(totals.turns),
  ].join('\n');
}

/** Mean and largest token count of the contexts at each budget: `1,000: mean 982, max 1,000`. */
export function tokenLine(totals: PerQuestionTotals): string {
  return [...totals.tokens]
    .map(([budget, counts]) => {
      const mean = counts.length === 0 ? 0 : Math.round(counts.reduce((a, b) => a + b, 0) / counts.length);
      return `${budget.toLocaleString('en-US')}: mean ${mean}, max ${Math.max(0, ...counts)}`;
    })
    .join('; ');
}

/** The cut-offs of the search measures: hit@5, recall@5 and recall@10 (sessions). */
export const SEARCH_K = [5, 10] as const;

/** Session-level search measures, summed over questions (divide by `questions`). */
export interface SearchTotals {
  questions: number;
  /** Questions with an evidence session among the first 5 sessions. */
  hit5: number;
  /** Sums over questions of the share of evidence sessions among the first k sessions. */
  recall5: number;
  recall10: number;
  /** Questions with every evidence session among the first k sessions. */
  all5: number;
  all10: number;
}

export function emptySearchTotals(): SearchTotals {
  return { questions: 0, hit5: 0, recall5: 0, recall10: 0, all5: 0, all10: 0 };
}

/** Adds one question's ranking of sessions (best first) against its evidence sessions. */
export function addSearchRanking(totals: SearchTotals, ranked: readonly number[], evidence: ReadonlySet<number>): void {
  const within = (k: number): number => ranked.slice(0, k).filter((s) => evidence.has(s)).length;
  totals.questions++;
  if (within(5) > 0) totals.hit5++;
  totals.recall5 += within(5) / evidence.size;
  totals.recall10 += within(10) / evidence.size;
  if (within(5) === evidence.size) totals.all5++;
  if (within(10) === evidence.size) totals.all10++;
}

/**
 * The sessions a list of hit paths stands for, in order, each once: a session's memory by its file name (wherever the
 * archive moved it), a daily summary for every session of its day; coarser summaries name no session.
 */
export function sessionsOfPaths(conversation: ConvertedConversation, paths: readonly string[]): number[] {
  const byFile = new Map(conversation.sessions.map((s) => [s.path.slice(s.path.lastIndexOf('/') + 1), [s.index]]));
  const byDay = new Map<string, number[]>();
  for (const s of conversation.sessions) byDay.set(`${s.day}.md`, [...(byDay.get(`${s.day}.md`) ?? []), s.index]);
  const out: number[] = [];
  for (const hit of paths) {
    const file = hit.slice(hit.lastIndexOf('/') + 1);
    const sessions = /\/daily\//.test(hit) ? byDay.get(file) : /\/memories\/|\/archive\//.test(hit) ? byFile.get(file) : undefined;
    for (const s of sessions ?? []) if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** Evidence sessions of each non-adversarial question (`D3:5` is session 3). */
function evidenceSessions(conversation: ConvertedConversation): { qa: LocomoQa; sessions: Set<number> }[] {
  return conversation.qa
    .filter((qa) => qa.category >= 1 && qa.category <= 4)
    .map((qa) => ({ qa, sessions: new Set(evidenceIds(qa).map((id) => Number(/^D(\d+):/.exec(id)![1]))) }))
    .filter((q) => q.sessions.size > 0);
}

/**
 * `memvault search <question>` (the index and ranking the CLI uses, in-process) and a BM25 over whole sessions (the
 * same analyzer as the turn baseline) for every question, as ranked sessions.
 */
export async function measureSearch(
  root: string,
  conversation: ConvertedConversation,
  totals: { memvault: SearchTotals; bm25: SearchTotals },
): Promise<void> {
  const session = await openSearch(root);
  const baseline = bm25Sessions(conversation);
  for (const { qa, sessions } of evidenceSessions(conversation)) {
    const { hits } = await session.search(qa.question, { stream: conversation.stream, limit: 10 });
    const paths = hits.flatMap((hit) => [hit.path, ...hit.more.map((m) => m.path)]);
    addSearchRanking(totals.memvault, sessionsOfPaths(conversation, paths), sessions);
    addSearchRanking(totals.bm25, baseline(qa.question), sessions);
  }
}

/** The search measures as a markdown table, memvault beside the session BM25 baseline. */
export function renderSearchTable(totals: { memvault: SearchTotals; bm25: SearchTotals }): string {
  const row = (label: string, t: SearchTotals): string => {
    const rate = (n: number): string => formatRate(t.questions > 0 ? n / t.questions : null);
    return `| ${label} | ${rate(t.hit5)} | ${rate(t.recall5)} | ${rate(t.recall10)} | ${rate(t.all5)} | ${rate(t.all10)} |`;
  };
  return [
    `Search: the sessions of each question's first hits (${totals.memvault.questions} questions with evidence)`,
    '',
    '| search | session hit@5 | evidence recall@5 | evidence recall@10 | all evidence@5 | all evidence@10 |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('**memvault search**', totals.memvault),
    row('BM25 over sessions (baseline)', totals.bm25),
  ].join('\n');
}
