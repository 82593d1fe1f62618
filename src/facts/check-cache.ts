import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import { writeFileAtomic } from '../util/atomic.js';

/**
 * The answers of `memvault facts --check`, kept in `.memvault/facts-check.json`
 * per pair of content hashes and per judge (model and prompt): a rerun asks
 * nothing, an edit to one memory asks again only about its pairs, and another
 * model or prompt asks again about everything. A pure codec and two small
 * I/O functions; the file is written atomically.
 */

/** A model's verdict on one pair. */
export interface CheckAnswer {
  contradicts: boolean;
  /** 0 to 1, as the model said it. */
  confidence: number;
  /** One line. */
  reason: string;
}

/** A verdict with the judge that gave it (`<model>@<prompt hash>`). */
export interface CachedAnswer extends CheckAnswer {
  judge: string;
}

const CACHE_VERSION = 1;

/** What a verdict looks like, in the cache and in a model's answer. */
export const answerSchema = z.object({
  contradicts: z.boolean(),
  confidence: z.number().min(0).max(1),
  reason: z.string(),
});

const cacheSchema = z.object({
  version: z.literal(CACHE_VERSION),
  answers: z.record(z.string(), answerSchema.extend({ judge: z.string() })),
});

/** The cache file of a project. */
export const checkCachePath = (root: string): string => path.join(root, '.memvault', 'facts-check.json');

/** The cache as text: keys sorted, so the file changes only where answers do. */
export function encodeCheckCache(answers: ReadonlyMap<string, CachedAnswer>): string {
  const sorted = [...answers].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return `${JSON.stringify({ version: CACHE_VERSION, answers: Object.fromEntries(sorted) }, null, 1)}\n`;
}

/** Reads the cache text back; undefined when it is not a cache of this version. */
export function decodeCheckCache(text: string): Map<string, CachedAnswer> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = cacheSchema.safeParse(raw);
  return parsed.success ? new Map(Object.entries(parsed.data.answers)) : undefined;
}

/** The cached answers, empty when there is no cache; an unreadable one is reported and starts over. */
export function readCheckCache(root: string): { answers: Map<string, CachedAnswer>; problem?: Diagnostic } {
  const file = checkCachePath(root);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { answers: new Map() };
  }
  const answers = decodeCheckCache(text);
  if (answers) return { answers };
  const place = { path: path.relative(root, file).split(path.sep).join('/'), line: 1, column: 1 };
  return { answers: new Map(), problem: diagnostic('fact/check-cache', place, 'not a cache of facts --check answers: starting over') };
}

/** Writes the cache atomically (creating `.memvault/` if needed). */
export function writeCheckCache(root: string, answers: ReadonlyMap<string, CachedAnswer>): void {
  const file = checkCachePath(root);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, encodeCheckCache(answers));
}
