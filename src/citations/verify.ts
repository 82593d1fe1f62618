import type { Memory } from '../vault/model.js';
import { changedPaths, fileTexts, headCommit, type LoggedCommit, logPaths, objectLines, objectTypes, refNames, renamesIn } from './git.js';
import type { MemoryCitations, Quote } from '../vault/citation-model.js';
import { locateQuote, type QuoteFacts, quoteKey, quoteTarget } from './quote.js';
import { citationsAt, citedLineFindings, citingMemory, memorySeconds } from './state.js';
import type { CitedEntry, CitingMemories, PathFacts, QuoteFinding, Verification } from './store.js';
import { STORE_VERSION } from './store.js';
import { type CitedTargets, citedTargets, type MayCite, type TargetFilter } from './targets.js';
import { readCitationsOf } from '../store/lazy-citations.js';

export type { CitedTargets } from './targets.js';

/**
 * Verification: every citation of every memory checked against HEAD of the
 * repository, at the cost of what changed. The facts per cited path (exists,
 * the commits that touched it, renamed to, deleted in) are kept with the commit
 * they were checked at; the next run asks git only about the paths
 * `git diff --name-status <recorded>..HEAD` names (and paths cited for the
 * first time). With HEAD unchanged and nothing new cited, it is one
 * `git rev-parse`. Each question is one git process for all paths (git.ts).
 */

export interface VerifyInput {
  /** Top folder of the repository. */
  repo: string;
  memories: readonly Memory[];
  /** What `memories` cite (`citedTargets`), when the caller counted it (targets.ts); else their citations are all read. */
  targets?: CitedTargets;
  /**
   * Whether memory `i` of `memories` may cite a target `wanted` accepts (targets.ts `mayCiteOf`): false, and its
   * citations are not read, when surely not. Without it, every memory may.
   */
  mayCite?: MayCite;
  /**
   * The memories (vault paths) that cited any of these paths at the last check (its cited-by index): with `changed`,
   * only they, of the memories not changed, are read for citing a changed path; without it, `mayCite` says.
   */
  citersOf?: (paths: ReadonlySet<string>) => ReadonlySet<string>;
  /** The last verification (the store's), when there is one. */
  previous: Verification | undefined;
  now: Date;
  /** Check every citation again, whatever the last verification says. */
  full?: boolean;
  /** HEAD's commit, when the caller asked git already. */
  head?: string;
  /**
   * Whether a memory may differ from the one the last verification saw (edited, added); with it, memories that did not
   * and cite nothing whose facts changed keep the last check's states and are not worked out again. Without it, all are.
   */
  changed?: (memory: Memory) => boolean;
}

export interface VerifyStats {
  head: string;
  /** Distinct paths, commits and branches cited. */
  targets: number;
  /** Cited paths, and how many of them were asked about again. */
  paths: number;
  recheckedPaths: number;
  /** Of those, how many were asked about again (changed since the recorded commit, or new). */
  rechecked: number;
  /** Citations of memories (issues not counted: not checked), and how many of them point at a target asked about again. */
  citations: number;
  recheckedCitations: number;
  /** Quoted snippets (find.ts) checked against their files, and how many of them were looked for again (file changed, or new). */
  quotes: number;
  recheckedQuotes: number;
  /** Citing memories whose states were worked out again (the others kept the last check's). */
  recomputed: number;
  /** The commit the last verification was at (undefined: none, or a history rewrite dropped it). */
  from?: string;
}

export interface VerifyResult {
  verification: Verification;
  /** Each citing memory's result (vault path → record): all of them, or with `partial` those worked out again. */
  memories: CitingMemories;
  /** What the pre-tool hook reads: per cited path, the memories citing it (with `partial`, of the memories worked out again). */
  citedBy: Record<string, CitedEntry[]>;
  /** Only some memories were worked out again (`VerifyInput.changed`): those citing a `dirty` target, and the changed ones. */
  partial?: { dirty: DirtyTargets };
  stats: VerifyStats;
  /** Memories stale now that the last verification did not call stale (vault paths). */
  newlyStale: string[];
  /** Every stale memory (vault paths). */
  stale: string[];
}

/** Targets whose facts changed since the last check: cited paths, and commits and branches as `kind:target`. */
export interface DirtyTargets {
  paths: Set<string>;
  others: Set<string>;
  /** Paths whose own facts changed: every memory with an entry under one of them is worked out again. */
  changed: Set<string>;
}

/** Runs verification; undefined when the repository has no commit yet. */
export async function verifyCitations(input: VerifyInput): Promise<VerifyResult | undefined> {
  const { repo } = input;
  const head = input.head ?? (await headCommit(repo));
  if (!head) return undefined;
  const targets = input.targets ?? citedTargets(input.memories);
  const { paths, commits, branches, citations: citationCount } = targets;
  const mayCite = input.mayCite ?? (() => true);
  const previous = !input.full && input.previous?.repo === repo ? input.previous : undefined;
  const { from, affected } = await heldFacts(repo, head, previous);
  const known = (p: string): boolean => affected !== undefined && previous!.paths[p] !== undefined && !affected(p);
  const pathsToCheck = [...paths].filter((p) => !known(p));
  const commitsToCheck = [...commits].filter((c) => affected === undefined || previous!.commits[c] === undefined);
  // Refs move without HEAD moving only by fetches and branch deletions; they are asked again whenever HEAD moved.
  const branchesToCheck = [...branches].filter((b) => from !== head || previous!.branches[b] === undefined);

  const factsOut = withRenameChains(paths, await pathFacts(repo, head, pathsToCheck), previous);
  const commitsOut = await commitFacts(repo, commits, commitsToCheck, previous);
  const branchesOut = await branchFacts(repo, branches, branchesToCheck, previous);

  // Re-checking a few: only memories edited or added (`changed`) or citing a target whose facts differ from the recorded
  // ones get their states worked out again; every other memory's states are those of the last check.
  const partial = previous !== undefined && affected !== undefined && input.changed !== undefined;
  const redo = (memory: Memory): boolean => !partial || input.changed!(memory);
  // A check that found no quotes recorded none (`{}`, not undefined: undefined would have every memory's quotes looked at,
  // and so every memory's citations read, to find none).
  const cited = { targets, mayCite, citersOf: partial ? input.citersOf : undefined };
  const quotes = await quoteFacts(repo, head, input.memories, factsOut, partial ? (previous.quotes ?? {}) : undefined, known, redo, cited);

  const verification: Verification = {
    version: STORE_VERSION,
    repo,
    head,
    // Nothing asked again at the same HEAD: the facts are those of the last check, and so is its time (an idle build writes nothing).
    checkedAt:
      previous && from === head && pathsToCheck.length + commitsToCheck.length + branchesToCheck.length + quotes.asked === 0
        ? previous.checkedAt
        : input.now.toISOString(),
    paths: factsOut,
    commits: commitsOut,
    branches: branchesOut,
    stale: [],
    ...(Object.keys(quotes.facts).length > 0 ? { quotes: quotes.facts } : {}),
  };
  const dirty = partial ? dirtyTargets(previous, verification) : undefined;
  const rechecked = new Set([...pathsToCheck, ...commitsToCheck, ...branchesToCheck]);
  const states = memoryStates(input.memories, verification, previous, dirty, redo, cited);
  const { memories, stale } = states;
  verification.stale = stale;
  if (Object.keys(states.quoted).length > 0) verification.quoted = states.quoted;
  const before = new Set(input.previous?.stale ?? []);
  return {
    verification,
    memories,
    citedBy: states.citedBy,
    ...(dirty ? { partial: { dirty } } : {}),
    stats: {
      head,
      targets: paths.size + commits.size + branches.size,
      paths: paths.size,
      recheckedPaths: pathsToCheck.length,
      rechecked: rechecked.size,
      citations: citationCount,
      recheckedCitations: citationsOf(rechecked, targets),
      quotes: quotes.count,
      recheckedQuotes: quotes.asked,
      recomputed: Object.keys(memories).length,
      ...(from ? { from } : {}),
    },
    newlyStale: stale.filter((p) => !before.has(p)),
    stale,
  };
}

/** What tells, without reading a memory's citations, whether it may cite some targets. */
interface CitedLookup {
  targets: CitedTargets;
  mayCite: MayCite;
  citersOf: VerifyInput['citersOf'];
}

/**
 * Whether citing memory `i` may cite one of `paths` or a target `others` accepts (`wanted` says both): the paths by
 * the last check's cited-by index when there is one (a file 4,500 memories cite is in every group), the rest by group.
 */
function citing(
  cited: CitedLookup,
  paths: ReadonlySet<string>,
  wanted: TargetFilter,
  others: (kind: Parameters<TargetFilter>[0]) => boolean,
): (i: number, memory: Memory) => boolean {
  if (!cited.citersOf) return (i) => cited.mayCite(i, wanted);
  const citers = paths.size > 0 ? cited.citersOf(paths) : new Set<string>();
  const other: TargetFilter = (kind, target, quoted) => others(kind) && wanted(kind, target, quoted);
  return (i, memory) => citers.has(memory.path) || cited.mayCite(i, other);
}

/** How many citations point at one of `targets` (by name: a commit and a branch of the same name count both). */
function citationsOf(targets: ReadonlySet<string>, cited: CitedTargets): number {
  let count = 0;
  for (const target of targets) count += cited.byTarget.get(target) ?? 0;
  return count;
}

/**
 * Which recorded facts still hold: all when HEAD has not moved (`from` is HEAD), those of paths the diff from the
 * recorded commit does not touch when it has. `affected` undefined: none hold (no previous check, or its commit is gone).
 */
async function heldFacts(
  repo: string,
  head: string,
  previous: Verification | undefined,
): Promise<{ from: string | undefined; affected: ((path: string) => boolean) | undefined }> {
  if (!previous) return { from: undefined, affected: undefined };
  if (previous.head === head) return { from: head, affected: () => false };
  // A recorded commit that is gone (a rewritten history) fails the diff: everything is asked again.
  const changed = await changedPaths(repo, previous.head, head).catch(() => undefined);
  return changed ? { from: previous.head, affected: touchedBy(changed, previous) } : { from: undefined, affected: undefined };
}

/** The facts of every cited path, fresh or recorded, with the paths of their rename chains (the state follows them: state.ts). */
function withRenameChains(
  paths: ReadonlySet<string>,
  fresh: ReadonlyMap<string, PathFacts>,
  previous: Verification | undefined,
): Record<string, PathFacts> {
  const out: Record<string, PathFacts> = {};
  const keep = (p: string, facts: PathFacts | undefined): void => {
    if (!facts || out[p]) return;
    out[p] = facts;
    if (facts.movedTo) keep(facts.movedTo, fresh.get(facts.movedTo) ?? previous?.paths[facts.movedTo]);
  };
  for (const p of paths) keep(p, fresh.get(p) ?? previous?.paths[p]);
  return out;
}

/** Each cited commit's full id (null: not a commit here): asked for `toCheck` (one git process), recorded for the rest. */
async function commitFacts(
  repo: string,
  commits: ReadonlySet<string>,
  toCheck: readonly string[],
  previous: Verification | undefined,
): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  const types = await objectTypes(
    repo,
    toCheck.map((c) => `${c}^{commit}`),
  );
  for (const c of commits) out[c] = toCheck.includes(c) ? (types.get(`${c}^{commit}`)?.id ?? null) : previous!.commits[c]!;
  return out;
}

/** Whether each cited branch exists (a local branch, a tag, or a remote's branch): asked for `toCheck`, recorded for the rest. */
async function branchFacts(
  repo: string,
  branches: ReadonlySet<string>,
  toCheck: readonly string[],
  previous: Verification | undefined,
): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  const refs = toCheck.length > 0 ? new Set(await refNames(repo)) : new Set<string>();
  for (const b of branches)
    out[b] = toCheck.includes(b)
      ? refs.has(`refs/heads/${b}`) ||
        refs.has(`refs/tags/${b}`) ||
        [...refs].some((r) => r.startsWith('refs/remotes/') && r.endsWith(`/${b}`))
      : previous!.branches[b]!;
  return out;
}

/**
 * Each memory's citation states at `verification`, with its quote findings and cited-by entries; with `dirty`, a memory
 * not to `redo` that cites nothing dirty keeps the last check's states (stale or not, its findings) and is not worked out
 * (nor its citations read, when `mayCite` says it cites nothing dirty).
 */
function memoryStates(
  all: readonly Memory[],
  verification: Verification,
  previous: Verification | undefined,
  dirty: DirtyTargets | undefined,
  redo: (memory: Memory) => boolean,
  cited: CitedLookup,
): {
  quoted: Record<string, QuoteFinding[]>;
  memories: CitingMemories;
  citedBy: Record<string, CitedEntry[]>;
  stale: string[];
} {
  const quoted: Record<string, QuoteFinding[]> = {};
  const memories: CitingMemories = {};
  const citedBy: Record<string, CitedEntry[]> = {};
  const stale: string[] = [];
  const wasStale = new Set(previous?.stale ?? []);
  const isDirty: TargetFilter = (kind, target) =>
    dirty !== undefined && (kind === 'path' ? dirty.paths.has(target) : dirty.others.size > 0 && dirty.others.has(`${kind}:${target}`));
  const mayCiteDirty = citing(cited, dirty?.paths ?? new Set(), isDirty, (kind) => kind !== 'path');
  // Most memories cite nothing dirty: known without reading their citations (not in the cited-by index under a dirty
  // path, nor in a group that cites a dirty commit or branch). The others' are read at once.
  const unread = all.map((memory, i) => dirty !== undefined && !redo(memory) && !mayCiteDirty(i, memory));
  readCitationsOf(all.filter((_, i) => !unread[i]));
  for (let i = 0; i < all.length; i++) {
    const memory = all[i]!;
    const cited = unread[i] ? [] : (memory.citations ?? []);
    let citesDirty = false;
    for (const c of cited) if (c.kind !== 'issue' && !citesDirty) citesDirty = isDirty(c.kind, c.target, false);
    if (dirty && !citesDirty && !redo(memory)) {
      // Nothing it cites changed: as the last check found it.
      if (wasStale.has(memory.path)) stale.push(memory.path);
      const before = previous!.quoted?.[memory.path];
      if (before) quoted[memory.path] = before;
      continue;
    }
    const findings = citedLineFindings(memory, verification);
    if (findings) quoted[memory.path] = findings;
    // The memory's instant once (a date parse), for its states and its record.
    const at = memorySeconds(memory);
    const checked = citationsAt(cited, at, verification, findings);
    if (!checked) continue;
    memories[memory.path] = citingMemory(memory, checked, at);
    if (checked.stale) stale.push(memory.path);
    addCitedBy(citedBy, memory, checked);
  }
  return { quoted, memories, citedBy, stale };
}

/** The entries a memory adds to the cited-by index: one per cited path, and one under a renamed file's new name. */
function addCitedBy(citedBy: Record<string, CitedEntry[]>, memory: Memory, checked: MemoryCitations): void {
  for (const c of checked.citations) {
    if (c.kind !== 'path') continue;
    const quote = memory.citations?.find((m) => m.kind === 'path' && m.target === c.target);
    const entry: CitedEntry = {
      m: memory.path,
      day: memory.day,
      kind: memory.kind,
      title: memory.title ?? memory.id,
      state: c.state,
      ...(c.detail ? { detail: c.detail } : {}),
      ...(quote?.symbol ? { quote: `\`${quote.symbol}\`` } : {}),
    };
    (citedBy[c.target] ??= []).push(entry);
    // A renamed file's memories are found under its new name too: the agent opens the file where it is now.
    if (c.state === 'moved' && c.to) (citedBy[c.to] ??= []).push(entry);
  }
}

/**
 * The targets whose facts now differ from the recorded ones: a path whose facts, or those of a name it
 * was renamed to, changed; a commit or branch whose answer changed. Only memories citing them can change state.
 */
function dirtyTargets(previous: Verification, now: Verification): DirtyTargets {
  const dirty = { paths: new Set<string>(), others: new Set<string>(), changed: new Set<string>() };
  for (const p of Object.keys(now.paths)) if (JSON.stringify(previous.paths[p]) !== JSON.stringify(now.paths[p])) dirty.changed.add(p);
  const changedPath = (p: string): boolean => dirty.changed.has(p);
  for (const p of Object.keys(now.paths)) {
    let name: string | undefined = p;
    for (let hop = 0; name && hop <= 5; hop++) {
      if (changedPath(name)) {
        dirty.paths.add(p);
        break;
      }
      name = now.paths[name]?.movedTo;
    }
  }
  for (const [c, id] of Object.entries(now.commits)) if (previous.commits[c] !== id) dirty.others.add(`commit:${c}`);
  for (const [b, exists] of Object.entries(now.branches)) if (previous.branches[b] !== exists) dirty.others.add(`branch:${b}`);
  return dirty;
}

/**
 * Where each quoted snippet is in its file at `head` (quote.ts): the recorded answer while the file (and the path the
 * memory cites) did not change since, else looked for in the file's text (one `git cat-file --batch` for all files).
 * A quote of a file that is gone, a folder or never in the repository is not looked for: the path's state says it.
 * `recorded` answers of unchanged files are kept as they are (keys start with the cited path); only the quotes of
 * memories to `redo` and of changed files are keyed and looked at.
 */
async function quoteFacts(
  repo: string,
  head: string,
  memories: readonly Memory[],
  paths: Record<string, PathFacts>,
  recorded: Record<string, QuoteFacts> | undefined,
  known: (path: string) => boolean,
  redo: (memory: Memory) => boolean,
  cited: CitedLookup,
): Promise<{ facts: Record<string, QuoteFacts>; count: number; asked: number }> {
  const facts: Record<string, QuoteFacts> = {};
  const held = (target: string): boolean => {
    const file = fileNow(target, paths);
    return file !== undefined && known(target) && known(file);
  };
  const keptTargets = new Map<string, boolean>();
  for (const [key, value] of Object.entries(recorded ?? {})) {
    const target = quoteTarget(key);
    if (!keptTargets.has(target)) keptTargets.set(target, paths[target] !== undefined && held(target));
    if (keptTargets.get(target)) facts[key] = value;
  }
  const wanted = new Map<string, { file: string; lines: [number, number]; quote: Quote }>();
  // A memory not worked out again matters only for its quotes of files whose answers are not kept.
  const quotesUnkept: TargetFilter = (kind, target, quoted) => kind === 'path' && quoted && !keptTargets.get(target);
  const unkept = new Set([...cited.targets.quoted].filter((target) => !keptTargets.get(target)));
  const mayQuoteUnkept = citing(cited, unkept, quotesUnkept, () => false);
  const looked = memories.filter((memory, i) => recorded === undefined || redo(memory) || mayQuoteUnkept(i, memory));
  readCitationsOf(looked);
  for (const memory of looked) {
    const again = recorded === undefined || redo(memory);
    for (const c of memory.citations ?? []) {
      if (c.kind !== 'path' || !c.quote || !c.lines) continue;
      if (!again && keptTargets.get(c.target)) continue;
      const key = quoteKey(c.target, c.lines, c.quote);
      if (facts[key] || wanted.has(key)) continue;
      const file = fileNow(c.target, paths);
      if (file) wanted.set(key, { file, lines: c.lines, quote: c.quote });
    }
  }
  const texts = await fileTexts(repo, head, [...new Set([...wanted.values()].map((w) => w.file))]);
  for (const [key, w] of wanted) {
    const text = texts.get(w.file);
    if (text !== undefined) facts[key] = locateQuote(text, w.lines, w.quote);
  }
  return { facts, count: Object.keys(facts).length, asked: wanted.size };
}

/** The file a cited path is at HEAD, renames followed; undefined when it is absent, a folder, or unknown. */
function fileNow(target: string, paths: Record<string, PathFacts>): string | undefined {
  let name = target;
  for (let hop = 0; hop <= 5; hop++) {
    const facts = paths[name];
    if (!facts) return undefined;
    if (facts.at === 'file') return name;
    if (facts.at !== 'absent' || !facts.movedTo) return undefined;
    name = facts.movedTo;
  }
  return undefined;
}

/** Whether a recorded path's facts are affected by the changed files: itself, a file under it, or where it was renamed to. */
function touchedBy(changed: readonly string[], previous: Verification): (path: string) => boolean {
  const files = new Set(changed);
  const folders = new Set<string>();
  for (const file of changed) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(`${parts.slice(0, i).join('/')}/`);
  }
  const hit = (p: string): boolean => files.has(p.replace(/\/$/, '')) || folders.has(p.endsWith('/') ? p : `${p}/`);
  return (p) => {
    if (hit(p)) return true;
    // A renamed path's state depends on its new name's history.
    let next = previous.paths[p]?.movedTo;
    for (let hop = 0; next && hop < 5; hop++) {
      if (hit(next)) return true;
      next = previous.paths[next]?.movedTo;
    }
    return false;
  };
}

/**
 * The facts of each path at `head`, renames followed forward: what it is now,
 * the commits that touched it, and when absent, the commit that renamed or
 * deleted it. Three git processes per round (cat-file, log, diff-tree), one
 * round per step of a rename chain.
 */
async function pathFacts(repo: string, head: string, paths: readonly string[]): Promise<Map<string, PathFacts>> {
  const facts = new Map<string, PathFacts>();
  let round = [...paths];
  for (let hop = 0; round.length > 0 && hop < 5; hop++) {
    const names = round.map((p) => `${head}:${p.replace(/\/$/, '')}`);
    // What each is at HEAD and a file's length, while `git log` says what touched them (in turn, the processes cost
    // ~100 ms more of wall time on the busy machine).
    const [types, log] = await Promise.all([objectLines(repo, names), logPaths(repo, head, round)]);
    const deletions = new Map<string, LoggedCommit>();
    const next: string[] = [];
    for (const p of round) {
      const object = types.get(`${head}:${p.replace(/\/$/, '')}`);
      const at: PathFacts['at'] = object?.type === 'blob' ? 'file' : object?.type === 'tree' ? 'dir' : 'absent';
      const matches = (file: string | undefined): boolean =>
        file !== undefined && (file === p.replace(/\/$/, '') || file.startsWith(p.endsWith('/') ? p : `${p}/`));
      const touching = log.filter((c) => c.changes.some((ch) => matches(ch.path) || matches(ch.from)));
      const entry: PathFacts = {
        at,
        touched: touching.map((c) => c.time),
        ...(object?.lines !== undefined ? { lines: object.lines } : {}),
      };
      if (at === 'absent' && touching.length > 0) {
        const last = touching[0]!;
        const renamed = last.changes.find((ch) => ch.status.startsWith('R') && ch.from === p);
        if (renamed) Object.assign(entry, { movedTo: renamed.path, renamed: { commit: last.id, date: last.date } });
        else {
          entry.removed = { commit: last.id, date: last.date };
          deletions.set(p, last);
        }
      }
      facts.set(p, entry);
    }
    // A rename whose new name is outside the paths asked about shows as a deletion: the commit says where it went.
    const renames = await renamesIn(repo, [...new Set([...deletions.values()].map((c) => c.id))]);
    for (const [p, commit] of deletions) {
      const to = renames.get(commit.id)?.get(p);
      if (!to) continue;
      const entry = facts.get(p)!;
      delete entry.removed;
      Object.assign(entry, { movedTo: to, renamed: { commit: commit.id, date: commit.date } });
    }
    for (const entry of facts.values())
      if (entry.movedTo && !facts.has(entry.movedTo) && !next.includes(entry.movedTo)) next.push(entry.movedTo);
    round = next;
  }
  return facts;
}
