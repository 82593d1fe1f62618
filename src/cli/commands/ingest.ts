import path from 'node:path';
import { loadValidConfig } from '../../config/load.js';
import { checkDeclaredStream, declareStream } from '../../project/streams.js';
import { ingest, type FileReport, type IngestReport } from '../../ingest/ingest.js';
import { INGEST_FORMATS, type IngestFormat } from '../../ingest/session.js';
import { describeRedactions } from '../../redact/redact.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';
import { formatDiagnostic } from '../output.js';
import { renderJson } from '../render/json.js';

/** Flags of `memvault ingest` as commander parses them. */
export interface IngestCommandOptions {
  root?: string;
  stream?: string;
  /** `--create-stream`: add an undeclared `--stream` to memory.config.yaml instead of refusing it. */
  createStream?: boolean;
  tag?: string[];
  format?: string;
  primer?: boolean;
  /** Commander's `--no-redact` sets this to false. */
  redact?: boolean;
  date?: string;
  dryRun?: boolean;
  json?: boolean;
}

/**
 * `memvault ingest FILE…`: imports transcripts as session memories and
 * prints, per file, what was written. Exits 1 when a file could not be
 * ingested (the others are imported all the same).
 */
export async function ingestCommand(files: string[], options: IngestCommandOptions): Promise<void> {
  if (files.length === 0) throw new UserError('cli/ingest', 'no files to ingest');
  if (options.format !== undefined && !INGEST_FORMATS.includes(options.format as IngestFormat)) {
    throw new UserError('cli/format', `unknown format \`${options.format}\``, { formats: INGEST_FORMATS.join(', ') });
  }
  const cwd = process.cwd();
  const root = findRoot(options.root ?? cwd);
  if (options.stream !== undefined) {
    // As for `add`: a stream the config does not declare is a typo until the person says otherwise (--create-stream).
    const config = await loadValidConfig(root);
    if (!checkDeclaredStream(config, options.stream, options.createStream === true)) {
      declareStream(root, config, options.stream);
      process.stderr.write(`added stream \`${options.stream}\` to memory.config.yaml (calendar: true, waterfall: false)\n`);
    }
  }
  const redact = options.redact !== false;
  if (!redact)
    process.stderr.write(
      'warning: --no-redact: secrets in these transcripts are written as they are, and a commit keeps them in git history for good\n',
    );
  const report: IngestReport = await ingest({
    root,
    cwd,
    files,
    ...(options.stream ? { stream: options.stream } : {}),
    tags: options.tag ?? [],
    ...(options.format ? { format: options.format as IngestFormat } : {}),
    primer: options.primer ?? false,
    redact,
    ...(options.date ? { date: options.date } : {}),
    dryRun: options.dryRun ?? false,
  });
  for (const file of report.files) for (const d of file.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  if (options.json) process.stdout.write(renderJson(report));
  else process.stdout.write(render(report, root, cwd));
  const failed = report.files.filter((file) => file.status === 'failed').length;
  if (failed > 0) {
    const reason = `${failed} of ${report.files.length} file(s) could not be ingested (listed above)`;
    throw new UserError(
      'ingest/failed',
      reason,
      {},
      failed < report.files.length ? {} : { hint: 'fix the places listed above and run ingest again' },
    );
  }
}

const MARK: Record<string, string> = { new: '+', updated: '~', unchanged: '=', 'kept-edited': '!' };

function render(report: IngestReport, root: string, cwd: string): string {
  const show = (vaultPath: string): string => path.relative(cwd, path.join(root, report.vault, vaultPath)) || vaultPath;
  const lines: string[] = [];
  if (report.dryRun) lines.push('ingest --dry-run: nothing written');
  for (const file of report.files) {
    lines.push(
      `${file.file}${file.format ? ` (${file.format}${file.sessions > 1 ? `, ${file.sessions} sessions` : ''})` : ''}: ${summary(file)}`,
    );
    if (file.status === 'failed') continue;
    const listed = file.status === 'already-ingested' ? file.memories.slice(0, 3) : file.memories;
    for (const memory of listed)
      lines.push(`  ${MARK[memory.status]} ${show(memory.path)}${memory.status === 'new' ? '' : ` (${memory.status})`}`);
    if (listed.length < file.memories.length) lines.push(`  … ${file.memories.length - listed.length} more`);
    const redacted = describeRedactions(file.redactions);
    if (redacted) lines.push(`  ${redacted}`);
  }
  if (!report.redact) lines.push('secrets were NOT redacted (--no-redact)');
  return `${lines.join('\n')}\n`;
}

function summary(file: FileReport): string {
  if (file.status === 'failed') return 'not ingested (see the error above)';
  if (file.status === 'already-ingested') return 'already ingested, nothing to do';
  const counts = new Map<string, number>();
  for (const memory of file.memories) counts.set(memory.status, (counts.get(memory.status) ?? 0) + 1);
  const parts = ['new', 'updated', 'unchanged', 'kept-edited']
    .filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s === 'kept-edited' ? 'kept (edited by hand)' : s}`);
  return `${file.memories.length} memor${file.memories.length === 1 ? 'y' : 'ies'}: ${parts.join(', ')}`;
}
