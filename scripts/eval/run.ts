import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { countTokens } from '../../src/util/tokens.js';
import { conversationText, convertSample, type ConvertedConversation, type LocomoSample } from './locomo.js';
import { addTally, answerRetention, emptyTally, evidenceRecall, evidenceTokens, rates, type Tally } from './metrics.js';
import { formatRate, lastTokens, renderTables, SOURCES, type Source, type Totals } from './report.js';
import {
  emptyTotals,
  evaluateQuestions,
  PER_QUESTION_BUDGETS,
  renderPerQuestionTables,
  renderSearchTable,
  tokenLine,
} from './per-question.js';
import { evaluateAgentSessions, renderAgentSection } from './agent-eval.js';
import { buildConversation, CLI, REPO_ROOT } from './project.js';
import { readRealtalk } from './realtalk.js';

/**
 * `npm run eval -- --dataset locomo data/locomo10.json`: converts each LoCoMo
 * conversation into a stream of a temporary project, runs the real CLI build
 * (`dist/bin/memvault.js build --now <just after the last session>`) in a
 * child process, and measures what `UPLOAD_PACKAGE.md` and each tier kept,
 * against two baselines: the whole conversation (the ceiling) and its last N
 * tokens (N = the package budget). Prints a markdown table and writes JSON to
 * `data/eval-results.json`.
 *
 * Options: `--config FILE` appends YAML to the default config (to measure a
 * different setting), `--only 1,3` picks conversations, `--jobs N` runs builds
 * in parallel (timings are per build either way), `--keep` keeps the projects,
 * `--out FILE` moves the JSON.
 *
 * `--per-question [--budgets 1000,2000,4000]`: per-question.ts, the context
 * assembled for each question instead of the package (JSON to
 * `data/eval-per-question.json`). `--projects DIR` keeps each build under DIR
 * and reuses it next time (only the read side runs again).
 *
 * `--dataset realtalk [data/realtalk]`: the held-out set, REALTALK's real
 * conversations (realtalk.ts), through the same converter and measures.
 */

/** The datasets `--dataset` takes: LoCoMo (developed on) and REALTALK (held out). */
const DATASETS = ['locomo', 'realtalk'] as const;
type Dataset = (typeof DATASETS)[number];

const ROOT = REPO_ROOT;
/** The package budget of the default config; the last-N baseline gets the same number of tokens. */
const DEFAULT_MAX_TOKENS = 8750;
const DEFAULT_MAX_BYTES = 35840;
const TIERS = ['daily', 'weekly', 'monthly', 'longterm'] as const;

interface Options {
  dataset: Dataset;
  file: string;
  config?: string;
  only?: number[];
  jobs: number;
  keep: boolean;
  /** Per-question mode: keep each conversation's build under this folder and reuse it in later runs. */
  projects?: string;
  out: string;
  /** Per-question mode: the context assembled for each question at these budgets. */
  perQuestion?: number[];
  /** `agent`: only the agent-session section (no LoCoMo); `skip`: only LoCoMo; `both` (default, the package mode). */
  agentSessions: 'agent' | 'skip' | 'both';
}

interface ConversationResult {
  stream: string;
  sample_id: string;
  sessions: number;
  first_day: string;
  now: string;
  conversation_tokens: number;
  package_tokens: number;
  package_bytes: number;
  package_within_budget: boolean;
  build_ms: number;
  llm_calls: number;
  tier_tokens: Record<string, number>;
  answer: Record<Source, Tally>;
  evidence: Record<Source, Tally>;
  project?: string;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Partial<Options> & { jobs: number; keep: boolean } = { jobs: 1, keep: false, agentSessions: 'both' };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--dataset') options.dataset = value() as Dataset;
    else if (arg === '--config') options.config = value();
    else if (arg === '--only') options.only = value().split(',').map(Number);
    else if (arg === '--jobs') options.jobs = Math.max(1, Number(value()));
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--projects') options.projects = value();
    else if (arg === '--per-question') options.perQuestion ??= [...PER_QUESTION_BUDGETS];
    else if (arg === '--budgets') options.perQuestion = value().split(',').map(Number);
    else if (arg === '--out') options.out = value();
    else if (arg === '--agent-sessions') options.agentSessions = 'agent';
    else if (arg === '--no-agent-sessions') options.agentSessions = 'skip';
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm run eval -- [--dataset locomo|realtalk] [data/locomo10.json | data/realtalk] [--config extra.yaml] [--only 1,3] [--jobs N] [--keep] [--out FILE]\n' +
          "       npm run eval -- --per-question [--budgets 1000,2000,4000] [--only 1,3] [--jobs N] [--projects DIR]   (each question's context)\n" +
          '       --projects DIR keeps each build there and reuses it (iterating on the read side; delete DIR after a change to the build)\n' +
          '       npm run eval -- --agent-sessions   (only the agent-session section: generated Claude Code logs, no LoCoMo)\n' +
          '       --no-agent-sessions leaves that section out of the package mode\n',
      );
      process.exit(0);
    } else rest.push(arg);
  }
  const dataset = (options.dataset ?? 'locomo') as Dataset;
  if (!DATASETS.includes(dataset)) throw new Error(`--dataset takes ${DATASETS.join(' or ')}, not ${dataset}`);
  const file = rest[0] ?? path.join(ROOT, 'data', dataset === 'locomo' ? 'locomo10.json' : 'realtalk');
  const suffix = dataset === 'locomo' ? '' : `-${dataset}`;
  return {
    dataset,
    file,
    jobs: options.jobs,
    keep: options.keep,
    agentSessions: options.agentSessions ?? 'both',
    out: options.out ?? path.join(ROOT, 'data', `${options.perQuestion ? 'eval-per-question' : 'eval-results'}${suffix}.json`),
    ...(options.perQuestion ? { perQuestion: options.perQuestion } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.projects ? { projects: path.resolve(options.projects) } : {}),
    ...(options.only ? { only: options.only } : {}),
  };
}

/** Bodies of every summary of a tier (archived ones included), frontmatter removed, in period order. */
function tierText(streamDir: string, tier: 'daily' | 'weekly' | 'monthly' | 'longterm'): string {
  const files: string[] = [];
  if (tier === 'longterm') files.push('longterm.md');
  else {
    const folders: string[] = [tier];
    // Dailies and weeklies past retention are moved to archive/<quarter>/<tier>/: still part of the tier.
    const archive = path.join(streamDir, 'archive');
    if (existsSync(archive)) for (const quarter of readdirSync(archive).sort()) folders.push(path.join('archive', quarter, tier));
    for (const folder of folders) {
      if (!existsSync(path.join(streamDir, folder))) continue;
      for (const file of readdirSync(path.join(streamDir, folder))) if (file.endsWith('.md')) files.push(path.join(folder, file));
    }
  }
  return files
    .sort((a, b) => (path.basename(a) < path.basename(b) ? -1 : 1))
    .map((file) => path.join(streamDir, file))
    .filter((file) => existsSync(file))
    .map((file) => stripFrontmatter(readFileSync(file, 'utf8')))
    .join('\n\n');
}

function stripFrontmatter(text: string): string {
  return text.replace(/^---\n[\s\S]*?\n---\n/, '');
}

async function evaluate(
  conversation: ConvertedConversation,
  options: Options,
  extraConfig: string,
  budget: { maxTokens: number; maxBytes: number },
): Promise<ConversationResult> {
  const { maxTokens } = budget;
  const { root, build } = await buildConversation(conversation, extraConfig);
  try {
    const report = JSON.parse(build.stdout) as {
      streams: { name: string; tiers: Record<string, { calls: number }>; package: { tokens: number; bytes: number } | null }[];
    };
    const streamReport = report.streams.find((s) => s.name === conversation.stream);
    const streamDir = path.join(root, 'vault', conversation.stream);
    const whole = conversationText(conversation);
    const texts: Record<Source, string> = {
      package: readFileSync(path.join(streamDir, 'UPLOAD_PACKAGE.md'), 'utf8'),
      'last-n': lastTokens(whole, maxTokens),
      whole,
      daily: tierText(streamDir, 'daily'),
      weekly: tierText(streamDir, 'weekly'),
      monthly: tierText(streamDir, 'monthly'),
      longterm: tierText(streamDir, 'longterm'),
    };
    const questions = evidenceTokens(conversation);
    const answer = {} as Record<Source, Tally>;
    const evidence = {} as Record<Source, Tally>;
    for (const source of SOURCES) {
      answer[source] = answerRetention(texts[source], conversation.qa);
      evidence[source] = evidenceRecall(texts[source], questions);
    }
    const packageTokens = streamReport?.package?.tokens ?? countTokens(texts.package);
    const packageBytes = streamReport?.package?.bytes ?? Buffer.byteLength(texts.package);
    return {
      stream: conversation.stream,
      sample_id: conversation.sampleId,
      sessions: conversation.sessions.length,
      first_day: conversation.sessions[0]?.day ?? '',
      now: conversation.now,
      conversation_tokens: countTokens(whole),
      package_tokens: packageTokens,
      package_bytes: packageBytes,
      package_within_budget: packageTokens <= maxTokens && packageBytes <= budget.maxBytes,
      build_ms: Math.round(build.ms),
      llm_calls: Object.values(streamReport?.tiers ?? {}).reduce((sum, tier) => sum + tier.calls, 0),
      tier_tokens: Object.fromEntries(TIERS.map((t) => [t, countTokens(texts[t])])),
      answer,
      evidence,
      ...(options.keep ? { project: root } : {}),
    };
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await fn(items[index]!);
      }
    }),
  );
  return results;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  // The agent-session section needs no download: it runs first, and alone with --agent-sessions.
  if (!options.perQuestion && options.agentSessions !== 'skip') {
    const agent = await evaluateAgentSessions({ keep: options.keep });
    process.stdout.write(`${renderAgentSection(agent)}\n\n`);
    if (options.agentSessions === 'agent') return;
  }
  if (!existsSync(options.file))
    throw new Error(
      options.dataset === 'locomo'
        ? `${options.file} not found: download locomo10.json from https://github.com/snap-research/LoCoMo (data/) into data/`
        : `${options.file} not found: copy the data/Chat_*.json files of https://github.com/danny911kr/REALTALK into data/realtalk/`,
    );
  const samples =
    options.dataset === 'locomo' ? (JSON.parse(readFileSync(options.file, 'utf8')) as LocomoSample[]) : readRealtalk(options.file);
  const extraConfig = options.config ? `${readFileSync(options.config, 'utf8').trim()}\n` : '';
  const extra = (parseYaml(extraConfig || '{}') ?? {}) as { upload?: { max_tokens?: number; max_bytes?: number } };
  const maxTokens = extra.upload?.max_tokens ?? DEFAULT_MAX_TOKENS;
  const maxBytes = extra.upload?.max_bytes ?? DEFAULT_MAX_BYTES;
  const conversations = samples
    .map((sample, i) => convertSample(sample, i + 1))
    .filter((_, i) => !options.only || options.only.includes(i + 1));
  if (options.perQuestion) return perQuestion(options, options.perQuestion, conversations, extraConfig);
  const started = performance.now();
  const results = await mapLimit(conversations, options.jobs, async (conversation) => {
    const result = await evaluate(conversation, options, extraConfig, { maxTokens, maxBytes });
    const a = rates(result.answer.package).overall;
    const e = rates(result.evidence.package).overall;
    process.stderr.write(
      `${result.stream} (${result.sample_id}): ${result.sessions} sessions, package ${result.package_tokens} tokens, answer ${formatRate(a)}, evidence ${formatRate(e)}, ${result.build_ms} ms\n`,
    );
    return result;
  });
  const total: Totals = { answer: {} as Record<Source, Tally>, evidence: {} as Record<Source, Tally> };
  for (const source of SOURCES) {
    total.answer[source] = emptyTally();
    total.evidence[source] = emptyTally();
    for (const result of results) {
      addTally(total.answer[source], result.answer[source]);
      addTally(total.evidence[source], result.evidence[source]);
    }
  }
  const tables = renderTables(total, maxTokens);
  const maxPackage = Math.max(...results.map((r) => r.package_tokens));
  const buildMs = results.map((r) => r.build_ms);
  const calls = results.reduce((sum, r) => sum + r.llm_calls, 0);
  const footer = [
    '',
    `${results.length} conversations, ${results.reduce((s, r) => s + r.sessions, 0)} sessions; package ${Math.min(...results.map((r) => r.package_tokens))}–${maxPackage} tokens, up to ${Math.max(...results.map((r) => r.package_bytes))} bytes (budget ${maxTokens} tokens, ${maxBytes} bytes: ${results.every((r) => r.package_within_budget) ? 'all within' : 'OVER BUDGET'}); build ${Math.min(...buildMs)}–${Math.max(...buildMs)} ms per conversation; ${calls} LLM calls; eval ${Math.round((performance.now() - started) / 1000)} s.`,
  ].join('\n');
  process.stdout.write(`${tables}\n${footer}\n`);
  const summary = Object.fromEntries(
    (['answer', 'evidence'] as const).map((which) => [
      which,
      Object.fromEntries(SOURCES.map((source) => [source, rates(total[which][source])])),
    ]),
  );
  mkdirSync(path.dirname(options.out), { recursive: true });
  writeFileSync(
    options.out,
    `${JSON.stringify({ dataset: options.dataset, file: path.basename(options.file), config: extraConfig || 'default', max_tokens: maxTokens, max_bytes: maxBytes, summary, totals: total, conversations: results }, null, 2)}\n`,
  );
  process.stderr.write(`wrote ${path.relative(process.cwd(), options.out) || options.out}\n`);
}

/** `--per-question`: every question's context at each budget, against the whole conversation and the last N tokens. */
async function perQuestion(
  options: Options,
  budgets: number[],
  conversations: ConvertedConversation[],
  extraConfig: string,
): Promise<void> {
  if (budgets.some((b) => !Number.isInteger(b) || b < 1)) throw new Error('--budgets takes positive whole numbers, e.g. 1000,2000,4000');
  const started = performance.now();
  const totals = emptyTotals(budgets);
  const runs = await mapLimit(conversations, options.jobs, async (conversation) => {
    const run = await evaluateQuestions(conversation, extraConfig, totals, options.keep, options.projects);
    process.stderr.write(`${run.stream}: ${run.questions} questions, build ${run.build_ms} ms, contexts ${run.context_ms} ms\n`);
    return run;
  });
  const contexts = runs.reduce((s, r) => s + r.questions, 0) * budgets.length;
  const contextMs = runs.reduce((s, r) => s + r.context_ms, 0);
  const footer = `${runs.length} conversations, ${runs.reduce((s, r) => s + r.questions, 0)} questions; context tokens per budget ${tokenLine(totals)}; ${contexts} contexts in ${(contextMs / 1000).toFixed(1)} s (${(contextMs / Math.max(1, contexts)).toFixed(1)} ms each, vault opening included); eval ${Math.round((performance.now() - started) / 1000)} s.`;
  process.stdout.write(`${renderPerQuestionTables(totals)}\n\n${renderSearchTable(totals.search)}\n\n${footer}\n`);
  const summary = Object.fromEntries(
    totals.rows.map((row, i) => [
      row.kind === 'whole' ? 'whole' : `${row.kind}@${row.budget}`,
      { answer: rates(totals.answer[i]!), evidence: rates(totals.evidence[i]!), evidence_turns: rates(totals.turns[i]!) },
    ]),
  );
  mkdirSync(path.dirname(options.out), { recursive: true });
  writeFileSync(
    options.out,
    `${JSON.stringify({ dataset: options.dataset, mode: 'per-question', budgets, config: extraConfig || 'default', summary, search: totals.search, conversations: runs }, null, 2)}\n`,
  );
  process.stderr.write(`wrote ${path.relative(process.cwd(), options.out) || options.out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
