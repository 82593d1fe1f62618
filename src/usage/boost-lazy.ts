import { readFileSync } from 'node:fs';
import path from 'node:path';
import { usageFactor } from './boost.js';
import { addReplica, parseUsageFile, type UsageFile } from './codec.js';
import { addEvents, readLocalState, usageKey, usagePath, type LocalState } from './fold.js';
import { readUsageLog, usageStore } from './log.js';

/**
 * The search boost for a process that asks once (the CLI): `usageBoostFor`'s
 * answer for every path, parsing only the `usage.json` lines of the ids it is
 * asked about. A search consults at most a few hundred ranked documents,
 * while parsing a whole usage file of 1,100 lines was ~15 ms of a CLI search
 * (and grows with the vault: one line per id ever served).
 *
 * Exactly what the whole parse gives, because `parseUsageFile` is a union over
 * lines (per clone, the higher count): an id's counts come from the lines that
 * can define it. A line is indexed under its key when it is plainly one entry
 * (`plainKey`); every other line that starts with a quote is parsed whole once
 * and merged in.
 */

interface LineIndex {
  /** Key → the plain one-entry lines of that key. */
  byKey: Map<string, string[]>;
  /** What the other lines hold (parsed whole). */
  rest: UsageFile;
  /** Lines in file order, for the emptiness check. */
  lines: string[];
}

/**
 * The key of a plain one-entry line: `"key": {` at its start (any spaces around the colon), no backslash, and no other
 * `{` after that one (so no other key has an object value, the only values counted); else undefined.
 */
function plainKey(line: string): string | undefined {
  if (line.includes('\\')) return undefined;
  const close = line.indexOf('"', 1);
  if (close < 0) return undefined;
  let i = close + 1;
  while (line[i] === ' ' || line[i] === '\t') i++;
  if (line[i] !== ':') return undefined;
  i++;
  while (line[i] === ' ' || line[i] === '\t') i++;
  if (line[i] !== '{' || line.includes('{', i + 1)) return undefined;
  return line.slice(1, close);
}

function indexLines(text: string): LineIndex {
  const byKey = new Map<string, string[]>();
  const other: string[] = [];
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(/,$/, '');
    if (!line.startsWith('"')) continue;
    lines.push(line);
    const key = plainKey(line);
    if (key !== undefined) {
      const list = byKey.get(key);
      if (list) list.push(line);
      else byKey.set(key, [line]);
    } else other.push(line);
  }
  return { byKey, rest: parseUsageFile(other.join('\n')), lines };
}

/** True when the whole parse would give at least one id (lines parsed in order until one does). */
function hasEntry(index: LineIndex): boolean {
  if (index.rest.size > 0) return true;
  return index.lines.some((line) => parseUsageFile(line).size > 0);
}

/** What `usageTotals(readUsageFile(…)).get(key)?.count` gives: per clone the higher count, the local clone's included. */
function countOf(index: LineIndex, state: LocalState, stream: string, key: string): number {
  const file = parseUsageFile((index.byKey.get(key) ?? []).join('\n'));
  for (const [replica, counts] of index.rest.get(key) ?? []) addReplica(file, key, replica, counts);
  const local = state.counts[stream]?.[key];
  if (local) addReplica(file, key, state.replica, { count: local[0], last: local[1] });
  let count = 0;
  for (const replica of file.get(key)?.values() ?? []) count += replica.count;
  return count;
}

/**
 * `usageBoostFor(root, vaultDir, streams)`, with each stream's `usage.json` parsed only for the ids asked about; undefined
 * when nothing was ever used, as there.
 */
export function usageBoostLazy(root: string, vaultDir: string, streams: readonly string[]): ((docPath: string) => number) | undefined {
  // One read transaction: the fold state and the log as one snapshot (a fold commits both or neither).
  const state = usageStore(root).db.transaction(() => {
    const local = readLocalState(root);
    addEvents(local.counts, readUsageLog(root, local.through).events);
    return local;
  })();
  const files = new Map<string, LineIndex>();
  for (const stream of streams) {
    let text = '';
    try {
      text = readFileSync(path.join(vaultDir, usagePath(stream)), 'utf8');
    } catch {
      // Never folded yet.
    }
    files.set(stream, indexLines(text));
  }
  const used = [...files].some(([stream, index]) => Object.keys(state.counts[stream] ?? {}).length > 0 || hasEntry(index));
  if (!used) return undefined;
  const factors = new Map<string, number>();
  return (docPath) => {
    const stream = docPath.slice(0, docPath.indexOf('/'));
    const index = files.get(stream);
    const key = index && usageKey(docPath);
    if (!key) return 1;
    const known = factors.get(docPath);
    if (known !== undefined) return known;
    const factor = usageFactor(countOf(index, state, stream, key));
    factors.set(docPath, factor);
    return factor;
  };
}
