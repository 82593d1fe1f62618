import type { Memory } from '../vault/model.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { readVaultFile } from '../vault/scan.js';
import { DUPLICATE_THRESHOLD, type DuplicateGroup, type DuplicateInput, findDuplicates, valuesOf } from './duplicates.js';

/**
 * `memvault consolidate`: near-duplicates among a stream's memories. Memories
 * already marked `duplicate_of` are left out (they were merged before); the
 * edits are `duplicate_of: <kept id>` on the others, which stay in place.
 */
export interface ConsolidationPlan {
  stream: string;
  threshold: number;
  groups: DuplicateGroup[];
  /** Memories marked earlier, for the report. */
  alreadyMarked: number;
  /**
   * Marks that hide another value: a memory marked `duplicate_of` a memory that
   * states other numbers, dates or identifiers (a mark made by hand, or by a
   * version of `consolidate` that compared words only). Summaries leave the
   * marked one out, so its value is lost from them: the report names each,
   * with the values only the marked memory states, for a person to unmark.
   */
  hidingValues: { id: string; path: string; duplicate_of: string; values: string[] }[];
}

export function planConsolidation(
  vaultDir: string,
  stream: string,
  memories: readonly Memory[],
  threshold = DUPLICATE_THRESHOLD,
  minShingles = 1,
): ConsolidationPlan {
  const inputs: DuplicateInput[] = [];
  let alreadyMarked = 0;
  const inside = new Map<string, boolean>();
  const texts = new Map<string, string | undefined>();
  const textOf = (memory: Memory): string | undefined => {
    if (!texts.has(memory.id)) {
      const read = readVaultFile(vaultDir, memory.path, inside);
      // The loader read the mark already (`duplicate_of`); the body is cut off the frontmatter without parsing the YAML again.
      texts.set(memory.id, read.ok ? frontmatterBody(read.bytes.toString('utf8')) : undefined);
    }
    return texts.get(memory.id);
  };
  const marked: Memory[] = [];
  for (const memory of memories) {
    if (memory.duplicateOf !== undefined) {
      alreadyMarked++;
      marked.push(memory);
      continue;
    }
    const text = textOf(memory);
    if (text === undefined) continue;
    inputs.push({ id: memory.id, path: memory.path, day: memory.day, importance: memory.importance, text });
  }
  const byId = new Map(memories.map((memory) => [memory.id, memory]));
  const hidingValues: ConsolidationPlan['hidingValues'] = [];
  for (const copy of marked) {
    const kept = byId.get(copy.duplicateOf!);
    const [copyText, keptText] = [textOf(copy), kept && textOf(kept)];
    if (copyText === undefined || keptText === undefined) continue;
    const keptValues = valuesOf(keptText);
    const only = [...valuesOf(copyText)].filter((value) => !keptValues.has(value)).sort();
    if (only.length > 0) hidingValues.push({ id: copy.id, path: copy.path, duplicate_of: kept!.id, values: only });
  }
  return { stream, threshold, groups: findDuplicates(inputs, threshold, minShingles), alreadyMarked, hidingValues };
}
