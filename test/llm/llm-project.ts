import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { generateHistory, type GeneratedHistory, type HistoryOptions } from '../helpers/history.js';
import type { CliResult } from '../helpers/project.js';
import { removeProject, splitFrontmatter } from '../helpers/project.js';

/** Shared pieces of the end-to-end LLM suites: a config pointing at the fake server, and vault checks. */

/** The key the tests hand to the CLI; it must reach the server and nothing else. */
export const KEY = 'sk-e2e-7Hq2Lw9Zr4Xk1Vb8Nc3Md6Fp';
export const KEY_ENV = { FAKE_LLM_KEY: KEY };

/**
 * A fake OpenAI-compatible server for the whole test file, its recorded calls
 * and faults reset before each test, and the projects `track`ed, removed
 * after the file.
 */
export function useFakeOpenAI(): { readonly server: FakeOpenAI; track(root: string): string } {
  let server: FakeOpenAI | undefined;
  const roots: string[] = [];
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => {
    roots.forEach(removeProject);
    await server?.close();
  });
  beforeEach(() => server?.reset());
  return {
    get server(): FakeOpenAI {
      if (!server) throw new Error('the fake OpenAI server starts in beforeAll: use it inside tests and hooks');
      return server;
    },
    track(root: string): string {
      roots.push(root);
      return root;
    },
  };
}

/**
 * The e2e history without its `Decision:` paragraphs. A decision is a
 * must-keep item: an answer that loses one is retried (see
 * src/retention), and the fake model keeps only first sentences, so with
 * decisions every summary would cost extra calls. Without them, one call per
 * summary is exactly what a build should cost; `build-calls.test.ts` checks
 * the retry for lost items separately.
 */
export function llmHistory(options: HistoryOptions): GeneratedHistory {
  const history = generateHistory(options);
  const files: Record<string, string> = {};
  for (const [file, text] of Object.entries(history.files)) files[file] = text.replace(/\n\nDecision: [^\n]*/g, '');
  return { files, byDay: history.byDay };
}

export interface LlmConfigOptions {
  url: string;
  mode?: 'chat' | 'completion';
  retries?: number;
  faultRetries?: number;
  timeoutS?: number;
  concurrency?: number;
  extra?: string;
}

/**
 * Small budgets, so that busy days and every week need the model; tiny
 * backoff so faults cost milliseconds; retention far out, so that archiving
 * does not move files under these scenarios.
 */
export function llmConfig(options: LlmConfigOptions): string {
  return `timezone: UTC
calendar:
  daily: { target_tokens: 300, max_bytes: 2400 }
  weekly: { target_tokens: 400, max_bytes: 3200 }
  monthly: { target_tokens: 500, max_bytes: 4000 }
  longterm: { target_tokens: 600, max_bytes: 4800 }
  retention: { memories_days: 3650, daily_days: 3650, weekly_weeks: 520 }
upload: { monthly_window: 1 }
git: { commit: false }
llm:
  profile: local
  profiles:
    local: { provider: openai, base_url: "${options.url}", model: fake-model, api_key_env: FAKE_LLM_KEY, mode: ${options.mode ?? 'chat'} }
  retries: ${options.retries ?? 2}
  fault_retries: ${options.faultRetries ?? 2}
  backoff_ms: 5
  timeout_s: ${options.timeoutS ?? 10}
  concurrency: ${options.concurrency ?? 4}
${options.extra ?? ''}`;
}

export interface SummaryOnDisk {
  path: string;
  meta: Record<string, any>;
  body: string;
  text: string;
}

/** Every generated summary under `vault/<stream>/{daily,weekly,monthly}` and `longterm.md`, by project-relative path. */
export function summaries(root: string, stream = 'main'): Map<string, SummaryOnDisk> {
  const out = new Map<string, SummaryOnDisk>();
  const base = path.join(root, 'vault', stream);
  const add = (relative: string): void => {
    const text = readFileSync(path.join(root, relative), 'utf8');
    const { front, body } = splitFrontmatter(text);
    out.set(relative, { path: relative, meta: parseYaml(front), body, text });
  };
  for (const tier of ['daily', 'weekly', 'monthly']) {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(base, tier));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.md')).sort()) add(`vault/${stream}/${tier}/${name}`);
  }
  try {
    statSync(path.join(base, 'longterm.md'));
    add(`vault/${stream}/longterm.md`);
  } catch {
    // no long-term summary yet
  }
  return out;
}

/** Paths whose file content differs between two `summaries()` snapshots (or that are new). */
export function changed(before: Map<string, SummaryOnDisk>, after: Map<string, SummaryOnDisk>): string[] {
  return [...after.keys()].filter((key) => before.get(key)?.text !== after.get(key)!.text).sort();
}

/**
 * The vault is consistent: every generated file parses with our own
 * frontmatter (a summary's `output_hash` matches its body), no temp file is
 * left behind, and the index exists.
 */
export function expectConsistentVault(root: string): void {
  for (const summary of summaries(root).values()) {
    expect(summary.meta.memvault, summary.path).toBe('summary');
    expect(['daily', 'weekly', 'monthly', 'longterm'], summary.path).toContain(summary.meta.tier);
    expect(summary.body, summary.path).not.toMatch(/^---\s*$/m);
  }
  const leftovers = walk(path.join(root, 'vault')).filter((file) => /\.tmp|~$|\.partial/.test(file));
  expect(leftovers).toEqual([]);
  expect(statSync(path.join(root, 'vault', 'INDEX.md')).isFile()).toBe(true);
}

/** The key is in no file of the project (vault, cache, lock) and in no output. */
export function expectNoKey(root: string, ...results: CliResult[]): void {
  for (const result of results) {
    expect(result.stdout).not.toContain(KEY);
    expect(result.stderr).not.toContain(KEY);
    expect(result.stdout + result.stderr).not.toContain(KEY.slice(0, 14));
  }
  for (const file of walk(root)) {
    const content = readFileSync(file);
    expect(content.includes(KEY), file).toBe(false);
    expect(content.includes(KEY.slice(0, 14)), file).toBe(false);
  }
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else out.push(full);
  }
  return out;
}
