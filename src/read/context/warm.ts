import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ensureSearchIndex } from '../../search/store.js';
import type { SearchIndex } from '../../search/index.js';
import { resolveRelativeDates } from '../../retention/dates.js';
import type { Memory } from '../../vault/model.js';
import { memoryBody, tokensOf, type ReadVault } from '../vault.js';
import { vaultPaths } from '../../vault/paths.js';
import { bodyStartLine, frontmatterBody } from '../../vault/frontmatter.js';
import { readVaultFile } from '../../vault/scan.js';
import { sha256 } from '../../util/hash.js';

/**
 * What context assembly keeps between calls in a long-lived process (the MCP
 * server, `watch`, the evaluation): the search index, token counts of the
 * texts it has measured, and the topics of `index.json`, read again only
 * when that file changes. A request then does no disk work for what did not
 * change.
 */

/** The search side of a context: the BM25 index of the vault (as `readIndex` gives it). */
export interface ContextSearch {
  index: SearchIndex;
}

/** One topic of `index.json`: the distinctive terms of a summary's period. */
export interface IndexTopic {
  period: string;
  path: string;
  terms: string[];
}

/**
 * What a context reads of `index.json` (a file that arrives with a clone): each stream's name and its topics, a topic
 * that is not as written here left out on its own (the rest of the file is the build's, vault-index-file.ts).
 */
const indexFile = z.object({ streams: z.array(z.unknown()).optional() });
const indexStream = z.object({ name: z.string(), topics: z.array(z.unknown()) });
const indexTopic = z.object({ period: z.string(), path: z.string(), terms: z.array(z.string()) });

interface Memo {
  tokens: Map<string, number>;
  /** Memory texts as a context shows them, by content hash. */
  bodies: Map<string, string>;
  topics?: { stamp: string; byStream: Map<string, IndexTopic[]> };
  /** 1-based line of each file (by vault path) its body starts on; null for a file that cannot be read. */
  bodyLines: Map<string, number | null>;
  /** Counts known from elsewhere (a kept answer's, `useKnownCounts`), asked before the tokenizer. */
  known?: (text: string) => number | undefined;
  /** Body lines by the SHA-256 of the file's bytes: those measured here, and those known from elsewhere (`useKnownLines`). */
  linesBySha: Map<string, number | null>;
  knownLines?: (sha: string) => number | null | undefined;
}

/** Texts remembered per vault and kind; past this many the memo starts again (a bound for a process that runs for days). */
const MAX_MEMO = 50_000;
const memos = new WeakMap<object, Memo>();

function memoOf(vault: ReadVault): Memo {
  let memo = memos.get(vault.loaded);
  if (!memo) {
    memo = { tokens: new Map(), bodies: new Map(), bodyLines: new Map(), linesBySha: new Map() };
    memos.set(vault.loaded, memo);
  }
  return memo;
}

/**
 * The search index for a context, brought up to date with the loaded vault
 * (only what changed is re-indexed; nothing is written when nothing did) and
 * rebuilt when missing or unreadable.
 *
 * @example
 *   const vault = await openVault(root);
 *   const search = openContextSearch(vault);
 *   assembleContext(vault, search, { signals: { query: 'sessions' }, now: new Date() });
 */
export function openContextSearch(vault: ReadVault): ContextSearch {
  // Updated, read back, rebuilt when damaged or foreign, else in memory (store.ts): context never fails for its index.
  return { index: ensureSearchIndex(vault.root, vault.loaded).loaded.index };
}

/**
 * The 1-based line of a vault file its body starts on (past the frontmatter and blank lines), for `path:line`
 * labels; undefined for what is no readable file (the facts' pseudo-source). Read once per file for this loaded vault.
 */
export function bodyLineFor(vault: ReadVault): (vaultPath: string) => number | undefined {
  const memo = memoOf(vault);
  return (vaultPath) => {
    let line = memo.bodyLines.get(vaultPath);
    if (line === undefined) {
      line = bodyLineOfFile(vault, vaultPath, memo);
      if (memo.bodyLines.size >= MAX_MEMO) memo.bodyLines.clear();
      memo.bodyLines.set(vaultPath, line);
    }
    return line ?? undefined;
  };
}

function bodyLineOfFile(vault: ReadVault, vaultPath: string, memo: Memo): number | null {
  if (!vaultPath.endsWith('.md')) return null;
  const read = readVaultFile(vault.vaultDir, vaultPath);
  if (!read.ok) return null;
  // By the bytes' hash, a line known from elsewhere spares loading the frontmatter parser (the session-start hook's).
  const sha = sha256(read.bytes);
  let line = memo.linesBySha.get(sha) ?? memo.knownLines?.(sha);
  if (line === undefined) {
    const text = Buffer.from(read.bytes).toString('utf8');
    line = bodyStartLine(text, frontmatterBody(text).trim()) ?? null;
  }
  if (memo.linesBySha.size >= MAX_MEMO) memo.linesBySha.clear();
  memo.linesBySha.set(sha, line);
  return line;
}

/** Tokens of `text` with the configured tokenizer, remembered for this loaded vault. */
export function countFor(vault: ReadVault): (text: string) => number {
  const memo = memoOf(vault);
  return (text) => {
    let n = memo.tokens.get(text);
    if (n === undefined) {
      n = memo.known?.(text) ?? tokensOf(vault, text);
      if (memo.tokens.size >= MAX_MEMO) memo.tokens.clear();
      memo.tokens.set(text, n);
    }
    return n;
  };
}

/**
 * Token counts `countFor` takes as known instead of loading the tokenizer (~0.15 s at a process's start): the
 * session-start hook's kept counts of the texts its last answer measured, for this loaded vault's tokenizer.
 */
export function useKnownCounts(vault: ReadVault, known: (text: string) => number | undefined): void {
  memoOf(vault).known = known;
}

/** Every text `countFor` measured (or took as known) for this loaded vault, with its tokens. */
export function countedTexts(vault: ReadVault): ReadonlyMap<string, number> {
  return memoOf(vault).tokens;
}

/** Body lines `bodyLineFor` takes as known, by the SHA-256 of a file's bytes (the session-start hook's kept lines). */
export function useKnownLines(vault: ReadVault, known: (sha: string) => number | null | undefined): void {
  memoOf(vault).knownLines = known;
}

/** Every body line `bodyLineFor` measured (or took as known) for this loaded vault, by the SHA-256 of the file's bytes. */
export function measuredLines(vault: ReadVault): ReadonlyMap<string, number | null> {
  return memoOf(vault).linesBySha;
}

/**
 * A memory's body as a context shows it: relative dates resolved against its
 * day, as the summaries have them (`yesterday (7 May 2023)`). Remembered by
 * content hash for this loaded vault.
 */
export function memoryText(vault: ReadVault, memory: Memory): string {
  const memo = memoOf(vault);
  let text = memo.bodies.get(memory.sha256);
  if (text === undefined) {
    text = resolveRelativeDates(memoryBody(vault, memory), memory.day);
    if (memo.bodies.size >= MAX_MEMO) memo.bodies.clear();
    memo.bodies.set(memory.sha256, text);
  }
  return text;
}

/** The topics of one stream from `index.json` (written by the build); read again only when the file changed. Empty without one. */
export function topicsOf(vault: ReadVault, stream: string): IndexTopic[] {
  const memo = memoOf(vault);
  const file = path.join(vault.vaultDir, vaultPaths.indexJson);
  let stamp = 'none';
  try {
    const stat = statSync(file);
    stamp = `${stat.size}:${stat.mtimeMs}`;
  } catch {
    // No index yet: no topics.
  }
  if (memo.topics?.stamp !== stamp) {
    const byStream = new Map<string, IndexTopic[]>();
    try {
      const parsed = indexFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      for (const stream of parsed.success ? (parsed.data.streams ?? []) : []) {
        const named = indexStream.safeParse(stream);
        if (!named.success) continue;
        const topics: IndexTopic[] = [];
        for (const topic of named.data.topics) {
          const checked = indexTopic.safeParse(topic);
          if (checked.success) topics.push({ period: checked.data.period, path: checked.data.path, terms: checked.data.terms });
        }
        byStream.set(named.data.name, topics);
      }
    } catch {
      // Unreadable or not JSON: no topics until the next build writes it again.
    }
    memo.topics = { stamp, byStream };
  }
  return memo.topics.byStream.get(stream) ?? [];
}
