import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CACHE_VERSION } from '../store/cache.js';
import { UserError } from '../util/errors.js';
import type { Memory, StreamState } from '../vault/model.js';
import { headCommit, repoAndHead, repoTop } from './git.js';
import { shardOf } from './shard.js';
import { fixFor, staleNote } from './state.js';
import {
  type CitationStore,
  type CitedEntry,
  type CitingMemories,
  openCitationStore,
  type ReplacedMemory,
  type Verification,
} from './store.js';
import { type CitedTargets, type CitingMemories as Citing, citingMemoriesOf, mayCiteOf, mergeTargets, shardTargets } from './targets.js';
import { verifyCitations, type VerifyResult, type VerifyStats } from './verify.js';

/**
 * Verification as a step of `memvault build` (and of `memvault verify`): the
 * memories' citations checked against the repository holding the vault, the
 * store updated, and what the package, INDEX.md and the report show of it.
 * A vault outside git, or whose memories cite nothing, costs nothing here.
 */

/** Newly stale memories a build report names one by one. */
const MAX_NEWLY_STALE_LISTED = 100;

export interface CitationReport extends VerifyStats {
  /** Memories with a stale citation (gone, moved, heavily changed). */
  stale: number;
  /** Memories that became stale with this check (the first `MAX_NEWLY_STALE_LISTED`): each with what it cites and the fix. */
  newlyStale: { path: string; note: string; fix: string }[];
  newlyStaleCount: number;
  ms: number;
}

export interface CitationStep {
  report: CitationReport | undefined;
  /** Per stale memory (vault path): the line the package and the context show under it. */
  notes: Map<string, string>;
}

export interface CitationStepOptions {
  /** The project root (its `.memvault/` holds the store). */
  root: string;
  vaultDir: string;
  streams: Iterable<StreamState>;
  now: Date;
  /** Plan only: check, but write no store. */
  dryRun?: boolean;
  /** Check everything again (`memvault verify --full`). */
  full?: boolean;
  /**
   * A folder of the repository to check against (config `verify.repo`, absolute: `verifyRepoOf`); default the one
   * holding the vault. Not a git repository with a commit: a `config/verify-repo` error.
   */
  repo?: string | undefined;
}

/** The folder `verify.repo` names, resolved against the project root; undefined when not configured. */
export function verifyRepoOf(root: string, config: { verify?: { repo?: string | undefined } | undefined }): string | undefined {
  const repo = config.verify?.repo;
  return repo === undefined ? undefined : path.resolve(root, repo);
}

export async function runCitationStep(options: CitationStepOptions): Promise<CitationStep> {
  const started = performance.now();
  // Issues are not checked (no network): a memory citing only issues has nothing to verify.
  const citing = citingMemoriesOf(options.streams);
  const { memories, shards } = citing;
  const store = openCitationStore(path.join(options.root, '.memvault'));
  const previous = store.readVerification();
  // Nothing cited and nothing recorded: not even a git process.
  if (memories.length === 0 && !previous) return { report: undefined, notes: new Map() };
  const prints = shardPrints(citing);
  const inputs = inputsOf(prints);
  const { targets, mayCite } = countTargets(store, citing, prints, options.dryRun === true);
  // A configured repository is asked for its top folder and HEAD first (one git process, as the fast path's own).
  const configured = options.repo !== undefined ? await configuredRepo(options.repo) : undefined;
  const unchanged = await lastCheckIfCurrent(options, targets, previous, inputs, configured, started);
  if (unchanged) return unchanged;
  const found = configured ?? (await repoAndHead(options.vaultDir));
  const repo = found?.repo;
  if (!repo || !found.head) return { report: undefined, notes: new Map() };
  const vault = path.relative(options.root, options.vaultDir).split(path.sep).join('/');
  // Which memories may differ from those the last check saw: those of the shards whose fingerprint moved. Only when the
  // store holds that check's records and index whole, which a partial write then patches.
  const before = !options.full && previous?.repo === repo ? printsOf(previous.inputs) : undefined;
  const index = before ? store.readCitedBy(() => []) : undefined;
  const changedShards = before ? shardsChanged(prints, before) : new Set<string>();
  // The memories of those shards, found once (a hash of each memory path per question cost ~15 ms at 20,000).
  const changedMemories = new Set<Memory>();
  for (let i = 0; changedShards.size > 0 && i < memories.length; i++) if (changedShards.has(shards[i]!)) changedMemories.add(memories[i]!);
  // The rows are there whole whenever the facts are: the store writes them in the transaction that writes the facts
  // (asking `readMemories` parsed and checked the facts a second time: ~75 ms a check in `citation-step.ts --stale`).
  const patchable = before !== undefined && index?.repo === repo && index.vault === vault;
  const result = await verifyCitations({
    repo,
    head: found.head,
    memories,
    targets,
    mayCite,
    previous,
    now: options.now,
    ...(options.full ? { full: true } : {}),
    ...(patchable ? { changed: (m: Memory) => changedMemories.has(m), citersOf: (paths) => citersOf(store, paths) } : {}),
  });
  if (!result) return { report: undefined, notes: new Map() };
  result.verification.inputs = inputs;
  const notes = staleNotes(result, previous);
  result.verification.notes = Object.fromEntries(notes);
  if (!options.dryRun) {
    if (result.partial && patchable)
      writePartial(
        store,
        result,
        { shards: changedShards, memories: new Set([...changedMemories].map((m) => m.path)), kept: memories.length - changedMemories.size },
        previous!,
        { repo, vault },
      );
    else {
      // The memories' records hold only what the memories say: unchanged memories, unchanged records.
      const sameMemories = previous?.inputs === inputs && previous.repo === repo;
      store.writeVerification(result.verification, sameMemories ? undefined : result.memories, previous);
      store.writeCitedBy({ repo, vault, files: result.citedBy });
    }
  }
  return { notes, report: reportOf(result, notes, started) };
}

/**
 * The last check's results when they still hold: the same citing memories (by content) in the same repository at the
 * same HEAD. One git process (none with a configured repository, already asked), and only the stale memories' notes
 * read back (the no-change rebuild's case); undefined when anything moved or `full` asks for everything again.
 */
async function lastCheckIfCurrent(
  options: CitationStepOptions,
  targets: CitedTargets,
  previous: Verification | undefined,
  inputs: string,
  configured: { repo: string; head: string } | undefined,
  started: number,
): Promise<CitationStep | undefined> {
  if (options.full || previous?.inputs !== inputs) return undefined;
  if (configured ? configured.repo !== previous.repo : !isInside(previous.repo, options.vaultDir)) return undefined;
  const head = configured?.head ?? (await headCommit(previous.repo));
  if (!head || head !== previous.head || !previous.notes) return undefined;
  const stats: VerifyStats = {
    head,
    ...targetCounts(targets),
    recheckedPaths: 0,
    rechecked: 0,
    recheckedCitations: 0,
    quotes: Object.keys(previous.quotes ?? {}).length,
    recheckedQuotes: 0,
    recomputed: 0,
    from: head,
  };
  const report = {
    ...stats,
    stale: previous.stale.length,
    newlyStale: [],
    newlyStaleCount: 0,
    ms: Math.round(performance.now() - started),
  };
  return { notes: new Map(Object.entries(previous.notes)), report };
}

/** The memories (vault paths) the cited-by index lists under any of `paths`: those that cited them at the last check. */
function citersOf(store: CitationStore, paths: ReadonlySet<string>): Set<string> {
  const citers = new Set<string>();
  for (const entries of store.readCitedBy(() => [...paths])?.found.values() ?? []) for (const e of entries) citers.add(e.m);
  return citers;
}

/** The shards whose fingerprint differs between the last check's (`before`) and now's, either side's shards. */
function shardsChanged(prints: ReadonlyMap<string, string>, before: ReadonlyMap<string, string>): Set<string> {
  const changed = new Set<string>();
  for (const shard of new Set([...prints.keys(), ...before.keys()])) if (prints.get(shard) !== before.get(shard)) changed.add(shard);
  return changed;
}

/** Per stale memory, the line shown under it: worked out now, or the last check's for a memory not worked out again. */
function staleNotes(result: VerifyResult, previous: Verification | undefined): Map<string, string> {
  const notes = new Map<string, string>();
  for (const p of result.stale) {
    const note = result.memories[p] ? staleNote(result.memories[p]) : previous?.notes?.[p];
    if (note) notes.set(p, note);
  }
  return notes;
}

/** The step's report: the check's counts, and the first newly stale memories named with their fix. */
function reportOf(result: VerifyResult, notes: ReadonlyMap<string, string>, started: number): CitationReport {
  return {
    ...result.stats,
    stale: result.stale.length,
    // The first ones named with their fix (a commit can make thousands stale at once); `newlyStaleCount` has them all.
    newlyStale: result.newlyStale
      .slice(0, MAX_NEWLY_STALE_LISTED)
      .map((p) => ({ path: p, note: notes.get(p) ?? '', fix: fixFor(p, result.memories[p]!) })),
    newlyStaleCount: result.newlyStale.length,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * What a check that worked out a few memories again writes: the records of the memories of the changed shards, the
 * cited-by entries of the memories worked out again (and of those gone) under every path they cite or cited, the facts.
 */
function writePartial(
  store: CitationStore,
  result: VerifyResult,
  changed: ChangedShards,
  previous: Verification,
  index: { repo: string; vault: string },
): void {
  // One transaction: a reader sees the last check's rows, entries and facts, or this one's, never a mix.
  store.transaction(() => writePartialRows(store, result, changed, previous, index));
}

/** The shards whose fingerprint moved, the paths of the citing memories in them now, and how many are in the others. */
interface ChangedShards {
  shards: ReadonlySet<string>;
  memories: ReadonlySet<string>;
  /** The citing memories of the shards whose fingerprint did not move: the same as at the last check, whose rows the store holds. */
  kept: number;
}

function writePartialRows(
  store: CitationStore,
  result: VerifyResult,
  changed: ChangedShards,
  previous: Verification,
  index: { repo: string; vault: string },
): void {
  const ofShards: CitingMemories = {};
  for (const p of changed.memories) if (result.memories[p]) ofShards[p] = result.memories[p];
  const replaced =
    changed.shards.size > 0
      ? store.replaceMemories((p) => changed.shards.has(shardOf(p)), ofShards, changed.kept)
      : new Map<string, ReplacedMemory>();
  // A memory worked out again because a path it cites changed keeps its entries under the paths that did not: an entry
  // says the memory (day, kind, title) and that one path's state. Those of edited, added and removed memories are all redone.
  const edited = new Set<string>();
  for (const [p, m] of Object.entries(ofShards)) if (m.sha === undefined || replaced.get(p)?.sha !== m.sha) edited.add(p);
  for (const p of replaced.keys()) if (!ofShards[p]) edited.add(p);
  const redone = new Set([...Object.keys(result.memories), ...replaced.keys()]);
  const withRenames = (target: string, into: Set<string>): void => {
    // The entries under a renamed file's new name, as the last check and this one made them.
    let name: string | undefined = target;
    for (let hop = 0; name && hop <= 5; hop++) {
      into.add(name);
      name = previous.paths[name]?.movedTo ?? result.verification.paths[name]?.movedTo;
    }
  };
  const dirtyKeys = new Set<string>();
  for (const target of result.partial!.dirty.paths) withRenames(target, dirtyKeys);
  const keys = new Set<string>();
  for (const p of edited) {
    for (const c of result.memories[p]?.citations ?? []) if (c.kind === 'path') withRenames(c.target, keys);
    for (const [kind, target] of replaced.get(p)?.cites ?? []) if (kind === 'path') withRenames(target, keys);
  }
  // Every one, with or without new entries: a renamed file's old new name may keep none (renamed again).
  for (const key of dirtyKeys) keys.add(key);
  if (keys.size === 0) {
    store.writeVerification(result.verification, undefined, previous);
    return;
  }
  // Under a dirty path (its facts, or those of a name it was renamed to, changed), every entry, the last check's and
  // this one's, is of a memory worked out again: it cites that path, or a path renamed to it, which is dirty too. Its row
  // is written whole, the old one not even read (the row of a file 4,500 memories cite is ~1 MB of JSON to parse for
  // nothing). Under a renamed file's other names, the entries of memories worked out again are replaced; under any other
  // path, only the edited, added and removed memories' entries.
  const dirty = result.partial!.dirty.paths;
  const replacing = (key: string): ReadonlySet<string> | 'all' => (dirty.has(key) ? 'all' : dirtyKeys.has(key) ? redone : edited);
  const files: Record<string, CitedEntry[]> = {};
  for (const key of keys) {
    const replacedHere = replacing(key);
    const entries = result.citedBy[key] ?? [];
    files[key] = replacedHere === 'all' ? entries : entries.filter((e) => replacedHere.has(e.m));
  }
  store.updateCitedBy({ ...index, files }, replacing);
  store.writeVerification(result.verification, undefined, previous);
}

/** Per group of citing memories (`shardOf`), a fingerprint of its memories' paths and content hashes. */
function shardPrints(citing: Citing): Map<string, string> {
  const lines = new Map<string, string[]>();
  for (let i = 0; i < citing.memories.length; i++) {
    const m = citing.memories[i]!;
    const shard = citing.shards[i]!;
    let list = lines.get(shard);
    if (!list) lines.set(shard, (list = []));
    list.push(`${m.path}\u0000${m.sha256}`);
  }
  // One hash per shard over its joined lines: one update per memory cost more than the hashing (20,000 calls).
  return new Map([...lines].map(([shard, list]) => [shard, createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 16)]));
}

/**
 * What the citing memories cite, from each group's stored count where its fingerprint did not move (targets.ts), and
 * whether a memory's group may cite a target; the groups counted anew are stored (unless a dry run).
 */
function countTargets(
  store: CitationStore,
  citing: Citing,
  prints: ReadonlyMap<string, string>,
  dryRun: boolean,
): { targets: CitedTargets; mayCite: ReturnType<typeof mayCiteOf> } {
  // The parser's version names the counts: a group's fingerprint is its memories' content, not what a parser found in it.
  const version = `parser-${CACHE_VERSION}`;
  const stored = store.readShardTargets(version);
  const { byShard, computed } = shardTargets(citing, prints, stored);
  const gone = [...stored.keys()].some((shard) => !prints.has(shard));
  // `byShard` holds every group there is now (stored or counted anew): written whole, the gone ones drop out.
  if (!dryRun && (computed.size > 0 || gone)) store.writeShardTargets(version, byShard);
  return { targets: mergeTargets([...byShard.values()].map((t) => t.targets)), mayCite: mayCiteOf(citing, byShard) };
}

/** The fingerprint of all citing memories kept with a verification: each shard's, in one string (`s1:` then shard=print,…). */
function inputsOf(prints: ReadonlyMap<string, string>): string {
  return `s1:${[...prints.keys()]
    .sort()
    .map((shard) => `${shard}=${prints.get(shard)}`)
    .join(',')}`;
}

/** The shard fingerprints of a recorded `inputs`; undefined when there is none, or of an older kind (everything is redone). */
function printsOf(inputs: string | undefined): Map<string, string> | undefined {
  if (!inputs?.startsWith('s1:')) return undefined;
  const body = inputs.slice(3);
  return new Map(body === '' ? [] : body.split(',').map((pair) => pair.split('=') as [string, string]));
}

/** Distinct cited paths, commits and branches, and all citations: the counts a report gives. */
function targetCounts({ paths, commits, branches, citations }: CitedTargets): { targets: number; paths: number; citations: number } {
  return { targets: paths.size + commits.size + branches.size, paths: paths.size, citations };
}

/** The top folder and HEAD of the configured repository, or a `config/verify-repo` error saying what to do. */
async function configuredRepo(folder: string): Promise<{ repo: string; head: string }> {
  const found = await repoAndHead(folder);
  if (found) return found;
  const why = !existsSync(folder)
    ? 'does not exist'
    : (await repoTop(folder))
      ? 'is in a git repository without commits'
      : 'is not in a git repository';
  throw new UserError('config/verify-repo', `verify.repo in memory.config.yaml: ${folder} ${why}`);
}

function isInside(folder: string, inner: string): boolean {
  const relative = path.relative(folder, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
