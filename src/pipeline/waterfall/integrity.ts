import type { Memory, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { assignLayers, type WaterfallPosition, waterfallPosition, type WaterfallWindows } from './plan.js';

/**
 * The integrity report of a waterfall stream (what `memvault status` shows for an agent stream):
 * checks the layers against the summaries' provenance rather than trusting
 * them. Pure: the history copies are read by the caller.
 *
 * - accounted: every memory is in exactly one of long-term / recent /
 *   immediate. The long-term layer is checked exactly, through the history
 *   copies of the recent summaries it folded (their sources), so a memory
 *   added with an old date inside the long-term range, which no summary
 *   covers, is found.
 * - sources: every memory a summary was built from still has the hash it had.
 * - history: every recent summary ever produced has its copy in
 *   `waterfall/history/`, unchanged.
 */

/** A file of `waterfall/history/`. */
export interface HistoryCopy {
  /** Vault-relative path. */
  path: string;
  sha256: string;
  /** Its frontmatter and hashes; undefined when it is not a valid summary file. */
  summary: Summary | undefined;
}

export interface IntegrityInput {
  stream: string;
  /** The stream's memories in memory order. */
  memories: readonly Memory[];
  recent: Summary | undefined;
  longterm: Summary | undefined;
  /** Every file of `<stream>/waterfall/history/`, by vault-relative path. */
  history: ReadonlyMap<string, HistoryCopy>;
  windows: WaterfallWindows;
}

export type IntegrityCheck = 'accounted' | 'sources' | 'history' | 'compaction';

export interface IntegrityProblem {
  check: IntegrityCheck;
  /** The file the problem is about (vault-relative). */
  path: string;
  reason: string;
}

export interface IntegrityReport {
  ok: boolean;
  layers: { longterm: number; recent: number; immediate: number };
  accounted: {
    memories: number;
    /** Memories in exactly one layer; equals `memories` when all is well. */
    in_one_layer: number;
    /** Ids inside the long-term range that no summary covers. */
    in_no_layer: string[];
    /** Ids covered twice (two summaries, or a summary and the verbatim layer). */
    in_two_layers: string[];
    /** Ids a summary was built from that are no longer in the vault (deleted, renamed, id changed). */
    missing: string[];
    /** False when a history copy is missing, so the long-term layer could only be checked by its range. */
    verified: boolean;
  };
  sources: { checked: number; changed: string[] };
  history: {
    /** Recent summaries produced so far (one per compaction). */
    recent_summaries: number;
    /** Their copies found unchanged in `waterfall/history/`. */
    present: number;
    missing: string[];
    changed: string[];
    /** Files of `waterfall/history/` that no summary refers to (left by `compact --rebuild` or by hand). */
    unreferenced: string[];
  };
  /** Waterfall summaries a person edited (kept; not a problem). */
  edited: string[];
  problems: IntegrityProblem[];
}

/** The vault path of a history source id (`waterfall/history/recent-…` → `<stream>/waterfall/history/recent-….md`). */
export function historyPathOf(stream: string, id: string): string {
  return `${stream}/${id}.md`;
}

/** The source id of a history copy's vault path (the inverse of `historyPathOf`). */
export function historyIdOf(stream: string, vaultPath: string): string {
  return vaultPath.slice(stream.length + 1).replace(/\.md$/, '');
}

/** Checks a waterfall stream's layers, sources and history against the summaries' provenance (see the module comment). */
export function checkIntegrity(input: IntegrityInput): IntegrityReport {
  const { stream, memories, recent, longterm, history } = input;
  const layers = assignLayers(memories, recent, longterm);
  const position = waterfallPosition(memories.length, recent, longterm, input.windows);
  const byId = new Map(memories.map((memory) => [memory.id, memory]));
  const paths = { recent: vaultPaths.waterfallRecent(stream), longterm: vaultPaths.waterfallLongterm(stream) };
  const chain = checkHistoryChain(input, position, paths);
  const accounted = checkAccounted(input, position, layers.boundary, chain, byId, paths);
  const sources = checkSourceHashes(input, position, chain.foldedCopies, byId, paths);
  const problems = [...chain.problems, ...accounted.problems, ...sources.problems];
  const edited = [recent, longterm]
    .filter((summary): summary is Summary => summary !== undefined && summary.bodyHash !== summary.meta.output_hash)
    .map((summary) => summary.path);
  const unreferenced = [...history.keys()].filter((copyPath) => !chain.referenced.has(copyPath)).sort();
  const twice = new Set([...accounted.inTwoLayers, ...accounted.inNoLayer]);
  return {
    ok: problems.length === 0,
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    accounted: {
      memories: memories.length,
      in_one_layer: memories.filter((memory) => !twice.has(memory.id)).length,
      in_no_layer: accounted.inNoLayer,
      in_two_layers: accounted.inTwoLayers,
      missing: accounted.missing,
      verified: accounted.verified,
    },
    sources: { checked: sources.checked, changed: sources.changed },
    history: {
      recent_summaries: chain.recentSummaries,
      present: chain.referenced.size - chain.missingCopies.length - chain.changedCopies.length,
      missing: chain.missingCopies,
      changed: chain.changedCopies,
      unreferenced,
    },
    edited,
    problems,
  };
}

type Position = WaterfallPosition;

/** The vault paths of a stream's two waterfall summaries. */
interface SummaryPaths {
  recent: string;
  longterm: string;
}

/** What the history check found: the chain of recent summaries' copies, and its problems. */
interface HistoryChain {
  /** History copies some summary refers to. */
  referenced: Set<string>;
  missingCopies: string[];
  changedCopies: string[];
  /** The copies folded into the long-term summary that were found (changed ones included). */
  foldedCopies: HistoryCopy[];
  /** The history copy the current recent summary names. */
  current: string | undefined;
  recentSummaries: number;
  problems: IntegrityProblem[];
}

/** History: the chain of recent summaries, folded ones first, then the current one; and an interrupted compaction. */
function checkHistoryChain(input: IntegrityInput, position: Position, paths: SummaryPaths): HistoryChain {
  const { recent, longterm } = input;
  const chain: HistoryChain = {
    referenced: new Set(),
    missingCopies: [],
    changedCopies: [],
    foldedCopies: [],
    current: recent?.meta.waterfall?.history,
    recentSummaries: position.interrupted ? position.compaction - 1 : position.compaction,
    problems: [],
  };
  checkFoldedCopies(input, paths, chain);
  if (recent && !position.interrupted) checkCurrentCopy(input, recent, paths, chain);
  const length = (longterm?.meta.folded?.length ?? 0) + (recent && !position.interrupted ? 1 : 0);
  if (length !== chain.recentSummaries) {
    chain.problems.push({
      check: 'history',
      path: longterm ? paths.longterm : paths.recent,
      reason: `${chain.recentSummaries} recent summaries were produced (compaction ${position.compaction}) but the summaries refer to ${length} history copies`,
    });
  }
  if (position.interrupted) {
    chain.problems.push({
      check: 'compaction',
      path: paths.recent,
      reason:
        `compaction ${position.compaction} was interrupted after folding into the long-term summary; ` +
        'the next `memvault build` or `memvault compact` completes it',
    });
  }
  return chain;
}

/** Each recent summary folded into the long-term one must have its history copy, with the hash it had when folded. */
function checkFoldedCopies(input: IntegrityInput, paths: SummaryPaths, chain: HistoryChain): void {
  for (const ref of input.longterm?.meta.folded ?? []) {
    const copyPath = historyPathOf(input.stream, ref.id);
    chain.referenced.add(copyPath);
    const copy = input.history.get(copyPath);
    if (!copy) {
      chain.missingCopies.push(copyPath);
      chain.problems.push({
        check: 'history',
        path: copyPath,
        reason:
          `history copy of a recent summary folded into ${paths.longterm} is missing; ` +
          'restore it from git, or `memvault compact --rebuild` writes a new chain',
      });
      continue;
    }
    if (copy.sha256 !== ref.sha256) {
      chain.changedCopies.push(copyPath);
      chain.problems.push({
        check: 'history',
        path: copyPath,
        reason: 'history copy changed since it was folded into the long-term summary (hash differs)',
      });
    }
    chain.foldedCopies.push(copy);
  }
}

/** The current recent summary must name its history copy, and that copy must match it. */
function checkCurrentCopy(input: IntegrityInput, recent: Summary, paths: SummaryPaths, chain: HistoryChain): void {
  const current = chain.current;
  if (!current) {
    chain.problems.push({ check: 'history', path: paths.recent, reason: 'the recent summary names no history copy' });
    return;
  }
  chain.referenced.add(current);
  const copy = input.history.get(current);
  const same =
    copy?.summary &&
    copy.summary.meta.input_hash === recent.meta.input_hash &&
    copy.summary.meta.output_hash === recent.meta.output_hash &&
    copy.summary.bodyHash === copy.summary.meta.output_hash;
  if (!copy) {
    chain.missingCopies.push(current);
    chain.problems.push({
      check: 'history',
      path: current,
      reason: 'history copy of the current recent summary is missing (the next build restores it if the summary is unedited)',
    });
  } else if (!same) {
    chain.changedCopies.push(current);
    chain.problems.push({ check: 'history', path: current, reason: 'history copy differs from the recent summary it should be a copy of' });
  }
}

/**
 * Accounted: exact membership of every memory. In the long-term range exactly
 * one folded summary must cover a memory; after it, a memory is in the recent
 * summary or verbatim, never also in a folded one.
 */
function checkAccounted(
  input: IntegrityInput,
  position: Position,
  boundary: number,
  chain: HistoryChain,
  byId: ReadonlyMap<string, Memory>,
  paths: SummaryPaths,
): { inNoLayer: string[]; inTwoLayers: string[]; missing: string[]; verified: boolean; problems: IntegrityProblem[] } {
  const { memories, recent, longterm } = input;
  const summarized = new Map<string, number>();
  const count = (id: string): void => {
    summarized.set(id, (summarized.get(id) ?? 0) + 1);
  };
  for (const copy of chain.foldedCopies) for (const source of copy.summary?.meta.sources ?? []) count(source.id);
  const verified =
    chain.missingCopies.filter((p) => p !== chain.current).length === 0 && chain.foldedCopies.every((copy) => copy.summary !== undefined);
  const recentIds = new Set(!position.interrupted ? (recent?.meta.sources.map((source) => source.id) ?? []) : []);
  for (const id of recentIds) count(id);
  const inNoLayer: string[] = [];
  const inTwoLayers: string[] = [];
  memories.forEach((memory, index) => {
    const times = summarized.get(memory.id) ?? 0;
    if (index <= boundary) {
      if (verified && times === 0) inNoLayer.push(memory.id);
      if (times > 1) inTwoLayers.push(memory.id);
    } else {
      const inRecent = recentIds.has(memory.id) ? 1 : 0;
      if (times - inRecent > 0 || times > 1) inTwoLayers.push(memory.id);
    }
  });
  const missing = [...summarized.keys()].filter((id) => !byId.has(id));
  const problems: IntegrityProblem[] = [];
  for (const id of inNoLayer)
    problems.push({
      check: 'accounted',
      path: byId.get(id)!.path,
      reason:
        `memory \`${id}\` lies in the long-term range but no summary covers it ` +
        '(added with an older date after its period was compacted?); `memvault compact --rebuild` folds it in',
    });
  for (const id of inTwoLayers)
    problems.push({ check: 'accounted', path: byId.get(id)!.path, reason: `memory \`${id}\` is covered by more than one layer` });
  for (const id of missing)
    problems.push({
      check: 'accounted',
      path: longterm && !recentIds.has(id) ? paths.longterm : paths.recent,
      reason:
        `memory \`${id}\`, a source of a summary, is no longer in the vault (deleted, renamed or its id changed); ` +
        'restore it, or `memvault compact --rebuild`',
    });
  return { inNoLayer, inTwoLayers, missing, verified, problems };
}

/** Sources: every memory a summary was built from must still have the hash it had then. */
function checkSourceHashes(
  input: IntegrityInput,
  position: Position,
  foldedCopies: readonly HistoryCopy[],
  byId: ReadonlyMap<string, Memory>,
  paths: SummaryPaths,
): { checked: number; changed: string[]; problems: IntegrityProblem[] } {
  let checked = 0;
  const changed: string[] = [];
  const problems: IntegrityProblem[] = [];
  const checkSources = (sources: readonly { id: string; sha256: string }[], from: string): void => {
    for (const source of sources) {
      const memory = byId.get(source.id);
      if (!memory) continue; // reported as missing by checkAccounted
      checked++;
      if (memory.sha256 !== source.sha256) {
        changed.push(source.id);
        problems.push({
          check: 'sources',
          path: memory.path,
          reason: `memory \`${source.id}\` changed after it was summarized into ${from}; \`memvault compact --rebuild\` summarizes it again`,
        });
      }
    }
  };
  for (const copy of foldedCopies) checkSources(copy.summary?.meta.sources ?? [], paths.longterm);
  if (input.recent && !position.interrupted) checkSources(input.recent.meta.sources, paths.recent);
  return { checked, changed, problems };
}
