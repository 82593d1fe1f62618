import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import * as z from 'zod';
import { CALENDAR_TIERS } from '../../time/tiers.js';
import type { Manifest } from './model.js';

/**
 * Reading a package's manifest (`<stream>/UPLOAD_PACKAGE.manifest.json`) back: it is a committed file, so it may come
 * from a clone, a merge or a person's edit, and is checked against the shape `assemble` writes before a build or
 * `status` uses it. A manifest that is missing, not JSON or not of that shape reads as none (the build writes it anew).
 */

const day = z.string();
const manifestSchema = z.object({
  memvault: z.literal('manifest'),
  stream: z.string(),
  budget: z.object({ max_tokens: z.number(), max_bytes: z.number() }),
  tokens: z.number(),
  bytes: z.number(),
  bands: z.object({ today: day, rawFrom: day, dailyFrom: day, weeklyFrom: day, monthlyFrom: day, longtermThrough: z.string() }),
  coverage: z.object({ first_day: day.nullable(), last_day: day, days_with_memories: z.number(), days_covered: z.number() }),
  items: z.array(
    z.object({
      type: z.enum(['pinned', 'summary', 'memory']),
      tier: z.enum(['raw', ...CALENDAR_TIERS]),
      id: z.string(),
      path: z.string(),
      start: z.string(),
      end: z.string(),
      status: z.enum(['included', 'degraded', 'left-out']),
      reason: z.string().optional(),
      dropped: z.array(z.string()).optional(),
    }),
  ),
  forgotten: z.array(z.string()).optional(),
  duplicates: z.array(z.object({ id: z.string(), duplicate_of: z.string() })).optional(),
  facts: z.object({ contradictions: z.array(z.string()), in_force: z.number(), shown: z.number() }).optional(),
  input_hash: z.string(),
}) satisfies z.ZodType<Manifest>;

/** The manifest in `file`, or undefined when it is missing, not JSON or not a manifest. */
export function readManifestFile(file: string): Manifest | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = manifestSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** How much of a manifest's end `readManifestInputHash` reads: its last key, `input_hash`, with room for spacing. */
const TAIL_BYTES = 512;

/**
 * The `input_hash` a manifest ends with (`assemble` writes it last), read from the file's last bytes; undefined when
 * there is no file or its end does not look so. A hint only: a hash that differs from the package's inputs means the
 * package is stale without reading the rest (a busy day's manifest is ~30 MB of JSON: reading and checking it took
 * ~0.16 s of the build that finds it stale); a manifest taken as current is always read whole and checked
 * (`readManifestFile`).
 */
export function readManifestInputHash(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = fstatSync(fd);
    const length = Math.min(size, TAIL_BYTES);
    const tail = Buffer.alloc(length);
    const read = readSync(fd, tail, 0, length, size - length);
    return /"input_hash"\s*:\s*"([0-9a-f]{64})"\s*\}\s*$/.exec(tail.subarray(0, read).toString('latin1'))?.[1];
  } finally {
    closeSync(fd);
  }
}
