import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
// zod/mini, as the config: the pre-tool hook loads this file, and classic zod's size is start-up time.
import * as z from 'zod/mini';
import { writeFileAtomic } from '../util/atomic.js';
import { type CitedByIndex, type CitedEntry, citedByDir, citedMetaSchema, readCitedBy, shardOf } from './cited-by.js';
import { citationsAt } from './state.js';

export type { CitedByIndex, CitedEntry } from './cited-by.js';

/**
 * Where verification's results live between builds, behind a small interface
 * (`CitationStore`) so the files can become tables of one database without
 * touching the callers. Today JSON files in `.memvault/citations/`, outside
 * git like every cache (derived: losing them costs one full check):
 * - `verify.json`: the repository facts per cited path, commit and branch, the
 *   commit they were checked at, the stale memories and their notes (small:
 *   what a build reads);
 * - `memories/`: each citing memory's result, in `SHARDS` files by a hash of
 *   its path, the check's commit once in `meta.json`: search, context and zoom
 *   read the shards of their hits only, without loading the vault;
 * - `cited-by/`: per cited path, the memories citing it, as the pre-tool
 *   hook shows them, in `SHARDS` files by a hash of the path (`meta.json`
 *   names the repository, the vault and each shard's hash): the hook reads
 *   the one or few shards of the file and its folders, a few kilobytes, not an
 *   index of every citation (3.9 MB at 20,000 citing memories, ~60 ms to parse
 *   on a busy machine); a build rewrites only the shards that changed.
 */

export const STORE_VERSION = 1;

const stateSchema = z.enum(['verified', 'changed', 'moved', 'gone', 'unchecked']);

/** What git said about one cited path at `head`. */
const pathFactsSchema = z.object({
  /** What the path is at HEAD. */
  at: z.enum(['file', 'dir', 'absent']),
  /** Committer times (Unix seconds) of the commits that touched it, renames followed back; newest first. */
  touched: z.array(z.number()),
  /** Absent at HEAD and not renamed: the commit that deleted it. */
  removed: z.optional(z.object({ commit: z.string(), date: z.string() })),
  /** Renamed (as `-M` detects it): the path it has now, and the commit that renamed it. */
  movedTo: z.optional(z.string()),
  renamed: z.optional(z.object({ commit: z.string(), date: z.string() })),
});
export type PathFacts = z.infer<typeof pathFactsSchema>;

const lineRangeSchema = z.tuple([z.number(), z.number()]);

/** A quoted snippet checked at `head` (quote.ts): held at its cited lines, or the lines holding it now, or neither. */
const quoteFactsSchema = z.object({ held: z.boolean(), at: z.optional(lineRangeSchema) });

/** A memory's quote that is not at its cited lines: the cited path and lines, and where the quote is now (absent: not in the file). */
const quoteFindingSchema = z.object({ target: z.string(), lines: lineRangeSchema, now: z.optional(lineRangeSchema) });
export type QuoteFinding = z.infer<typeof quoteFindingSchema>;

const checkedCitationSchema = z.object({
  kind: z.enum(['path', 'commit', 'branch', 'issue']),
  target: z.string(),
  state: stateSchema,
  detail: z.optional(z.string()),
  since: z.optional(z.number()),
  to: z.optional(z.string()),
  quote: z.optional(z.enum(['moved', 'missing'])),
});

const memoryCitationsSchema = z.object({
  state: stateSchema,
  stale: z.boolean(),
  checked: z.object({ commit: z.string(), at: z.string() }),
  citations: z.array(checkedCitationSchema),
});

/** One citing memory as the build last saw it: what it is, and how its citations stand. */
/**
 * A citing memory as stored: what it is and what it cites, nothing that depends on the repository. Its states are
 * worked out when it is read, from `verify.json`'s facts: a commit that changes the states of thousands of memories
 * rewrites the small facts file, not the memories' shards (seen: 2.5 s of renames at 20,000 memories).
 */
const storedMemorySchema = z.object({
  id: z.string(),
  stream: z.string(),
  day: z.string(),
  kind: z.string(),
  title: z.optional(z.string()),
  at: z.number(),
  /** `[kind, target]` of each checkable citation. */
  cites: z.array(z.tuple([z.enum(['path', 'commit', 'branch']), z.string()])),
  /** The start of the memory file's SHA-256: which memories a partial write replaced were edited. */
  sha: z.optional(z.string()),
});

const memoriesMetaSchema = z.object({ shards: z.record(z.string(), z.string()) });

const citingMemorySchema = z.extend(memoryCitationsSchema, {
  /** The memory's instant, Unix seconds (what "commits since" counts from). */
  at: z.number(),
  /** The memory file's SHA-256 (names its record: an unchanged memory's record is not written again). */
  sha: z.optional(z.string()),
  id: z.string(),
  stream: z.string(),
  day: z.string(),
  kind: z.string(),
  title: z.optional(z.string()),
});
export type CitingMemory = z.infer<typeof citingMemorySchema>;

const verificationSchema = z.object({
  version: z.literal(STORE_VERSION),
  /** The repository checked (its top folder). */
  repo: z.string(),
  /** The commit every fact below was checked at, and when. */
  head: z.string(),
  checkedAt: z.string(),
  paths: z.record(z.string(), pathFactsSchema),
  /** Cited commit ids as written → the full id, or null when the repository has no such commit. */
  commits: z.record(z.string(), z.nullable(z.string())),
  /** Cited branch names → whether a local or remote branch (or tag) of that name exists. */
  branches: z.record(z.string(), z.boolean()),
  /** The memories (vault paths) that were stale at this check: the next one says which became stale since. */
  stale: z.array(z.string()),
  /** Each stale memory's note (vault path → `cites \`src/a.ts\`, deleted in …`), for a build that checks nothing again. */
  notes: z.optional(z.record(z.string(), z.string())),
  /** Fingerprint of the citing memories checked (paths and content hashes): with HEAD unchanged, nothing to check again. */
  inputs: z.optional(z.string()),
  /** Quoted snippets checked, by quote key (quote.ts): what the next check keeps for files that did not change. */
  quotes: z.optional(z.record(z.string(), quoteFactsSchema)),
  /** Memories with a quote not at its cited lines (vault path → those quotes): what a reader's states are made with. */
  quoted: z.optional(z.record(z.string(), z.array(quoteFindingSchema))),
});
export type Verification = z.infer<typeof verificationSchema>;

/** Memories with citations, by vault path: each one's result at the last check. */
export type CitingMemories = Record<string, CitingMemory>;

/** The citing memories of the last check, each validated when first asked for. */
export interface CitingMemoryReader {
  get(memoryPath: string): CitingMemory | undefined;
  /** Every one (all validated). */
  all(): CitingMemories;
}

export interface CitationStore {
  /** The last verification, or undefined when there is none (or it is unreadable or of another version). */
  readVerification(): Verification | undefined;
  /** Writes the facts (`verify.json`) and the memories' results (`memories/`), each file only when it changed. */
  writeVerification(verification: Verification, memories: CitingMemories | undefined): void;
  /** The memories' results, or undefined when there are none; what search, context and zoom read (no facts, no zod over all of it). */
  readMemories(): CitingMemoryReader | undefined;
  /**
   * The memories citing each of the paths `pathsOf(repo)` gives (repository-relative; folders end with `/`), from the
   * last build; undefined when there is no index.
   */
  readCitedBy(pathsOf: (repo: string) => readonly string[]): { repo: string; vault: string; found: Map<string, CitedEntry[]> } | undefined;
  writeCitedBy(index: CitedByIndex): void;
  /**
   * Replaces the records of the memories whose shard (`shardOf` of the memory path) is in `shards` by `memories` (every
   * citing memory of those shards), keeping every other record; returns what each replaced record cited
   * (`[kind, target]`) and its content hash's start (`sha`), by memory path. A build that re-checked a few memories
   * writes this, not all of them.
   */
  replaceMemoryShards(shards: ReadonlySet<string>, memories: CitingMemories): Map<string, ReplacedMemory>;
  /**
   * For each path of `index.files`: drops the entries of the memories `replacing(path)` names, adds the given ones (a
   * path left with none is removed); every other path is kept as it is. What a check that re-worked a few memories
   * writes, without reading (and validating) the thousands of entries it keeps.
   */
  updateCitedBy(index: CitedByIndex, replacing: (path: string) => ReadonlySet<string>): void;
  /** Changes whenever a verification is written: long-lived readers read the results again on a new stamp. */
  stamp(): string;
}

/** A memory record `replaceMemoryShards` replaced: what it cited, and the start of its content hash. */
export interface ReplacedMemory {
  cites: [string, string][];
  sha?: string;
}

/** The store under a project's state folder (`<root>/.memvault`). */
export function openCitationStore(stateDir: string): CitationStore {
  const dir = path.join(stateDir, 'citations');
  const verifyFile = path.join(dir, 'verify.json');
  const memoriesDir = path.join(dir, 'memories');
  const memoriesMeta = path.join(memoriesDir, 'meta.json');
  const citedDir = citedByDir(stateDir);
  const metaFile = path.join(citedDir, 'meta.json');
  // The text last read or written: a build that changed nothing writes nothing.
  const known = new Map<string, string>();
  const write = (file: string, value: unknown): void => {
    const text = JSON.stringify(value);
    if (known.get(file) === text) return;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, text);
    known.set(file, text);
  };
  return {
    readVerification() {
      const text = readText(verifyFile);
      if (text === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return undefined;
      }
      const parsed = verificationSchema.safeParse(value);
      if (!parsed.success) return undefined;
      known.set(verifyFile, text);
      return parsed.data;
    },
    writeVerification(verification, memories) {
      // The memories first: a reader that sees the new facts sees the results made from them. The check's commit is
      // kept once (in the meta), so a memory's record changes only when its citations' states do.
      // Undefined: the same citing memories as the verification on disk (the caller knows by their fingerprint).
      if (memories === undefined) {
        write(verifyFile, verification);
        return;
      }
      const records: Record<string, unknown> = {};
      for (const [key, m] of Object.entries(memories)) records[key] = recordOf(m);
      const shards = writeShards(memoriesDir, records, (key) => memories[key]!.sha ?? JSON.stringify(records[key]));
      write(memoriesMeta, { shards });
      write(verifyFile, verification);
    },
    readMemories() {
      const meta = memoriesMetaSchema.safeParse(readJson(memoriesMeta));
      const verification = this.readVerification();
      if (!meta.success || !verification) return undefined;
      const { shards } = meta.data;
      const loaded = new Map<string, Record<string, unknown>>();
      const validated = new Map<string, CitingMemory | undefined>();
      const shardRecords = (shard: string): Record<string, unknown> => {
        let records = loaded.get(shard);
        if (!records) {
          const raw = shards[shard] ? readJson(path.join(memoriesDir, `${shard}.json`)) : undefined;
          records = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
          loaded.set(shard, records);
        }
        return records;
      };
      const get = (memoryPath: string): CitingMemory | undefined => {
        if (!validated.has(memoryPath)) {
          const records = shardRecords(shardOf(memoryPath));
          const parsed = Object.hasOwn(records, memoryPath) ? storedMemorySchema.safeParse(records[memoryPath]) : undefined;
          const stored = parsed?.success ? parsed.data : undefined;
          const checked = stored
            ? citationsAt(
                stored.cites.map(([kind, target]) => ({ kind, target })),
                stored.at,
                verification,
                verification.quoted?.[memoryPath],
              )
            : undefined;
          const { cites: _cites, sha: _sha, ...rest } = stored ?? { cites: [] };
          validated.set(memoryPath, stored && checked ? ({ ...rest, ...checked } as CitingMemory) : undefined);
        }
        return validated.get(memoryPath);
      };
      return {
        get,
        all() {
          const out: CitingMemories = {};
          for (const shard of Object.keys(shards).sort())
            for (const key of Object.keys(shardRecords(shard))) {
              const memory = get(key);
              if (memory) out[key] = memory;
            }
          return out;
        },
      };
    },
    readCitedBy(pathsOf) {
      return readCitedBy(stateDir, pathsOf);
    },
    writeCitedBy(index) {
      const shards = writeShards(citedDir, index.files);
      // The meta last: a reader sees the old shards' hashes until every new shard is in place.
      write(metaFile, { repo: index.repo, vault: index.vault, shards });
    },
    replaceMemoryShards(shards, memories) {
      const replaced = new Map<string, ReplacedMemory>();
      const meta = memoriesMetaSchema.safeParse(readJson(memoriesMeta));
      for (const shard of shards) {
        const raw = meta.success && meta.data.shards[shard] ? readJson(path.join(memoriesDir, `${shard}.json`)) : undefined;
        if (!raw || typeof raw !== 'object') continue;
        for (const [key, record] of Object.entries(raw)) {
          const parsed = storedMemorySchema.safeParse(record);
          if (parsed.success) replaced.set(key, { cites: parsed.data.cites, ...(parsed.data.sha ? { sha: parsed.data.sha } : {}) });
        }
      }
      const records: Record<string, unknown> = {};
      for (const [key, m] of Object.entries(memories)) records[key] = recordOf(m);
      const written = writeShards(memoriesDir, records, (key) => memories[key]!.sha ?? JSON.stringify(records[key]), shards);
      write(memoriesMeta, { shards: written });
      return replaced;
    },
    updateCitedBy(index, replacing) {
      const touched = new Set(Object.keys(index.files).map(shardOf));
      const meta = citedMetaSchema.safeParse(readJson(metaFile));
      const files: Record<string, unknown> = {};
      for (const shard of touched) {
        const raw = meta.success && meta.data.shards[shard] ? readJson(path.join(citedDir, `${shard}.json`)) : undefined;
        if (raw && typeof raw === 'object') Object.assign(files, raw);
      }
      for (const [key, entries] of Object.entries(index.files)) {
        const gone = replacing(key);
        // The kept entries as they are on disk (written by a build; the hook validates what it reads).
        const kept = Array.isArray(files[key]) ? (files[key] as { m?: unknown }[]).filter((e) => !gone.has(String(e?.m))) : [];
        const merged = [...kept, ...entries];
        if (merged.length > 0) files[key] = merged;
        else delete files[key];
      }
      const shards = writeShards(citedDir, files, undefined, touched);
      write(metaFile, { repo: index.repo, vault: index.vault, shards });
    },
    stamp() {
      try {
        const stat = statSync(verifyFile);
        return `${stat.size}:${stat.mtimeMs}`;
      } catch {
        return 'none';
      }
    },
  };
}

/**
 * Writes `records` into shard files of `dir` by `shardOf` their key, only the shards whose text changed (the meta on
 * disk names each shard's hash), removes shards no longer used, and returns the new shard hashes for the meta.
 */
/** Bump when a memory record's shape changes: shards named by fingerprints are then written again. */
const SHARD_FORMAT = 1;

/** A citing memory's stored record: what it is and what it cites. */
function recordOf(m: CitingMemory): Record<string, unknown> {
  return {
    id: m.id,
    stream: m.stream,
    day: m.day,
    kind: m.kind,
    ...(m.title !== undefined ? { title: m.title } : {}),
    at: m.at,
    cites: m.citations.filter((c) => c.kind !== 'issue').map((c) => [c.kind, c.target]),
    ...(m.sha ? { sha: m.sha.slice(0, 16) } : {}),
  };
}

/** `only`: just those shards are written (`records` holds all of theirs); every other shard is kept as the meta names it. */
function writeShards(
  dir: string,
  records: Record<string, unknown>,
  fingerprintOf?: (key: string) => string,
  only?: ReadonlySet<string>,
): Record<string, string> {
  const grouped = new Map<string, Record<string, unknown>>();
  for (const key of Object.keys(records).sort()) {
    const shard = shardOf(key);
    let group = grouped.get(shard);
    if (!group) grouped.set(shard, (group = {}));
    group[key] = records[key];
  }
  const previous = readJson(path.join(dir, 'meta.json')) as { shards?: Record<string, unknown> } | undefined;
  const old = previous?.shards && typeof previous.shards === 'object' ? previous.shards : {};
  const shards: Record<string, string> = {};
  if (only) for (const [shard, hash] of Object.entries(old)) if (!only.has(shard) && typeof hash === 'string') shards[shard] = hash;
  mkdirSync(dir, { recursive: true });
  for (const [shard, group] of grouped) {
    // With fingerprints (a memory's content hash), a shard is named by its keys and theirs: an unchanged shard is not
    // even serialised (at 20,000 memories, serialising all of them was a quarter of an edit + commit's citation step).
    const keyed = fingerprintOf
      ? createHash('sha256')
          .update(
            `${SHARD_FORMAT}\n${Object.keys(group)
              .map((key) => `${key}\u0000${fingerprintOf(key)}`)
              .join('\n')}`,
          )
          .digest('hex')
          .slice(0, 16)
      : undefined;
    if (keyed !== undefined && old[shard] === keyed) {
      shards[shard] = keyed;
      continue;
    }
    const text = JSON.stringify(group);
    const hash = keyed ?? createHash('sha256').update(text).digest('hex').slice(0, 16);
    shards[shard] = hash;
    if (old[shard] !== hash) writeFileAtomic(path.join(dir, `${shard}.json`), text);
  }
  for (const shard of Object.keys(old)) if (!shards[shard]) rmSync(path.join(dir, `${shard}.json`), { force: true });
  return shards;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readJson(file: string): unknown {
  const text = readText(file);
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
