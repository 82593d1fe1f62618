import { parseFrontmatter } from '../vault/frontmatter.js';
import type { Memory } from '../vault/model.js';
import { readVaultFile } from '../vault/scan.js';

/**
 * The full transcript behind a distilled coding-agent session: `memvault
 * ingest` writes it to `<stream>/transcripts/<session>.md` and names it in the
 * memory's frontmatter (`transcript:`). Read only from that folder of the
 * memory's own stream (a `transcript:` pointing anywhere else is ignored),
 * safely like any vault file.
 */
export interface Transcript {
  /** Vault-relative path. */
  path: string;
  text: string;
}

const TRANSCRIPT = /^transcripts\/[\w.-]+\.md$/;

export function transcriptOf(vaultDir: string, memory: Memory): Transcript | undefined {
  const read = readVaultFile(vaultDir, memory.path);
  if (!read.ok) return undefined;
  const named = parseFrontmatter(read.bytes.toString('utf8')).data.transcript;
  if (typeof named !== 'string' || !TRANSCRIPT.test(named)) return undefined;
  const path = `${memory.stream}/${named}`;
  const transcript = readVaultFile(vaultDir, path);
  return transcript.ok ? { path, text: transcript.bytes.toString('utf8').trim() } : undefined;
}
