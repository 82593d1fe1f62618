import type { Memory } from '../vault/model.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { readVaultFile } from '../vault/scan.js';
import { DUPLICATE_THRESHOLD, type DuplicateGroup, type DuplicateInput, findDuplicates } from './duplicates.js';

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
  for (const memory of memories) {
    // The loader read the mark already (`duplicate_of`); the body is cut off the frontmatter without parsing the YAML again.
    if (memory.duplicateOf !== undefined) {
      alreadyMarked++;
      continue;
    }
    const read = readVaultFile(vaultDir, memory.path, inside);
    if (!read.ok) continue;
    const text = frontmatterBody(read.bytes.toString('utf8'));
    inputs.push({ id: memory.id, path: memory.path, day: memory.day, importance: memory.importance, text });
  }
  return { stream, threshold, groups: findDuplicates(inputs, threshold, minShingles), alreadyMarked };
}
