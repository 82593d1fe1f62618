import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { generateAgentStream, type AgentMemoryFile } from '../../../scripts/fixtures/agent-stream.js';
import { loadConfig } from '../../../src/config/load.js';
import { memoriesUpTo } from '../../../src/pipeline/now.js';
import { waterfallStatus, type WaterfallStatus } from '../../../src/pipeline/waterfall/status.js';
import { loadVault } from '../../../src/load/load.js';

/**
 * Helpers of the waterfall suites: an agent stream in a real temporary
 * project, and a reader of the generated files that does not use the tool's
 * own parser (so the checks are independent of the code under test).
 */

export const STREAM = 'agent';

/** Windows and budgets spelled out, so the assertions do not depend on the defaults. */
export function waterfallConfig(extra = ''): string {
  return `timezone: UTC
streams:
  ${STREAM}: { calendar: false, waterfall: true }
waterfall:
  immediate_window: 64
  recent_window: 64
  recent: { target_tokens: 800, max_bytes: 4000 }
  longterm: { target_tokens: 1200, max_bytes: 6000 }
  context_max_tokens: 10000
git: { commit: false }
${extra}`;
}

/** The memories of a 400-memory agent stream (deterministic), oldest first. */
export const MEMORIES: AgentMemoryFile[] = generateAgentStream({ count: 400, start: '2026-01-05' });

/** The id the tool gives a memory: its path inside `memories/` without `.md`. */
export const idOf = (memory: AgentMemoryFile): string => memory.path.replace(/^memories\//, '').replace(/\.md$/, '');

/** A build right after memory `n` (1-based) was written: one minute after its date. */
export const nowAfter = (n: number): Date => new Date(Date.parse(MEMORIES[n - 1]!.date) + 60_000);

export function createWaterfallProject(config = waterfallConfig()): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-waterfall-'));
  writeFileSync(path.join(root, 'memory.config.yaml'), config);
  mkdirSync(path.join(root, 'vault', STREAM, 'memories'), { recursive: true });
  return root;
}

/** Writes memories `from`..`to` (1-based, inclusive) into the project. */
export function addMemories(root: string, from: number, to: number): void {
  for (let n = from; n <= to; n++) {
    const memory = MEMORIES[n - 1]!;
    const file = path.join(root, 'vault', STREAM, ...memory.path.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, memory.text);
  }
}

export const vaultFile = (root: string, relative: string): string => path.join(root, 'vault', STREAM, ...relative.split('/'));

export function readText(root: string, relative: string): string {
  return readFileSync(vaultFile(root, relative), 'utf8');
}

export interface GeneratedFile {
  meta: Record<string, any>;
  body: string;
  text: string;
}

/** Reads a generated file (`waterfall/recent.md`…) with a plain YAML parse; undefined when absent. */
export function readGenerated(root: string, relative: string): GeneratedFile | undefined {
  let text: string;
  try {
    text = readText(root, relative);
  } catch {
    return undefined;
  }
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`no frontmatter in ${relative}`);
  return { meta: parseYaml(match[1]!) as Record<string, any>, body: match[2]!, text };
}

/** Files of `waterfall/history/`, sorted, relative to the stream folder. */
export function historyFiles(root: string): string[] {
  try {
    return readdirSync(vaultFile(root, 'waterfall/history'))
      .sort()
      .map((name) => `waterfall/history/${name}`);
  } catch {
    return [];
  }
}

/** Every file of the stream folder except memories (the waterfall's outputs), relative path → text. */
export function outputs(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(vaultFile(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (child === 'memories') continue;
      if (entry.isDirectory()) walk(child);
      else out.set(child, readText(root, child));
    }
  };
  walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const copySources = new Map<string, string[]>();

/**
 * The layers as the files say, checked independently of the tool: the
 * long-term layer is the union of the sources of the recent summaries it
 * folded (their history copies), the recent layer the sources of recent.md,
 * the immediate layer what CONTEXT.md shows in full.
 */
export function layersOnDisk(root: string): {
  longterm: string[];
  recent: string[];
  immediate: number;
  context: GeneratedFile | undefined;
} {
  const recent = readGenerated(root, 'waterfall/recent.md');
  const longterm = readGenerated(root, 'waterfall/longterm.md');
  const folded: string[] = [];
  for (const ref of (longterm?.meta.folded ?? []) as { id: string; sha256: string }[]) {
    // A history copy never changes once written: parse each once (keyed by its hash).
    const key = `${root}:${ref.id}:${ref.sha256}`;
    let ids = copySources.get(key);
    if (!ids) {
      const copy = readGenerated(root, `${ref.id}.md`);
      if (!copy) throw new Error(`history copy ${ref.id} is missing`);
      ids = (copy.meta.sources as { id: string }[]).map((s) => s.id);
      copySources.set(key, ids);
    }
    folded.push(...ids);
  }
  const context = readGenerated(root, 'CONTEXT.md');
  const verbatim = context ? (context.body.split('## Recent memories (in full)')[1]?.match(/^### /gm)?.length ?? 0) : 0;
  return { longterm: folded, recent: ((recent?.meta.sources ?? []) as { id: string }[]).map((s) => s.id), immediate: verbatim, context };
}

/**
 * `memvault status`'s waterfall figures, in-process (what `status --json` prints
 * under `streams[].waterfall`), as of memory `n`: for follow-up checks where
 * the CLI itself is not what is tested.
 */
export async function waterfallStatusOf(root: string, n: number): Promise<WaterfallStatus> {
  const { config } = await loadConfig(root);
  const vaultDir = path.join(root, config.vault);
  const loaded = await loadVault({
    vaultDir,
    stateDir: path.join(root, '.memvault'),
    timezone: config.timezone,
    configuredStreams: Object.keys(config.streams),
  });
  const stream = loaded.state.streams.get(STREAM)!;
  return waterfallStatus({ ...stream, memories: memoriesUpTo(stream.memories, nowAfter(n), config.timezone) }, config, vaultDir);
}
