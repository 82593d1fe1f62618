import type { Memory, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { assignLayers, waterfallPosition, type WaterfallWindows } from './plan.js';

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

export function checkIntegrity(input: IntegrityInput): IntegrityReport {
  const { stream, memories, recent, longterm, history } = input;
  const problems: IntegrityProblem[] = [];
  const layers = assignLayers(memories, recent, longterm);
  const position = waterfallPosition(memories.length, recent, longterm, input.windows);
  const byId = new Map(memories.map((memory) => [memory.id, memory]));
  const recentPath = vaultPaths.waterfallRecent(stream);
  const longtermPath = vaultPaths.waterfallLongterm(stream);

  // History: the chain of recent summaries, folded ones first, then the current one.
  const referenced = new Set<string>();
  const missingCopies: string[] = [];
  const changedCopies: string[] = [];
  const foldedCopies: HistoryCopy[] = [];
  for (const ref of longterm?.meta.folded ?? []) {
    const copyPath = historyPathOf(stream, ref.id);
    referenced.add(copyPath);
    const copy = history.get(copyPath);
    if (!copy) {
      missingCopies.push(copyPath);
      problems.push({
        check: 'history',
        path: copyPath,
        reason:
          `history copy of a recent summary folded into ${longtermPath} is missing; ` +
          'restore it from git, or `memvault compact --rebuild` writes a new chain',
      });
    } else if (copy.sha256 !== ref.sha256) {
      changedCopies.push(copyPath);
      problems.push({
        check: 'history',
        path: copyPath,
        reason: 'history copy changed since it was folded into the long-term summary (hash differs)',
      });
      foldedCopies.push(copy);
    } else foldedCopies.push(copy);
  }
  const current = recent?.meta.waterfall?.history;
  if (recent && !position.interrupted) {
    if (!current) {
      problems.push({ check: 'history', path: recentPath, reason: 'the recent summary names no history copy' });
    } else {
      referenced.add(current);
      const copy = history.get(current);
      const same =
        copy?.summary &&
        copy.summary.meta.input_hash === recent.meta.input_hash &&
        copy.summary.meta.output_hash === recent.meta.output_hash &&
        copy.summary.bodyHash === copy.summary.meta.output_hash;
      if (!copy) {
        missingCopies.push(current);
        problems.push({
          check: 'history',
          path: current,
          reason: 'history copy of the current recent summary is missing (the next build restores it if the summary is unedited)',
        });
      } else if (!same) {
        changedCopies.push(current);
        problems.push({ check: 'history', path: current, reason: 'history copy differs from the recent summary it should be a copy of' });
      }
    }
  }
  const recentSummaries = position.interrupted ? position.compaction - 1 : position.compaction;
  const chain = (longterm?.meta.folded?.length ?? 0) + (recent && !position.interrupted ? 1 : 0);
  if (chain !== recentSummaries) {
    problems.push({
      check: 'history',
      path: longterm ? longtermPath : recentPath,
      reason: `${recentSummaries} recent summaries were produced (compaction ${position.compaction}) but the summaries refer to ${chain} history copies`,
    });
  }
  if (position.interrupted) {
    problems.push({
      check: 'compaction',
      path: recentPath,
      reason:
        `compaction ${position.compaction} was interrupted after folding into the long-term summary; ` +
        'the next `memvault build` or `memvault compact` completes it',
    });
  }

  // Accounted: exact membership of every memory.
  const summarized = new Map<string, number>();
  const count = (id: string): void => {
    summarized.set(id, (summarized.get(id) ?? 0) + 1);
  };
  for (const copy of foldedCopies) for (const source of copy.summary?.meta.sources ?? []) count(source.id);
  const verified = missingCopies.filter((p) => p !== current).length === 0 && foldedCopies.every((copy) => copy.summary !== undefined);
  const recentIds = new Set(!position.interrupted ? (recent?.meta.sources.map((source) => source.id) ?? []) : []);
  for (const id of recentIds) count(id);
  const inNoLayer: string[] = [];
  const inTwoLayers: string[] = [];
  memories.forEach((memory, index) => {
    const times = summarized.get(memory.id) ?? 0;
    if (index <= layers.boundary) {
      // In the long-term range: exactly one summary must cover it.
      if (verified && times === 0) inNoLayer.push(memory.id);
      if (times > 1) inTwoLayers.push(memory.id);
    } else {
      const inRecent = recentIds.has(memory.id) ? 1 : 0;
      // After the range: either in the recent summary or verbatim, never also in a folded one.
      if (times - inRecent > 0 || times > 1) inTwoLayers.push(memory.id);
    }
  });
  const missing = [...summarized.keys()].filter((id) => !byId.has(id));
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
      path: longterm && !recentIds.has(id) ? longtermPath : recentPath,
      reason:
        `memory \`${id}\`, a source of a summary, is no longer in the vault (deleted, renamed or its id changed); ` +
        'restore it, or `memvault compact --rebuild`',
    });

  // Sources: hashes of what each summary was built from.
  let checked = 0;
  const changed: string[] = [];
  const checkSources = (sources: readonly { id: string; sha256: string }[], from: string): void => {
    for (const source of sources) {
      const memory = byId.get(source.id);
      if (!memory) continue; // reported as missing above
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
  for (const copy of foldedCopies) checkSources(copy.summary?.meta.sources ?? [], longtermPath);
  if (recent && !position.interrupted) checkSources(recent.meta.sources, recentPath);

  const edited = [recent, longterm]
    .filter((summary): summary is Summary => summary !== undefined && summary.bodyHash !== summary.meta.output_hash)
    .map((summary) => summary.path);
  const unreferenced = [...history.keys()].filter((copyPath) => !referenced.has(copyPath)).sort();
  const twice = new Set([...inTwoLayers, ...inNoLayer]);
  return {
    ok: problems.length === 0,
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    accounted: {
      memories: memories.length,
      in_one_layer: memories.filter((memory) => !twice.has(memory.id)).length,
      in_no_layer: inNoLayer,
      in_two_layers: inTwoLayers,
      missing,
      verified,
    },
    sources: { checked, changed },
    history: {
      recent_summaries: recentSummaries,
      present: referenced.size - missingCopies.length - changedCopies.length,
      missing: missingCopies,
      changed: changedCopies,
      unreferenced,
    },
    edited,
    problems,
  };
}
