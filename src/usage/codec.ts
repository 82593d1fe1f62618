/**
 * `vault/<stream>/usage.json`, format and parse (a pair, tested together).
 *
 * The file is a JSON object written one line per id, sorted, every entry line
 * ending in a comma and closed by a fixed last entry (`"#": …`):
 *
 *     {
 *     "2026/02/2026-02-13-auth": {"3f9c2a71": [7, "2026-11-20T10:00:00.000Z"]},
 *     "daily/2026-02-13.md": {"3f9c2a71": [2, "2026-11-21T08:00:00.000Z"], "b04e11d2": [1, "2026-11-22T09:30:00.000Z"]},
 *     "#": "usage counts: one line per id, {clone: [count, last used]}; merged by line (merge=union)"
 *     }
 *
 * Each clone (`replica`) only ever raises its own count, so the true total of
 * an id is the sum over clones of each clone's highest count: a grow-only
 * counter. Two clones that counted the same id change the same line; git's
 * `merge=union` driver keeps both lines, and reading takes, per clone, the
 * higher of the two — nothing lost, nothing counted twice. Since every entry
 * ends in a comma and the first and last lines never change, any union of
 * lines is still valid JSON; the next build writes it back one line per id.
 */

/** Per clone: how many times an id was served there, and when last. */
export type ReplicaCounts = Map<string, { count: number; last: string }>;
/** Key (memory id, or a summary's path inside its stream) → per-clone counts. */
export type UsageFile = Map<string, ReplicaCounts>;

export const USAGE_SENTINEL = '"#": "usage counts: one line per id, {clone: [count, last used]}; merged by line (merge=union)"';

/** The text of a usage file: ids sorted, clones sorted inside a line. */
export function formatUsageFile(file: UsageFile): string {
  const lines = ['{'];
  for (const key of [...file.keys()].sort()) {
    const replicas = file.get(key)!;
    if (replicas.size === 0) continue;
    const value = [...replicas.keys()]
      .sort()
      .map((r) => `${JSON.stringify(r)}: [${replicas.get(r)!.count}, ${JSON.stringify(replicas.get(r)!.last)}]`);
    lines.push(`${JSON.stringify(key)}: {${value.join(', ')}},`);
  }
  lines.push(USAGE_SENTINEL, '}');
  return `${lines.join('\n')}\n`;
}

/**
 * Reads a usage file line by line, so a file two merges left with the same
 * id twice (or in any order) reads as their union: per clone, the higher
 * count and the later time. Lines that do not parse are skipped.
 */
export function parseUsageFile(text: string): UsageFile {
  const file: UsageFile = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(/,$/, '');
    if (!line.startsWith('"')) continue;
    let entry: unknown;
    try {
      // Parsed inside braces, a line can only be an object; each value is checked below.
      entry = JSON.parse(`{${line}}`);
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    for (const [key, value] of Object.entries(entry)) {
      if (key === '#' || value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const [replica, counts] of Object.entries(value as Record<string, unknown>)) {
        if (!Array.isArray(counts) || typeof counts[0] !== 'number' || !Number.isFinite(counts[0])) continue;
        addReplica(file, key, replica, { count: counts[0], last: typeof counts[1] === 'string' ? counts[1] : '' });
      }
    }
  }
  return file;
}

/** Sets a clone's count of an id to the higher of the two (grow-only). */
export function addReplica(file: UsageFile, key: string, replica: string, counts: { count: number; last: string }): void {
  const replicas = file.get(key) ?? new Map();
  const old = replicas.get(replica);
  replicas.set(replica, {
    count: Math.max(old?.count ?? 0, counts.count),
    last: old && old.last > counts.last ? old.last : counts.last,
  });
  file.set(key, replicas);
}

/** What an id adds up to over all clones. */
export interface UsageCount {
  count: number;
  /** ISO instant of the latest use on any clone. */
  lastUsed: string;
}

/** Totals per id: counts summed over clones, the latest time. */
export function usageTotals(file: UsageFile): Map<string, UsageCount> {
  const out = new Map<string, UsageCount>();
  for (const [key, replicas] of file) {
    let count = 0;
    let lastUsed = '';
    for (const r of replicas.values()) {
      count += r.count;
      if (r.last > lastUsed) lastUsed = r.last;
    }
    out.set(key, { count, lastUsed });
  }
  return out;
}
