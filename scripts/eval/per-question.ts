import { rmSync } from 'node:fs';
import { assembleContext } from '../../src/read/context/assemble.js';
import { openContextSearch } from '../../src/read/context/warm.js';
import { openVault, pickStream } from '../../src/read/vault.js';
import { conversationText, type ConvertedConversation } from './locomo.js';
import { addTally, answerRetention, CATEGORIES, emptyTally, evidenceRecall, evidenceTokens, rates, type Tally } from './metrics.js';
import { buildConversation } from './project.js';
import { formatRate, lastTokens } from './report.js';

/**
 * `npm run eval -- --per-question`: for every LoCoMo question, the context
 * that `memvault context --query <question>` assembles at each budget
 * (in-process, on the conversation's vault built once by the real CLI),
 * measured for answer retention and evidence-token recall of that question
 * alone; against the whole conversation (the ceiling) and its last N tokens
 * at the same budget (the baseline).
 */

/** The context budgets each question is answered at: 1,000, 2,000 and 4,000 tokens. */
export const PER_QUESTION_BUDGETS = [1000, 2000, 4000] as const;

/** Rows of the per-question tables: the context and the last-N baseline at each budget, and the whole conversation. */
export type Row = { kind: 'context' | 'last-n'; budget: number } | { kind: 'whole' };

export interface PerQuestionTotals {
  rows: Row[];
  answer: Tally[];
  evidence: Tally[];
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
      { kind: 'last-n', budget },
    ]),
    { kind: 'whole' },
  ];
  return { rows, answer: rows.map(emptyTally), evidence: rows.map(emptyTally), tokens: new Map(budgets.map((b) => [b, []])) };
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
): Promise<ConversationRun> {
  const { root, build } = await buildConversation(conversation, extraConfig);
  try {
    const started = performance.now();
    const questions = await measureQuestions(root, conversation, totals);
    return {
      stream: conversation.stream,
      questions,
      build_ms: Math.round(build.ms),
      context_ms: Math.round(performance.now() - started),
      ...(keep ? { project: root } : {}),
    };
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
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
        addTally(totals.answer[i]!, answerRetention(context, [qa]));
        const ev = evidenceOf.get(qa);
        if (ev) addTally(totals.evidence[i]!, evidenceRecall(context, [ev]));
      }
      return;
    }
    // The baselines are the same text for every question: measured once over all of them.
    const text = row.kind === 'whole' ? whole : lastTokens(whole, row.budget);
    addTally(totals.answer[i]!, answerRetention(text, questions));
    addTally(totals.evidence[i]!, evidenceRecall(text, evidence));
  });
  return questions.length;
}

function labelOf(row: Row): string {
  if (row.kind === 'whole') return 'whole conversation (ceiling)';
  const n = row.budget.toLocaleString('en-US');
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
