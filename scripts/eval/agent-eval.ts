import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Readability, readabilityOf, sumReadability } from '../../src/llm/extractive/standalone.js';
import { addDays } from '../../src/time/periods.js';
import { countTokens } from '../../src/util/tokens.js';
import { type AgentSessionOptions, generateAgentSessions } from './agent-sessions.js';
import { CLI, runBuild } from './project.js';

/**
 * `npm run eval`'s agent-session section (no LoCoMo needed): three weeks of
 * generated Claude Code logs (agent-sessions.ts) ingested with the real
 * `memvault ingest` and built with the real `memvault build`, then measured:
 *
 * - the package's tokens against `upload.max_tokens` (issue 27: at least 90 %
 *   whenever the history is larger than the budget);
 * - the share of the work-item ids and PR numbers (`LED-231`, `#418`) named in
 *   the memories of the last seven days that reach the package (at least 60 %);
 * - readability of every summary and of the package's summaries: tool-call
 *   lines (none allowed) and flawed units (dangling lead-ins, unresolved
 *   references, fragments; at most 2 %).
 */

export interface AgentEvalResult {
  sessions: number;
  days: number;
  memories: number;
  history_tokens: number;
  package_tokens: number;
  max_tokens: number;
  /** Ids named in the last seven days' memories, and how many of them the package names. */
  recent_ids: number;
  recent_ids_in_package: number;
  /** Ids named anywhere in the history, and in the package. */
  all_ids: number;
  all_ids_in_package: number;
  readability: Readability;
  build_ms: number;
  project?: string;
}

/** A work-item id (`LED-231`, `ABC-12`) or a PR/issue number (`#418`). */
const WORK_ITEM = /\b[A-Z][A-Z0-9]{1,9}-\d+\b|(?<![\w#&])#\d{2,6}\b/g;

export function workItemIds(text: string): Set<string> {
  return new Set(text.match(WORK_ITEM) ?? []);
}

export async function evaluateAgentSessions(options: AgentSessionOptions & { keep?: boolean } = {}): Promise<AgentEvalResult> {
  const logs = generateAgentSessions(options);
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-eval-agent-'));
  try {
    writeFileSync(path.join(root, 'memory.config.yaml'), 'timezone: UTC\nstreams:\n  main: { calendar: true, waterfall: false }\n');
    mkdirSync(path.join(root, 'logs'));
    for (const log of logs) writeFileSync(path.join(root, 'logs', log.name), log.text);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const key of Object.keys(env)) if (key.startsWith('MEMVAULT_')) delete env[key];
    const ingest = spawnSync(process.execPath, [CLI, 'ingest', ...logs.map((log) => `logs/${log.name}`)], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    if (ingest.status !== 0) throw new Error(`memvault ingest failed (exit ${ingest.status}): ${ingest.stderr.trim()}`);
    const lastDay = logs[logs.length - 1]!.day;
    // The next morning: the last day is in the full-detail band, the six before it in the daily band.
    const now = `${addDays(lastDay, 1)}T07:00:00Z`;
    const build = await runBuild(root, now);
    if (build.code !== 0) throw new Error(`memvault build failed (exit ${build.code}): ${build.stderr.trim()}`);

    const stream = path.join(root, 'vault', 'main');
    const memories = markdownFiles(path.join(stream, 'memories'));
    const weekAgo = addDays(lastDay, -6);
    const recent = new Set<string>();
    const all = new Set<string>();
    let historyTokens = 0;
    for (const file of memories) {
      const text = readFileSync(file, 'utf8');
      const day = /^date: (\d{4}-\d{2}-\d{2})/m.exec(text)?.[1] ?? '';
      historyTokens += countTokens(text);
      for (const id of workItemIds(text)) {
        all.add(id);
        if (day >= weekAgo) recent.add(id);
      }
    }
    const packageText = readFileSync(path.join(stream, 'UPLOAD_PACKAGE.md'), 'utf8');
    const manifest = JSON.parse(readFileSync(path.join(stream, 'UPLOAD_PACKAGE.manifest.json'), 'utf8')) as {
      tokens: number;
      budget: { max_tokens: number };
    };
    const inPackage = workItemIds(packageText);
    const summaries = ['daily', 'weekly', 'monthly'].flatMap((tier) => markdownFiles(path.join(stream, tier)));
    if (existsSync(path.join(stream, 'longterm.md'))) summaries.push(path.join(stream, 'longterm.md'));
    const readability = sumReadability([
      ...summaries.map((file) => readabilityOf(readFileSync(file, 'utf8'))),
      readabilityOf(packageSummaries(packageText)),
    ]);
    return {
      sessions: logs.length,
      days: new Set(logs.map((log) => log.day)).size,
      memories: memories.length,
      history_tokens: historyTokens,
      package_tokens: manifest.tokens,
      max_tokens: manifest.budget.max_tokens,
      recent_ids: recent.size,
      recent_ids_in_package: [...recent].filter((id) => inPackage.has(id)).length,
      all_ids: all.size,
      all_ids_in_package: [...all].filter((id) => inPackage.has(id)).length,
      readability,
      build_ms: Math.round(build.ms),
      ...(options.keep ? { project: root } : {}),
    };
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
}

/** The package without its critical section and memories in full detail: those are memories as written, not summaries. */
function packageSummaries(text: string): string {
  return text.replace(/^## (?:Critical|Memories in full detail)[\s\S]*?(?=^## |(?![\s\S]))/gm, '');
}

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(full));
    else if (entry.name.endsWith('.md')) files.push(full);
  }
  return files.sort();
}

const percent = (n: number, of: number): string => `${of === 0 ? '0.0' : ((100 * n) / of).toFixed(1)} %`;

/** The section as markdown: one table of measures and targets. */
export function renderAgentSection(result: AgentEvalResult): string {
  const r = result.readability;
  const flawed = r.leadIns + r.references + r.fragments;
  const exceeds = result.history_tokens > result.max_tokens;
  const rows = [
    [
      'package tokens / max_tokens',
      `${result.package_tokens} / ${result.max_tokens} (${percent(result.package_tokens, result.max_tokens)})`,
      exceeds ? '≥ 90 %' : '(history fits)',
    ],
    [
      "work-item ids of the last 7 days' sessions in the package",
      `${result.recent_ids_in_package} / ${result.recent_ids} (${percent(result.recent_ids_in_package, result.recent_ids)})`,
      '≥ 60 %',
    ],
    ['work-item ids of the whole history in the package', `${result.all_ids_in_package} / ${result.all_ids}`, ''],
    ['tool-call lines in summaries and package', `${r.toolCalls} of ${r.units} units`, '0'],
    ['flawed units (lead-ins, references, fragments)', `${flawed} (${percent(flawed, r.units)})`, '≤ 2 %'],
  ];
  return [
    `## Agent sessions (${result.sessions} generated Claude Code sessions on ${result.days} days, ${result.memories} memories, ${result.history_tokens} tokens of history)`,
    '',
    '| measure | value | target |',
    '| --- | ---: | ---: |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `build ${result.build_ms} ms${result.project ? `; project kept at ${result.project}` : ''}`,
  ].join('\n');
}
