import { UserError } from '../util/errors.js';
import { addToFrontmatter } from '../vault/frontmatter-edit.js';
import type { Contradiction, Fact } from '../vault/fact-model.js';

/**
 * `memvault resolve`: a person's decision about a contradiction, recorded in
 * the memories' own frontmatter as a normal edit (the next build commits it).
 * Nothing is deleted and the body of the file is kept byte for byte:
 *
 * - keep a: `supersedes: [<b's memory id>]` on a's memory (b stops holding when a starts);
 * - keep b: the same on b's memory;
 * - keep both: `compatible_with: [<other id>]` on both (they hold together, e.g. different contexts).
 *
 * A note goes to `resolution_notes` of the memory written to. Planning is
 * pure (`planResolution`); the command writes the planned files.
 */

export type Keep = 'a' | 'b' | 'both';

export interface FileEdit {
  /** Vault-relative path. */
  path: string;
  /** What is added, for the report: `supersedes: b-id`. */
  change: string;
}

export interface ResolutionPlan {
  contradiction: Contradiction;
  keep: Keep;
  edits: (FileEdit & { apply(raw: string): string })[];
}

export function planResolution(contradiction: Contradiction, keep: Keep, note: string | undefined, today: string): ResolutionPlan {
  const { a, b } = contradiction;
  if (a.memoryId === b.memoryId) {
    throw new UserError('fact/same-memory', `both facts of ${contradiction.id} are in ${a.path} (lines ${a.line} and ${b.line})`, {
      path: a.path,
    });
  }
  const noteFor = (other: Fact, verb: string) => (note ? `${today}: ${verb} ${other.memoryId}: ${note}` : undefined);
  const edit = (target: Fact, key: 'supersedes' | 'compatible_with', other: Fact, verb: string) => ({
    path: target.path,
    change: `${key}: ${other.memoryId}`,
    apply: (raw: string) => addToFrontmatter(raw, key, other.memoryId, noteFor(other, verb)),
  });
  const edits =
    keep === 'a'
      ? [edit(a, 'supersedes', b, 'kept over')]
      : keep === 'b'
        ? [edit(b, 'supersedes', a, 'kept over')]
        : [edit(a, 'compatible_with', b, 'holds together with'), edit(b, 'compatible_with', a, 'holds together with')];
  return { contradiction, keep, edits };
}
