import path from 'node:path';
import * as z from 'zod';
import { STATE_DIR } from '../config/file.js';
import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import { openStateStore, STATE_FILE } from '../store/database.js';
import { kvTable } from '../store/kv.js';

/**
 * The answers of `memvault facts --check`, kept in the state store
 * (`.memvault/state.sqlite`, the `facts-check` rows of `kv`) per pair of
 * content hashes and per judge (model and prompt): a rerun asks nothing, an
 * edit to one memory asks again only about its pairs, and another model or
 * prompt asks again about everything.
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

/** What a verdict looks like, in the cache and in a model's answer. */
export const answerSchema = z.object({
  contradicts: z.boolean(),
  confidence: z.number().min(0).max(1),
  reason: z.string(),
});

const cachedAnswerSchema = answerSchema.extend({ judge: z.string() });

const STORE = 'facts-check';

/** The store's rows, each checked when read (`undefined` for a row that is not an answer). */
function answersTable(root: string) {
  return kvTable<CachedAnswer | null>(openStateStore(path.join(root, STATE_DIR)), STORE, (raw) => {
    const parsed = cachedAnswerSchema.safeParse(raw);
    return parsed.success ? parsed.data : null;
  });
}

/** The cached answers, empty when there are none; rows that are not answers are reported and dropped. */
export function readCheckCache(root: string): { answers: Map<string, CachedAnswer>; problem?: Diagnostic } {
  const answers = new Map<string, CachedAnswer>();
  let bad = 0;
  for (const [key, answer] of answersTable(root).entries()) {
    if (answer) answers.set(key, answer);
    else bad++;
  }
  if (bad === 0) return { answers };
  const place = { path: `${STATE_DIR}/${STATE_FILE}`, line: 1, column: 1 };
  return { answers, problem: diagnostic('fact/check-cache', place, `${bad} cached facts --check answer(s) are not answers: asking again`) };
}

/** Replaces the cached answers with `answers`, in one transaction. */
export function writeCheckCache(root: string, answers: ReadonlyMap<string, CachedAnswer>): void {
  const store = openStateStore(path.join(root, STATE_DIR));
  const table = answersTable(root);
  store.transaction(() => {
    table.clear();
    for (const [key, answer] of answers) table.set(key, answer);
  });
}
