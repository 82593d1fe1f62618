import { readdirSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { Config } from '../config/schema.js';
import { noSuchStream } from '../read/stream-error.js';
import { InputError } from './input.js';

/**
 * Fields several operations share, so `stream`, `budget` and `period` are
 * checked (and described to MCP clients) the same way everywhere.
 */

export const streamField = z.string().min(1).optional().describe('stream (default: the first of the config)');

/** A token budget: below `min` nothing useful fits (the headings alone take tens of tokens). */
export const budgetField = (min: number, what: string) => z.number().int().min(min).max(200_000).optional().describe(what);

/** Smallest budget `context` and `zoom` take. */
export const MIN_BUDGET = 100;

export const periodField = z
  .string()
  .min(1)
  .describe('a day, ISO week, month, quarter, A..B range or phrase (2026-02-13, 2026-W07, last week)');

/** A diagnostic of a file, as --json reports write them (messages/diagnostic.ts). */
export const diagnosticSchema = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  severity: z.string(),
  reason: z.string(),
  hint: z.string().optional(),
  rule: z.string(),
});

/**
 * The streams a search may name without loading the vault: those the config
 * declares and the folders of the vault folder.
 */
export function knownStreams(root: string, config: Config): string[] {
  const names = new Set(Object.keys(config.streams));
  try {
    for (const entry of readdirSync(path.resolve(root, config.vault), { withFileTypes: true }))
      if (entry.isDirectory() && !entry.name.startsWith('.')) names.add(entry.name);
  } catch {
    // No vault folder yet: only the declared streams.
  }
  return [...names];
}

/** Refuses a stream that is not among `known`, in the words zoom and context use. */
export function checkStreams(names: readonly string[], known: readonly string[]): void {
  for (const name of names) if (!known.includes(name)) throw new InputError(noSuchStream(name, known));
}

const CITATION_STATES = ['verified', 'changed', 'moved', 'gone', 'unchecked'] as const;

/** What a memory cites and how it stood at the last check (src/citations/model.ts `MemoryCitations`), on search hits and zoom memories. */
export const citationsField = z
  .object({
    state: z.enum(CITATION_STATES),
    stale: z.boolean(),
    checked: z.object({ commit: z.string(), at: z.string() }),
    citations: z.array(
      z.object({
        kind: z.enum(['path', 'commit', 'branch', 'issue']),
        target: z.string(),
        state: z.enum(CITATION_STATES),
        detail: z.string().optional(),
        since: z.number().optional(),
        to: z.string().optional(),
      }),
    ),
  })
  .optional()
  .describe('what the memory cites and how it stood against the repository at the last check (`memvault verify`)');
