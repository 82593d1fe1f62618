import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { LEGACY_FOLDED_LOG, LEGACY_USAGE_LOG } from './legacy-usage-log.js';

/**
 * The files the state store replaces (paths in `.memvault/`), and what is
 * carried over from them on the store's first open. Carried over: what costs
 * more than time to rebuild, as it is (each store checks its rows when it
 * reads them) —
 * - `uncommitted.json`, the record of outputs not committed yet (project/pending.ts);
 * - `facts-check.json`, the judge's answers (each one was a paid model call);
 * - `embeddings/*.bin`, the vectors (each one was an embeddings call).
 * Dropped, rebuilt by the next command that needs them: the parse cache and
 * its derived memo, the session-start answer, the config cache, the record
 * state, the swept folders and the ingest completion records (an ingest
 * without one checks every part of the file once and writes nothing new).
 * The files are removed once the store's transaction that imported them is
 * committed, and at every open after (a process killed in between).
 */
export const OBSOLETE_PATHS = [
  'cache',
  'embeddings',
  'ingested',
  'uncommitted.json',
  'facts-check.json',
  'config-cache.json',
  'record.json',
  'swept-folders.json',
  path.join('hooks', 'session-start.json'),
  // The citations' JSON store (schema 2 moved it into tables): dropped, the next build checks everything once.
  'citations',
  // The usage log (schema 3 moved it into `usage_events`): its uncounted lines carried over (legacy-usage-log.ts).
  LEGACY_USAGE_LOG,
  LEGACY_FOLDED_LOG,
];

export function importLegacyFiles(db: Database.Database, stateDir: string): void {
  const putKv = db.prepare('INSERT OR REPLACE INTO kv (store, key, value) VALUES (?, ?, ?)');
  const pending = readJson(path.join(stateDir, 'uncommitted.json'));
  if (isObject(pending)) putKv.run('pending', 'work', JSON.stringify(pending));
  const checks = readJson(path.join(stateDir, 'facts-check.json'));
  if (isObject(checks) && checks.version === 1 && isObject(checks.answers))
    for (const [key, answer] of Object.entries(checks.answers)) putKv.run('facts-check', key, JSON.stringify(answer));
  importVectors(db, path.join(stateDir, 'embeddings'));
}

/** `<name>.json` (`{ model, dimensions }`) and `<name>.bin` (32-byte hash, then float32 × dimensions, per record). */
function importVectors(db: Database.Database, dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return;
  }
  const putKv = db.prepare('INSERT OR REPLACE INTO kv (store, key, value) VALUES (?, ?, ?)');
  const putVector = db.prepare('INSERT OR REPLACE INTO vectors (model, sha256, vector) VALUES (?, ?, ?)');
  for (const name of names) {
    const stem = name.slice(0, -'.json'.length);
    const meta = readJson(path.join(dir, name));
    if (!isObject(meta) || typeof meta.model !== 'string' || !Number.isInteger(meta.dimensions) || (meta.dimensions as number) <= 0)
      continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(dir, `${stem}.bin`));
    } catch {
      continue;
    }
    putKv.run('vectors', stem, JSON.stringify({ model: meta.model, dimensions: meta.dimensions }));
    const record = 32 + (meta.dimensions as number) * 4;
    // A torn last record (a crash while appending) is left out.
    for (let at = 0; at + record <= bytes.length; at += record)
      putVector.run(stem, bytes.subarray(at, at + 32), bytes.subarray(at + 32, at + record));
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
