import path from 'node:path';
import type Database from 'better-sqlite3';
import { addonOption, STATE_FILE, sqlite } from '../store/sqlite.js';
import { requireLazy } from '../util/lazy.js';
import type { CitationState } from '../vault/citation-model.js';

/**
 * The reading side of the cited-by index (the `cited_by` table of
 * `.memvault/state.sqlite`, written by store.ts), kept apart from the store's
 * writers so that the pre-tool hook loads nothing but this file, the SQLite
 * driver and Node's own modules: per cited path (a folder ends with `/`), the
 * memories citing it; the `kv` row `citations/cited-by` names the repository
 * and the vault folder. The hook reads the rows of a file and its folders by
 * their key, not an index of every citation.
 *
 * No zod here: loading it (zod/mini and its core, ~180 kB) took ~20 ms of CPU,
 * half of what the hook cost above Node's own start; rows are checked by hand
 * (`decodeCitedEntries`), as kv.ts allows where zod costs more than it saves.
 */

/** A memory citing a path, as the pre-tool hook lists it. */
export interface CitedEntry {
  /** Vault path of the memory. */
  m: string;
  day: string;
  kind: string;
  title: string;
  /** The citation's state and its one-line detail. */
  state: CitationState;
  detail?: string;
  /** The symbol the memory names next to the path, in backticks. */
  quote?: string;
}

/** The cited-by index: the repository and vault folder the paths are relative to, and the memories citing each path. */
export interface CitedByIndex {
  /** Top folder of the repository (cited paths are relative to it). */
  repo: string;
  /** The vault folder relative to the project root (memory paths are relative to it). */
  vault: string;
  files: Record<string, CitedEntry[]>;
}

/** Where the index's repository and vault folder are kept (`kv` table, store and key). */
export const CITED_BY_META = { store: 'citations', key: 'cited-by' } as const;

const STATES: ReadonlySet<string> = new Set<CitationState>(['verified', 'changed', 'moved', 'gone', 'unchecked']);

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/** A row's entries, or undefined when it is not a list of entries (a row that does not decode is as good as missing). */
export function decodeCitedEntries(raw: unknown): CitedEntry[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  for (const value of raw) {
    if (!value || typeof value !== 'object') return undefined;
    const e = value as Record<string, unknown>;
    if (!isString(e.m) || !isString(e.day) || !isString(e.kind) || !isString(e.title)) return undefined;
    if (!isString(e.state) || !STATES.has(e.state) || !isOptionalString(e.detail) || !isOptionalString(e.quote)) return undefined;
  }
  return raw as CitedEntry[];
}

/** The index's repository and vault folder, or undefined when the row is missing or not one. */
export function decodeCitedByMeta(raw: unknown): { repo: string; vault: string } | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { repo, vault } = raw as Record<string, unknown>;
  return isString(repo) && isString(vault) ? { repo, vault } : undefined;
}

/**
 * The memories citing each of the paths `pathsOf(repo)` gives (repository-relative; folders end with `/`), from the
 * last build; undefined when there is no index. Only the rows asked for are read and checked.
 */
export function readCitedBy(
  db: Database.Database,
  pathsOf: (repo: string) => readonly string[],
): { repo: string; vault: string; found: Map<string, CitedEntry[]> } | undefined {
  const metaRow = db.prepare('SELECT value FROM kv WHERE store = ? AND key = ?').get(CITED_BY_META.store, CITED_BY_META.key) as
    | { value: string }
    | undefined;
  const meta = metaRow ? decodeCitedByMeta(parseJson(metaRow.value)) : undefined;
  if (!meta) return undefined;
  const found = new Map<string, CitedEntry[]>();
  const select = db.prepare('SELECT entries FROM cited_by WHERE path = ?');
  for (const key of pathsOf(meta.repo)) {
    const row = select.get(key) as { entries: string } | undefined;
    const entries = row ? decodeCitedEntries(parseJson(row.entries)) : undefined;
    if (entries) found.set(key, entries);
  }
  return { ...meta, found };
}

/**
 * A connection of its own to `<stateDir>/state.sqlite` for the pre-tool hook, or undefined when there is no such file
 * (no build yet: nothing to say, and not the hook's to create). Not through `openStateStore`: no migration, no
 * module beyond the driver. The driver is the bundle's own copy of better-sqlite3's JavaScript when the native addon
 * is where npm builds it (dist/bin/vendor/: one file, ~12 ms less than its 13 files from node_modules on the busy
 * machine), else node_modules' as everywhere else. Waits at most `busyMs` for a writer (a build) before giving up.
 */
export function openHookDatabase(stateDir: string, busyMs: number): Database.Database | undefined {
  const addon = addonOption();
  const Driver = addon.nativeBinding ? (requireLazy('better-sqlite3') as typeof Database) : sqlite();
  try {
    return new Driver(path.join(stateDir, STATE_FILE), { ...addon, fileMustExist: true, timeout: busyMs });
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
