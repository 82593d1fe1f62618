import { ingest, type FileReport } from '../ingest/ingest.js';
import type { IngestFormat } from '../ingest/session.js';
import { readConfig } from '../read/vault.js';
import { UserError } from '../util/errors.js';
import type { HookInput } from './input.js';

/**
 * `memvault hook pre-compact` and `session-end`: the session's transcript
 * (`transcript_path`) imported with the ingest every transcript goes
 * through (secrets redacted, sub-agent side chains left out, idempotent by
 * content hash: the same transcript twice writes nothing; a transcript that
 * grew replaces its memory unless a person edited it).
 */

export interface IngestHookOptions {
  root: string;
  input: HookInput;
  stream?: string;
  /** The transcript's format (default Claude Code's): the agent that ran the hook (hooks/agents.ts). */
  format?: IngestFormat;
}

export async function ingestTranscript(options: IngestHookOptions): Promise<FileReport> {
  const file = options.input.transcript_path;
  if (!file) throw new UserError('hook/input', 'the hook input has no transcript_path');
  const config = await readConfig(options.root);
  const stream = options.stream ?? config.hooks.stream;
  const report = await ingest({
    root: options.root,
    cwd: options.input.cwd ?? options.root,
    files: [file],
    format: options.format ?? 'claude-code',
    tags: [options.format ?? 'claude-code'],
    ...(stream ? { stream } : {}),
    redact: true,
  });
  const result = report.files[0]!;
  if (result.status === 'failed') {
    const d = result.diagnostics.find((x) => x.severity === 'error') ?? result.diagnostics[0];
    throw new UserError('hook/ingest', `${file}: not ingested: ${d ? `${d.line}:${d.column} ${d.reason}` : 'unknown reason'}`);
  }
  return result;
}
