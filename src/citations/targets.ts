import { checkableCitationCount, readCitationsOf } from '../store/lazy-citations.js';
import type { Memory, StreamState } from '../vault/model.js';
import { shardOf } from './shard.js';

/**
 * What the citing memories cite, without reading every memory's citations.
 * A build reads the citations of a few memories (lazy-citations.ts), yet the
 * check needs the distinct targets of all of them, how many citations point at
 * each, and which memories may cite a target whose facts changed. Per group of
 * citing memories (`shardOf`, the groups whose fingerprint the check keeps),
 * the store keeps what the group cites (`ShardTargets`, the `citation-shards`
 * rows of `kv`): a group whose fingerprint (its memories' paths and content
 * hashes) is the one stored cites what is stored; only a group whose
 * fingerprint moved has its memories' citations read (an edit: one group of
 * ~70 memories at 20,000).
 */

/** The distinct paths, commits and branches some memories cite, and how many citations (issues are not checked). */
export interface CitedTargets {
  paths: Set<string>;
  commits: Set<string>;
  branches: Set<string>;
  citations: number;
  /** Citations per target (any kind), for the count of those pointing at a target asked about again. */
  byTarget: Map<string, number>;
  /** Paths cited with a quote of the cited lines. */
  quoted: Set<string>;
}

/** What a group of memories cites: per target (kind and name), its citations and those of them with a quote at a line range. */
export interface ShardTargets {
  /** The group's fingerprint when counted (its memories' paths and content hashes). */
  print: string;
  targets: TargetRow[];
}
type TargetRow = [kind: 'path' | 'commit' | 'branch', target: string, citations: number, quoted: number];

const TARGET_KINDS = new Set(['path', 'commit', 'branch']);

/**
 * The stored groups (one `kv` row, by group), checked by hand: a zod pass over 256 groups cost ~15 ms of an edit +
 * commit's build (kv.ts allows a plain check). A group that is not as written here is left out: it is counted again.
 */
export function decodeShardTargets(raw: unknown): Record<string, ShardTargets> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Record<string, ShardTargets> = {};
  for (const [shard, group] of Object.entries(raw as Record<string, unknown>)) {
    const { print, targets } = (group ?? {}) as Partial<ShardTargets>;
    if (typeof print !== 'string' || !Array.isArray(targets) || !targets.every(isTargetRow)) continue;
    out[shard] = { print, targets };
  }
  return out;
}

function isTargetRow(row: unknown): row is TargetRow {
  return (
    Array.isArray(row) &&
    row.length === 4 &&
    TARGET_KINDS.has(row[0]) &&
    typeof row[1] === 'string' &&
    Number.isInteger(row[2]) &&
    Number.isInteger(row[3])
  );
}

/** Which targets a question is about: a citation's kind, target, and whether it quotes the cited lines. */
export type TargetFilter = (kind: TargetRow[0], target: string, quoted: boolean) => boolean;

/** Whether citing memory `index` may cite a target `wanted` accepts (false: surely not, its citations need not be read). */
export type MayCite = (index: number, wanted: TargetFilter) => boolean;

/** The memories that cite something checkable (issues are not), each with its group, and each group's fingerprint. */
export interface CitingMemories {
  memories: Memory[];
  /** `shards[i]`: the group of `memories[i]`. */
  shards: string[];
}

/**
 * The memories that cite something checkable, by the counts the parse gave (no citation read). Plain loops: this and
 * the fingerprints are the step's only passes over every memory of the vault, in a process whose code is not optimised
 * yet (a filter with a closure per memory cost ~50 ms of a cold build's CPU on the busy machine).
 */
export function citingMemoriesOf(streams: Iterable<StreamState>): CitingMemories {
  const memories: Memory[] = [];
  const shards: string[] = [];
  for (const stream of streams)
    for (const memory of stream.memories) {
      if (checkableCitationCount(memory) === 0) continue;
      memories.push(memory);
      shards.push(shardOf(memory.path));
    }
  return { memories, shards };
}

/** What `memories` cite, counted (`citations` read: the memories of a group whose fingerprint moved). */
export function targetsOfMemories(memories: Iterable<Memory>): TargetRow[] {
  const rows = new Map<string, TargetRow>();
  for (const memory of memories)
    for (const c of memory.citations ?? []) {
      if (c.kind === 'issue') continue;
      const key = `${c.kind}:${c.target}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = [c.kind, c.target, 0, 0]));
      row[2]++;
      if (c.kind === 'path' && c.quote && c.lines) row[3]++;
    }
  return [...rows.values()];
}

/** The targets of every group, counted together. */
export function mergeTargets(groups: Iterable<readonly TargetRow[]>): CitedTargets {
  const merged: CitedTargets = {
    paths: new Set(),
    commits: new Set(),
    branches: new Set(),
    citations: 0,
    byTarget: new Map(),
    quoted: new Set(),
  };
  for (const rows of groups)
    for (const [kind, target, citations, quoted] of rows) {
      if (quoted > 0) merged.quoted.add(target);
      (kind === 'path' ? merged.paths : kind === 'commit' ? merged.commits : merged.branches).add(target);
      merged.citations += citations;
      merged.byTarget.set(target, (merged.byTarget.get(target) ?? 0) + citations);
    }
  return merged;
}

/** What some memories cite, their citations all read (`CitedTargets`). */
export function citedTargets(memories: readonly Memory[]): CitedTargets {
  return mergeTargets([targetsOfMemories(memories)]);
}

/** Per group, what it cites now: as stored when its fingerprint is the stored one, else from its memories' citations. */
export function shardTargets(
  citing: CitingMemories,
  prints: ReadonlyMap<string, string>,
  stored: ReadonlyMap<string, ShardTargets>,
): { byShard: Map<string, ShardTargets>; computed: Map<string, ShardTargets> } {
  const byShard = new Map<string, ShardTargets>();
  const computed = new Map<string, ShardTargets>();
  const moved = new Map<string, Memory[]>();
  for (const [shard, print] of prints) {
    const known = stored.get(shard);
    if (known?.print === print) byShard.set(shard, known);
    else moved.set(shard, []);
  }
  if (moved.size > 0) for (let i = 0; i < citing.memories.length; i++) moved.get(citing.shards[i]!)?.push(citing.memories[i]!);
  readCitationsOf([...moved.values()].flat());
  for (const [shard, memories] of moved) {
    const targets = { print: prints.get(shard)!, targets: targetsOfMemories(memories) };
    byShard.set(shard, targets);
    computed.set(shard, targets);
  }
  return { byShard, computed };
}

/**
 * Whether citing memory `index` (of `citing.memories`) may cite a target `wanted` accepts: false when its group cites
 * none (its citations need not be read). Asked per memory of the vault, answered once per group and question.
 */
export function mayCiteOf(citing: CitingMemories, byShard: ReadonlyMap<string, ShardTargets>): MayCite {
  const answers = new Map<TargetFilter, Map<string, boolean>>();
  return (index, wanted) => {
    const shard = citing.shards[index];
    const targets = shard === undefined ? undefined : byShard.get(shard);
    if (!targets) return true;
    let byGroup = answers.get(wanted);
    if (!byGroup) answers.set(wanted, (byGroup = new Map()));
    let answer = byGroup.get(shard!);
    if (answer === undefined) {
      answer = targets.targets.some(([kind, target, , quoted]) => wanted(kind, target, quoted > 0));
      byGroup.set(shard!, answer);
    }
    return answer;
  };
}
