import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { VaultIndex } from './vault-index.js';

/**
 * Reading `vault/index.json` back: a committed file, so it may come from a
 * clone, a merge or a person's edit. It is checked against the shape
 * `buildIndex` writes before the build reuses its topics or the site shows it;
 * one that is missing, not JSON or not of that shape reads as none (the next
 * build writes it anew: its input hash no longer matches).
 */

const streamIndexSchema = z.object({
  name: z.string(),
  memories: z.object({ total: z.number(), archived: z.number(), pinned: z.number() }),
  coverage: z.object({ first_day: z.string().nullable(), last_day: z.string().nullable(), days_with_memories: z.number() }),
  package: z.object({ path: z.string(), tokens: z.number(), bytes: z.number(), max_tokens: z.number(), max_bytes: z.number() }).nullable(),
  summaries: z.array(
    z.object({
      tier: z.string(),
      period: z.string(),
      path: z.string(),
      start: z.string(),
      end: z.string(),
      tokens: z.number(),
      bytes: z.number(),
      sources: z.number(),
      memories: z.number(),
      generator: z.string(),
      flags: z.array(z.string()),
    }),
  ),
  topics: z.array(z.object({ tier: z.string(), period: z.string(), path: z.string(), terms: z.array(z.string()) })),
  topics_hash: z.string(),
  review: z.array(z.object({ path: z.string(), kind: z.string(), reason: z.string() })),
});

const vaultIndexSchema = z.object({
  memvault: z.literal('index'),
  streams: z.array(streamIndexSchema),
  // Written for people and tools; memvault never reads the diagnostics back.
  invalid: z.array(z.unknown()),
  input_hash: z.string(),
});

/** The index file at `file` when it has the shape memvault writes, else undefined. */
export function readVaultIndex(file: string): VaultIndex | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = vaultIndexSchema.safeParse(raw);
  // Checked above but for two fields read back as plain strings: `review[].kind` (a union in the type; an unknown kind
  // from a newer memvault is shown as it is) and `invalid` (never read).
  return parsed.success ? (parsed.data as VaultIndex) : undefined;
}
