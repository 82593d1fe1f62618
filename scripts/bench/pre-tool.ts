import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CitedByIndex, type CitedEntry, openCitationStore } from '../../src/citations/store.js';
import { closeStateStore } from '../../src/store/database.js';
import { BENCH_ROOT, CLI, median } from './run.js';

/**
 * The pre-tool hook (`memvault hook pre-tool`, src/hooks/pre-tool.ts) from
 * process start to exit, as Claude Code runs it before a Read: on a project
 * whose citation index (the `cited_by` table of `.memvault/state.sqlite`,
 * what a build writes) holds `memories` memories, every one citing one of 600 files in 40
 * folders and every 20th a folder too: more citations than a real vault has.
 * The index is warm (written just before, in the page cache); each cited call
 * is a new session, so none is suppressed as already said (each writes its
 * mark). Median of `runs` for a cited file (in turns with `node -e 0`), of 10
 * for the same file again in the same session (read only) and of 10 for a file
 * nothing cites.
 */
export function benchPreTool(memories: number, runs: number): Record<string, number> {
  const dir = path.join(BENCH_ROOT, `pre-tool-${memories}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\n');
  const file = (i: number): string => `src/area-${i % 40}/module-${i % 600}.ts`;
  const files: Record<string, CitedEntry[]> = {};
  const states = ['verified', 'verified', 'verified', 'changed', 'moved', 'gone'] as const;
  for (let i = 0; i < memories; i++) {
    const day = `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
    const state = states[i % states.length]!;
    const entry: CitedEntry = {
      m: `main/memories/${day.slice(0, 4)}/${day.slice(5, 7)}/${day}-memory-${i}.md`,
      day,
      kind: i % 3 === 0 ? 'decision' : 'note',
      title: `How module ${i % 600} handles retries and time-outs, note ${i}`,
      state,
      ...(state === 'verified' ? {} : { detail: state === 'changed' ? '3 commits since' : 'deleted in 3f2a1c0 on 2026-10-02' }),
    };
    (files[file(i)] ??= []).push(entry);
    if (i % 20 === 0) (files[`src/area-${i % 40}/`] ??= []).push(entry);
  }
  const index: CitedByIndex = { repo: dir, vault: 'vault', files };
  openCitationStore(path.join(dir, '.memvault')).writeCitedBy(index);
  // As after a build: no other connection open (the hook's own close then checkpoints the little it wrote).
  closeStateStore(path.join(dir, '.memvault'));
  const call = (target: string, session: string): { ms: number; chars: number } => {
    const input = JSON.stringify({
      session_id: session,
      transcript_path: path.join(dir, 'transcript.jsonl'),
      cwd: dir,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path.join(dir, target) },
    });
    const start = performance.now();
    const child = spawnSync(process.execPath, [CLI, 'hook', 'pre-tool'], { cwd: dir, input, encoding: 'utf8' });
    const ms = performance.now() - start;
    if (child.status !== 0) throw new Error(`hook pre-tool exited ${child.status}: ${child.stderr}`);
    const text = child.stdout
      ? (JSON.parse(child.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext
      : '';
    return { ms, chars: text.length };
  };
  call(file(1), 'warm-up');
  // Node's own start on this machine now (`node -e 0`): what no hook can go below; on a busy machine it is most of the
  // time. Taken in turns with the hook's calls, so both see the same load.
  const nodeStart = (): number => {
    const start = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return performance.now() - start;
  };
  const cited: { ms: number; chars: number }[] = [];
  const repeated: { ms: number; chars: number }[] = [];
  const node: number[] = [];
  for (let i = 0; i < runs; i++) {
    cited.push(call(file(i * 7), `session-${i}`));
    node.push(nodeStart());
    // The same file again in the same session: already said, nothing written.
    if (i < 10) repeated.push(call(file(i * 7), `session-${i}`));
  }
  const uncited = Array.from({ length: Math.min(runs, 10) }, (_, i) => call(`docs/uncited-${i}.md`, `uncited-${i}`));
  if (cited.some((c) => c.chars === 0) || uncited.some((c) => c.chars !== 0) || repeated.some((c) => c.chars !== 0))
    throw new Error('pre-tool answered the wrong files');
  const round = (n: number): number => Math.round(n * 10) / 10;
  return {
    pre_tool_hook_memories: memories,
    pre_tool_hook_index_mb: round(JSON.stringify(index).length / 1024 / 1024),
    pre_tool_hook_median_ms: round(median(cited.map((c) => c.ms))),
    pre_tool_hook_uncited_median_ms: round(median(uncited.map((c) => c.ms))),
    pre_tool_hook_repeat_median_ms: round(median(repeated.map((c) => c.ms))),
    node_start_median_ms: round(median(node)),
    pre_tool_hook_max_chars: Math.max(...cited.map((c) => c.chars)),
  };
}
