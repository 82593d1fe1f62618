import type { Config } from '../config/schema.js';
import { streamFacts } from '../facts/collect.js';
import { holdsOn } from '../facts/timeline.js';
import { todayIn } from '../time/periods.js';
import { usageTotals } from '../usage/codec.js';
import { readUsageFile } from '../usage/read.js';
import type { Memory } from '../vault/model.js';
import { duplicatesOf } from './duplicate-marks.js';
import { decideForgetting, type ForgottenMemory } from './forgetting.js';
import { CappedMemo } from '../util/memo.js';

/**
 * What the package's detail bands and the context's candidates leave out of a
 * stream: copies marked `duplicate_of` (also left out of new summaries) and
 * forgotten memories (still in summaries). Both stay on disk, in zoom and in
 * search. `leftOutOf` is the edge that reads usage counts and times the facts
 * the loader kept on the memories; the decisions are pure.
 */
export interface LeftOut {
  /** Memory id → the id of the memory it repeats. */
  duplicates: ReadonlyMap<string, string>;
  forgotten: readonly ForgottenMemory[];
  /** Ids of both. */
  ids: ReadonlySet<string>;
}

export const NOTHING_LEFT_OUT: LeftOut = { duplicates: new Map(), forgotten: [], ids: new Set() };

// A long-lived process (the MCP server, watch) asks again with the same memories, usage file and day: answer from memory.
const memo = new CappedMemo<string, { memories: readonly Memory[]; usage: unknown; today: string; config: Config; leftOut: LeftOut }>(64);

/**
 * What a stream leaves out on `now`: duplicates, and the memories forgetting
 * picks (see forgetting.ts) from this clone's usage counts; the facts in force
 * are worked out only when a memory holding one would be forgotten.
 *
 * @example
 *   leftOutOf(root, vaultDir, config, stream, new Date()).forgotten.map((m) => m.path)
 */
export function leftOutOf(
  root: string,
  vaultDir: string,
  config: Config,
  stream: { name: string; memories: readonly Memory[] },
  now: Date,
): LeftOut {
  const usageFile = readUsageFile(root, vaultDir, stream.name);
  const today = todayIn(now, config.timezone);
  const key = `${root}\u0000${vaultDir}\u0000${stream.name}`;
  const known = memo.peek(key);
  if (known && known.memories === stream.memories && known.usage === usageFile && known.today === today && known.config === config)
    return known.leftOut;
  const usage = usageTotals(usageFile);
  const duplicates = duplicatesOf(stream.memories);
  let forgotten = decideForgetting(stream.memories, usage, now, config, stream.name, new Set());
  const holders = stream.memories.filter((m) => m.facts !== undefined);
  const holderIds = new Set(holders.map((m) => m.id));
  if (holderIds.size > 0 && forgotten.some((f) => holderIds.has(f.id))) {
    // Facts in force protect their memories; a supersession needs the whole stream's facts to be judged (kept on the memories: no file is read).
    const report = streamFacts(holders);
    const inForce = new Set(report.facts.filter((fact) => holdsOn(fact, today)).map((fact) => fact.memoryId));
    forgotten = decideForgetting(stream.memories, usage, now, config, stream.name, inForce);
  }
  const ids = new Set([...duplicates.keys(), ...forgotten.map((f) => f.id)]);
  const leftOut = ids.size === 0 ? NOTHING_LEFT_OUT : { duplicates, forgotten, ids };
  memo.set(key, { memories: stream.memories, usage: usageFile, today, config, leftOut });
  return leftOut;
}
