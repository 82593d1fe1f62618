import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { clearStartCache } from '../src/hooks/start-cache.js';
import { assembleContext } from '../src/read/context/assemble.js';
import { matchPlan } from '../src/search/match.js';
import { parseQuery } from '../src/search/query.js';
import { openSearch } from '../src/read/search.js';
import { readIndex, searchDir, updateSearchIndex } from '../src/search/store.js';
import { openVault, pickStream } from '../src/read/vault.js';
import { benchPreTool } from './bench/pre-tool.js';
import { editOneMemory, generateSyntheticVault, GENERATOR_VERSION } from './fixtures/synthetic-vault.js';

/**
 * `npm run bench:read`: the read side on a synthetic vault (the one
 * `npm run bench` makes, shared through the same folder and marker):
 * index build time and size, search median in a warm process (what the MCP
 * server sees) and from the CLI (process start included), context assembly
 * warm, and the index update after one edited memory (and with nothing changed).
 *
 * Usage: node dist/scripts/bench-read.js [--memories 20000] [--runs 30] [--dir COPY] [--reuse-index]
 *
 * `--dir` works on a copy of the generated vault (made when missing): the
 * bench edits a memory and rewrites the index, and the shared vault stays as it was.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(REPO, 'dist', 'bin', 'memvault.js');
const BENCH_ROOT = path.join(os.tmpdir(), 'memvault-bench');
// The same vault as scripts/bench.ts (same marker), so one generated vault serves both.
const MARKER_FILE = '.synthetic-vault.json';
const NOW = '2026-11-21T06:00:00Z';
const VAULT_SHAPE = { days: 1095, endDay: '2026-11-20', seed: 20_261_120, pinned: 3 } as const;
const QUERIES = [
  'deploy rollback',
  'payments webhook',
  '"load test"',
  'auth session expiry',
  'migration index',
  'latency p99',
  'release branch',
  'invoice',
  'kind:decision database',
  'tag:ops alert',
];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (start: number): number => performance.now() - start;
const round = (n: number): number => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      memories: { type: 'string', default: '20000' },
      runs: { type: 'string', default: '30' },
      dir: { type: 'string' },
      'reuse-index': { type: 'boolean' },
    },
  });
  const memories = Number(values.memories);
  const runs = Number(values.runs);
  const dir = path.join(BENCH_ROOT, String(memories));
  mkdirSync(BENCH_ROOT, { recursive: true });
  const marker = JSON.stringify({ generator: GENERATOR_VERSION, memories, ...VAULT_SHAPE });
  if (!existsSync(path.join(dir, MARKER_FILE)) || readFileSync(path.join(dir, MARKER_FILE), 'utf8') !== marker) {
    rmSync(dir, { recursive: true, force: true });
    generateSyntheticVault(dir, { memories, ...VAULT_SHAPE });
    writeFileSync(path.join(dir, MARKER_FILE), marker);
  }
  if (!existsSync(path.join(dir, 'vault', 'main', 'UPLOAD_PACKAGE.md'))) {
    console.error(`building the ${memories}-memory vault once (summaries for search and context)…`);
    const built = spawnSync(process.execPath, [CLI, 'build', '--now', NOW, '--no-commit'], { cwd: dir, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  }
  if (values.dir) {
    const copy = path.resolve(values.dir);
    if (!existsSync(copy)) spawnSync('cp', ['-a', dir, copy]);
    return benchVault(copy, memories, runs, values['reuse-index'] === true);
  }
  return benchVault(dir, memories, runs, values['reuse-index'] === true);
}

async function benchVault(dir: string, memories: number, runs: number, reuse = false): Promise<void> {
  let start = performance.now();
  const vault = await openVault(dir);
  const loadMs = ms(start);
  // --reuse-index: time everything but the whole-vault build (the index there must be current).
  if (!reuse) rmSync(searchDir(dir), { recursive: true, force: true });
  start = performance.now();
  const built = updateSearchIndex(dir, vault.loaded);
  const indexBuildMs = ms(start);
  // The database with its WAL folded in: the size a reader opens.
  readIndex(dir)!.index.db.pragma('wal_checkpoint(TRUNCATE)');
  const indexBytes = readdirSync(searchDir(dir)).reduce((sum, file) => sum + statSync(path.join(searchDir(dir), file)).size, 0);
  // A build with nothing new: the manifest is read and compared, nothing else.
  start = performance.now();
  const unchanged = updateSearchIndex(dir, vault.loaded);
  const noChangeMs = ms(start);
  if (unchanged.written) throw new Error('a second index update with nothing changed wrote files');

  // Opening the index from disk, as a new process does (this one keeps the database it wrote open).
  const indexReadMs = readIndexInChild(dir);
  const index = readIndex(dir)!.index;
  // The warm API a long-lived process holds (the MCP server): one session, many queries.
  const session = await openSearch(dir);
  const searchTimes: number[] = [];
  const engineTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const query = QUERIES[i % QUERIES.length]!;
    start = performance.now();
    await session.search(query, { limit: 10, now: new Date(NOW) });
    searchTimes.push(ms(start));
    // What SQLite alone takes for the same words (BM25 of every matching document, the best 400 read), the rest being filters, grouping and snippets.
    const parsed = parseQuery(query);
    start = performance.now();
    index.rank(matchPlan(parsed.text || 'x', parsed.phrases, index), { streams: [], tiers: [], kinds: [], tags: [] }, 400);
    engineTimes.push(ms(start));
  }
  const stream = pickStream(vault, 'main');
  const contextTimes: number[] = [];
  let contextTokens = 0;
  for (let i = 0; i < Math.min(runs, 10); i++) {
    start = performance.now();
    contextTokens = assembleContext({
      vault,
      stream,
      index,
      budget: 8000,
      now: new Date(NOW),
      signals: { query: QUERIES[i % QUERIES.length]!, file: 'src/payments/webhook.ts' },
    }).token_count;
    contextTimes.push(ms(start));
  }

  // One edited memory: reload (from the parse cache) and update the index; only the update is timed.
  const edited = await editOneMemory(dir);
  const reloaded = await openVault(dir);
  start = performance.now();
  const update = updateSearchIndex(dir, reloaded.loaded);
  const updateMs = ms(start);
  // The warm session's next search sees the committed change through its open connection.
  start = performance.now();
  await session.search(QUERIES[0]!, { limit: 10, now: new Date(NOW) });
  const searchAfterEditMs = ms(start);

  const cliTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    start = performance.now();
    const child = spawnSync(process.execPath, [CLI, 'search', QUERIES[i]!, '--json'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    cliTimes.push(ms(start));
    if (child.status !== 0) throw new Error(`search failed: ${child.stderr}`);
  }

  const result = {
    memories,
    documents: built.documents,
    vault_load_ms: round(loadMs),
    index_build_ms: round(indexBuildMs),
    index_mb: round(indexBytes / 1024 / 1024),
    index_update_no_change_ms: round(noChangeMs),
    index_read_ms: round(indexReadMs),
    search_warm_median_ms: round(median(searchTimes)),
    search_engine_median_ms: round(median(engineTimes)),
    search_after_edit_ms: round(searchAfterEditMs),
    search_cli_median_ms: round(median(cliTimes)),
    context_warm_median_ms: round(median(contextTimes)),
    context_tokens: contextTokens,
    update_after_one_edit_ms: round(updateMs),
    update_counts: { added: update.added, updated: update.updated, removed: update.removed },
    edited: path.relative(dir, edited),
    agents: await agentBench(dir, runs).catch((error: Error) => ({ error: error.message })),
    // Before a Read/Edit/Write: the memories citing the file (src/hooks/pre-tool.ts), from an index of this many memories.
    pre_tool: benchPreTool(memories, runs),
  };
  console.log(JSON.stringify(result, null, 2));
}

/**
 * What an agent waits for: `search` and `context` through the MCP server (a
 * real `memvault mcp` child driven by the SDK's Client over stdio, the
 * JSON-RPC round trip included; the first call of each tool is a warm-up),
 * and the session-start hook's wall time from process start to exit, in the
 * cases that cost it differently (`sessionStart` below).
 */
async function agentBench(dir: string, runs: number): Promise<Record<string, number>> {
  // A kept answer for the vault as it is now (a memory was edited above), so the first start after the searches below
  // measures what recorded usage alone costs.
  sessionStart(dir, 'startup');
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--no-watch'], cwd: dir, stderr: 'ignore' });
  const client = new Client({ name: 'bench-read', version: '1.0.0' });
  await client.connect(transport);
  const connectMs = ms(start);
  const timed = async (name: string, args: Record<string, unknown>): Promise<number> => {
    const t = performance.now();
    const answer = await client.callTool({ name, arguments: args });
    if (answer.isError) throw new Error(`mcp ${name} failed: ${JSON.stringify(answer.content)}`);
    return ms(t);
  };
  await timed('search', { query: QUERIES[0]! });
  await timed('context', { query: QUERIES[0]!, budget: 8000 });
  const search: number[] = [];
  for (let i = 0; i < runs; i++) search.push(await timed('search', { query: QUERIES[i % QUERIES.length]! }));
  const context: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i++) context.push(await timed('context', { query: QUERIES[i % QUERIES.length]!, budget: 8000 }));
  await client.close();
  // Session starts (hooks/start-cache.ts keeps the last answer in the state store). The first after the searches above
  // (they only recorded usage), five that reuse its answer, the first after an edited memory (assembled again, from
  // the files a query-less context draws on and the edited one: hooks/start-parts.ts) and the first with nothing kept
  // (assembled from the whole vault, as after `memvault redact`); then one after a compaction, for its length.
  const afterUsage = sessionStart(dir, 'startup');
  const reused: number[] = [];
  for (let i = 0; i < 5; i++) reused.push(sessionStart(dir, 'startup').ms);
  await editOneMemory(dir);
  const afterEdit = sessionStart(dir, 'startup');
  clearStartCache(dir);
  const nothingKept = sessionStart(dir, 'startup');
  const compact = sessionStart(dir, 'compact');
  return {
    mcp_start_ms: round(connectMs),
    mcp_search_median_ms: round(median(search)),
    mcp_context_median_ms: round(median(context)),
    session_start_hook_after_usage_ms: round(afterUsage.ms),
    session_start_hook_reused_median_ms: round(median(reused)),
    session_start_hook_after_edit_ms: round(afterEdit.ms),
    session_start_hook_nothing_kept_ms: round(nothingKept.ms),
    // Characters printed: Claude Code keeps at most 10,000 of a hook's added context (memvault's cap: 9,000).
    session_start_hook_chars: nothingKept.chars,
    session_start_hook_chars_compact: compact.chars,
  };
}

/** One `memvault hook session-start` from process start to exit, and the characters it printed. */
function sessionStart(dir: string, source: 'startup' | 'compact'): { ms: number; chars: number } {
  const start = performance.now();
  const child = spawnSync(process.execPath, [CLI, 'hook', 'session-start'], {
    cwd: dir,
    input: JSON.stringify({ hook_event_name: 'SessionStart', source, cwd: dir }),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const took = ms(start);
  if (child.status !== 0 || child.stderr) throw new Error(`session-start failed: ${child.stderr}`);
  return { ms: took, chars: child.stdout.length };
}

function readIndexInChild(dir: string): number {
  const store = new URL('../src/search/store.js', import.meta.url).href;
  const code = [
    `const { readIndex } = await import(${JSON.stringify(store)});`,
    `const t = performance.now(); readIndex(${JSON.stringify(dir)}); console.log(performance.now() - t);`,
  ].join(' ');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`index read failed: ${child.stderr}`);
  return Number(child.stdout.trim());
}

main().catch((error: unknown) => {
  console.error(`bench-read: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
