import { allowlistMatcher, findSecrets, type SecretPolicy } from '../redact/detect.js';
import type { Diagnostic } from './model.js';
import { diagnostic } from '../messages/diagnostic.js';

/**
 * The secret check of a memory file, part of reading it: the parse records
 * what the detector finds in the whole file (frontmatter too, lines marked
 * `memvault:allow-secret` left out), and the loader holds back a memory with
 * a secret its config does not allow. Held back, a memory is not in the
 * vault state: no summary, package, index or LLM request sees it, and the
 * commit step never pins it. The allowlist is applied at load, not at parse,
 * so the parse cache does not depend on the config.
 */

/** A secret found in a memory file, as the parse cache keeps it. */
export interface MemorySecret {
  kind: string;
  line: number;
  column: number;
  /** The text found: what `secrets.allow` is matched against. */
  secret: string;
}

/** `{ secrets }` for a memory file holding secrets, else `{}` (spread into its parse result). */
export function memorySecrets(bytes: Uint8Array): { secrets?: MemorySecret[] } {
  const found = findSecrets(Buffer.from(bytes).toString('utf8'));
  if (found.length === 0) return {};
  return { secrets: found.map(({ kind, line, column, secret }) => ({ kind, line, column, secret })) };
}

/** One diagnostic per secret `policy` does not allow; none: the memory is used. */
export function heldBackDiagnostics(path: string, secrets: readonly MemorySecret[] | undefined, policy: SecretPolicy = {}): Diagnostic[] {
  if (!secrets || secrets.length === 0) return [];
  const allowed = allowlistMatcher(policy.allow ?? []);
  return secrets
    .filter((s) => !allowed(s.secret))
    .map((s) => {
      const reason = `secret in a memory (${s.kind}): the memory is held back from summaries, the package, LLM requests and commits`;
      return diagnostic(`secret/${s.kind}`, { path, line: s.line, column: s.column }, reason, { facts: { path } });
    });
}
