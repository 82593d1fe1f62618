import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DateTime } from 'luxon';
import { loadValidConfig } from '../config/load.js';
import { assertStreamName } from '../config/schema.js';
import type { Summarizer } from '../llm/types.js';
import type { RedactionCount } from '../redact/redact.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ensureInside, mkdirInVault } from '../util/inside.js';
import { UserError } from '../util/errors.js';
import { sha256 } from '../util/hash.js';
import { parseMemoryFile } from '../vault/memory-file.js';
import type { Diagnostic } from '../vault/model.js';
import { crashPoint } from '../util/crash-point.js';
import { isStreamed, parseStreamedTranscript, parseTranscript } from './detect.js';
import { IngestJournal } from './journal.js';
import { renderPrimer } from './primer.js';
import { hashFile, InputReadError, MAX_DOCUMENT_BYTES, MAX_STREAMED_BYTES, type OpenedInput, openRegularFile, readAll } from './read.js';
import { sessionDrafts, transcriptParts, transcriptPath, type MemoryDraft, type RenderContext } from './render.js';
import { IngestError, isCodingAgentFormat, type IngestFormat, type ParsedTranscript, type Session } from './session.js';
import {
  draftText,
  type IngestedMemory,
  IngestedIndex,
  memoryPath,
  newMemoryPath,
  replaceMemory,
  slugify,
  writeNewMemory,
} from './writer.js';

/**
 * `memvault ingest`, the use case: each input file is read, parsed by its
 * format, rendered (or summarized into a primer) and redacted, then written as
 * session memories, checked against what earlier ingests wrote:
 * - the same file (same SHA-256) again: nothing to do;
 * - the same session and day from another file (a re-export, a log that
 *   grew): unchanged when the text is equal, replaced when the memory was not
 *   edited since, kept and reported when a person edited it;
 * - otherwise a new memory file.
 * A file that cannot be parsed is reported with its place and skipped; the
 * others still import.
 */

export interface IngestOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  /** Input files as given; relative ones are resolved against `cwd`. */
  files: readonly string[];
  cwd: string;
  /** Stream to write to (default: the first stream of the config). */
  stream?: string;
  tags?: readonly string[];
  format?: IngestFormat;
  primer?: boolean;
  /** Default true; `false` writes secrets as they are. */
  redact?: boolean;
  /**
   * `--date`: ISO date or datetime (read in the configured zone) of messages without timestamps
   * (OpenAI messages, undated notes); default: the file's modification time.
   */
  date?: string;
  dryRun?: boolean;
  /** Injected summarizer for `--primer` (tests); by default the configured profile's. */
  summarizer?: Summarizer;
}

/** What happened to one memory: written, replaced (its session grew), equal already, or kept because a person edited it. */
export type MemoryStatus = 'new' | 'updated' | 'unchanged' | 'kept-edited';

/** The outcome for one input file. */
export interface FileReport {
  /** The file as given. */
  file: string;
  format?: IngestFormat;
  status: 'imported' | 'already-ingested' | 'unchanged' | 'failed';
  sessions: number;
  /** Vault-relative paths. */
  memories: { path: string; status: MemoryStatus }[];
  redactions: RedactionCount[];
  /** The reason a file failed, and warnings (an incomplete last line, an edited memory kept). */
  diagnostics: Diagnostic[];
  /** Full transcripts kept beside distilled memories (vault-relative), with whether this call wrote them. */
  transcripts?: { path: string; status: 'new' | 'updated' | 'unchanged' }[];
}

/** The outcome of one `ingest` call. */
export interface IngestReport {
  stream: string;
  /** The vault folder, relative to the project root. */
  vault: string;
  dryRun: boolean;
  redact: boolean;
  files: FileReport[];
}

/**
 * Imports transcript files into a stream and reports, per file, what was
 * written. Never throws for a bad input file (it is reported in the file's
 * `diagnostics`); throws a `UserError` for a bad config, stream or `--date`.
 *
 * @example
 *   const report = await ingest({ root, cwd: root, files: ['session.jsonl'] });
 *   report.files[0].memories; // [{ path: 'main/memories/2026/02/2026-02-13-fix-flaky-test.md', status: 'new' }]
 */
export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const run = await prepareRun(options);
  const report: IngestReport = {
    stream: run.stream,
    vault: run.config.vault,
    dryRun: run.dryRun,
    redact: run.redact,
    files: [],
  };
  for (const file of options.files) report.files.push(await ingestInputFile(run, file));
  return report;
}

/** What every file of one `ingest` call shares: the config, the stream, the vault's index and journal. */
interface IngestRun {
  options: IngestOptions;
  config: Awaited<ReturnType<typeof loadValidConfig>>;
  stream: string;
  vaultDir: string;
  redact: boolean;
  dryRun: boolean;
  /** `--date`, parsed in the configured zone. */
  date: Date | undefined;
  index: IngestedIndex;
  journal: IngestJournal;
  summarizer: Summarizer | undefined;
}

/** Loads and checks the config, stream, vault folder and `--date`; throws a `UserError` when one is bad. */
async function prepareRun(options: IngestOptions): Promise<IngestRun> {
  const config = await loadValidConfig(options.root);
  const stream = options.stream ?? Object.keys(config.streams)[0] ?? 'main';
  assertStreamName(stream);
  const vaultDir = path.resolve(options.root, config.vault);
  ensureInside(options.root, vaultDir); // a vault folder linked out of the project (the writers refuse links below it)
  let summarizer = options.summarizer;
  // Loaded only for --primer: the LLM providers are the heaviest part of the CLI.
  if (options.primer && !summarizer)
    summarizer = (await import('../llm/create.js')).createSummarizer(config, process.env, { root: options.root });
  return {
    options,
    config,
    stream,
    vaultDir,
    redact: options.redact ?? true,
    dryRun: options.dryRun ?? false,
    date: options.date === undefined ? undefined : parseDateFlag(options.date, config.timezone),
    index: IngestedIndex.scan(vaultDir, stream),
    journal: new IngestJournal(options.root, stream),
    summarizer,
  };
}

/**
 * Opens, ingests and closes one input file. Only a regular file is opened
 * (never a FIFO or a device), and never read past its size limit; a file that
 * cannot be read is reported in its diagnostics, never thrown.
 */
async function ingestInputFile(run: IngestRun, file: string): Promise<FileReport> {
  const fileReport: FileReport = { file, status: 'failed', sessions: 0, memories: [], redactions: [], diagnostics: [] };
  const absolute = path.resolve(run.options.cwd, file);
  const streamed = isStreamed(file, run.options.format);
  let input: OpenedInput;
  try {
    input = openRegularFile(absolute, streamed ? MAX_STREAMED_BYTES : MAX_DOCUMENT_BYTES);
  } catch (error) {
    if (!(error instanceof InputReadError)) throw error;
    fileReport.diagnostics.push(readDiagnostic(file, error));
    return fileReport;
  }
  try {
    await ingestOpenedFile(run, { file, absolute, streamed, input }, fileReport);
  } catch (error) {
    if (!(error instanceof InputReadError)) throw error;
    fileReport.diagnostics.push(readDiagnostic(file, error));
    fileReport.status = 'failed';
  } finally {
    closeSync(input.fd);
  }
  return fileReport;
}

/** One opened input file: the name as given, its absolute path, whether it is read as a stream (JSON Lines). */
interface InputFile {
  file: string;
  absolute: string;
  streamed: boolean;
  input: OpenedInput;
}

/**
 * Ingests one opened file into `fileReport`: skipped when the same bytes were
 * ingested completely before, else parsed, its sessions written as memories
 * (and transcripts), and then marked complete in the journal.
 */
async function ingestOpenedFile(run: IngestRun, source: InputFile, fileReport: FileReport): Promise<void> {
  const { fd, mtime } = source.input;
  // A JSON Lines log is hashed apart (in chunks) first: an unchanged log is then skipped unparsed.
  const bytes = source.streamed ? undefined : readAll(fd, MAX_DOCUMENT_BYTES);
  const hashed = bytes ? sha256(bytes) : hashFile(fd, MAX_STREAMED_BYTES);
  const mode = run.options.primer ? ('primer' as const) : undefined;
  const earlier = run.index.fromFile(hashed, mode);
  if (earlier.length > 0 && run.journal.isComplete(hashed, mode)) {
    fileReport.status = 'already-ingested';
    fileReport.memories = earlier.map((memory) => ({ path: memory.path, status: 'unchanged' as const }));
    return;
  }
  const parsed = parseInput(run, source, bytes, fileReport);
  if (parsed === undefined) return;
  // A log still being written may have grown since it was hashed: its memories name the bytes parsed.
  const fileSha = parsed.sha256 ?? hashed;
  fileReport.format = parsed.transcript.format;
  fileReport.sessions = parsed.transcript.sessions.length;
  fileReport.diagnostics.push(...parsed.transcript.warnings);
  const redactions = new Map<string, number>();
  const context: RenderContext = {
    timezone: run.config.timezone,
    tags: run.options.tags ?? [],
    redact: run.redact,
    fallback: run.date ?? mtime,
    source: { file: recordedPath(run.options.root, source.absolute), sha256: fileSha },
    redactions,
    secrets: run.config.secrets,
  };
  const transcripts = await writeSessions(run, parsed.transcript.sessions, context, fileReport);
  for (const session of transcripts) {
    const vaultPath = `${run.stream}/${transcriptPath(session)}`;
    const status = writeTranscript(run, path.join(run.vaultDir, vaultPath), transcriptParts(session, context));
    (fileReport.transcripts ??= []).push({ path: vaultPath, status });
    crashPoint('ingest-write');
  }
  fileReport.redactions = [...redactions].map(([kind, count]) => ({ kind, count })).sort((a, b) => (a.kind < b.kind ? -1 : 1));
  fileReport.status = fileReport.memories.some((m) => m.status === 'new' || m.status === 'updated') ? 'imported' : 'unchanged';
  // Last: only now does the file count as ingested (a kill before this line leaves it to be completed).
  if (!run.dryRun) run.journal.complete(fileSha, mode, fileReport.memories.length);
}

/**
 * Parses a file by its format; a streamed log also gives the SHA-256 of the
 * bytes it parsed. A file that does not parse is reported (undefined).
 */
function parseInput(
  run: IngestRun,
  source: InputFile,
  bytes: Buffer | undefined,
  fileReport: FileReport,
): { transcript: ParsedTranscript; sha256?: string } | undefined {
  try {
    if (bytes) return { transcript: parseTranscript(bytes, source.file, run.options.format) };
    const streamedParse = parseStreamedTranscript(source.input.fd, source.file, run.options.format);
    return { transcript: streamedParse, sha256: streamedParse.sha256 };
  } catch (error) {
    if (!(error instanceof IngestError)) throw error;
    fileReport.diagnostics.push(error.diagnostic);
    return undefined;
  }
}

/**
 * Renders and writes each session's memories (or its primer), one draft at a
 * time: a long session's memories are never all in memory. Returns the
 * distilled sessions whose full transcripts are kept beside them.
 */
async function writeSessions(run: IngestRun, sessions: Session[], context: RenderContext, fileReport: FileReport): Promise<Session[]> {
  const transcripts: Session[] = [];
  for (const session of sessions) {
    // A note is the same session wherever it is ingested from, and its id must not carry a home folder.
    if (session.format === 'markdown') session.id = context.source.file;
    if (run.options.primer && session.turns.length > 0) {
      const primer = await renderPrimer(session, {
        ...context,
        summarizer: run.summarizer!,
        budget: run.config.calendar.daily,
        tokenizer: run.config.tokenizer,
        retries: run.config.llm.retries,
        stream: run.stream,
      });
      writeDraft(run, primer, fileReport);
    } else {
      for (const draft of sessionDrafts(session, context)) writeDraft(run, draft, fileReport);
      // A distilled session keeps its full transcript beside it (see docs/ingest.md).
      if (isCodingAgentFormat(session.format) && session.turns.length > 0) transcripts.push(session);
    }
  }
  return transcripts;
}

/** Writes one draft unless the vault holds it already (see the module comment). */
function writeDraft(run: IngestRun, draft: MemoryDraft, fileReport: FileReport): void {
  const text = draftText(draft);
  assertReadable(text, draft, run.stream, run.config.timezone);
  const existing = run.index.part(draft.source);
  if (existing) {
    fileReport.memories.push({ path: existing.path, status: rewriteExisting(run, existing, draft, text, fileReport) });
    return;
  }
  const slug = slugify(draft.title);
  const vaultPath = run.dryRun
    ? newMemoryPath(run.stream, draft.day, slug, text)
    : writeNewMemory(run.vaultDir, run.stream, draft.day, slug, text);
  run.index.add({ path: vaultPath, source: draft.source, bodySha256: draft.source.body_sha256 });
  fileReport.memories.push({ path: vaultPath, status: 'new' });
  if (!run.dryRun) crashPoint('ingest-write'); // test-only fault injection (MEMVAULT_TEST_CRASH_AFTER)
  collectGarbage();
}

/**
 * A draft for a session and day the vault holds already: unchanged when the
 * body is equal, replaced when nobody edited the memory since it was written,
 * else kept, with a warning on the input file.
 */
function rewriteExisting(run: IngestRun, existing: IngestedMemory, draft: MemoryDraft, text: string, fileReport: FileReport): MemoryStatus {
  if (existing.bodySha256 === draft.source.body_sha256) return 'unchanged';
  if (existing.bodySha256 === existing.source.body_sha256) {
    if (!run.dryRun) replaceMemory(run.vaultDir, existing.path, text);
    run.index.add({ path: existing.path, source: draft.source, bodySha256: draft.source.body_sha256 });
    crashPoint('ingest-write');
    return 'updated';
  }
  fileReport.diagnostics.push({
    path: fileReport.file,
    line: 1,
    column: 1,
    severity: 'warning',
    reason:
      `${existing.path} holds this session${draft.source.part ? ` (${draft.source.part})` : ''} ` +
      'and was edited by hand: the new version was not written',
    hint: 'move or delete that memory and ingest again to import the new version',
    rule: 'ingest/edited',
  });
  return 'kept-edited';
}

/**
 * Writes a session's full transcript from its parts, unless the file holds
 * exactly that text: streamed to a temporary file beside it and renamed over
 * it, so neither text is ever one string and a kill leaves the old file.
 */
function writeTranscript(run: IngestRun, full: string, parts: Iterable<string>): 'new' | 'updated' | 'unchanged' {
  const ignore = path.join(path.dirname(full), '.gitignore');
  if (run.config.ingest.transcripts === 'ignored' && !run.dryRun && !existsSync(ignore)) {
    mkdirInVault(run.vaultDir, path.dirname(full));
    writeFileAtomic(ignore, '# memvault: ingest.transcripts is `ignored`: full transcripts stay on this machine\n*\n');
  }
  const before = existsSync(full) ? hashOfFile(full) : undefined;
  const hash = createHash('sha256');
  let temp: { path: string; fd: number } | undefined;
  if (!run.dryRun) {
    mkdirInVault(run.vaultDir, path.dirname(full));
    const tempPath = path.join(path.dirname(full), `.${path.basename(full)}.${process.pid}.${transcriptTemps++}.tmp`);
    // Created, never opened through whatever sits at its name (a planted link): removed first, then exclusive.
    rmSync(tempPath, { force: true });
    temp = { path: tempPath, fd: openSync(tempPath, 'wx') };
  }
  try {
    let written = 0;
    for (const part of parts) {
      const chunk = Buffer.from(part, 'utf8');
      hash.update(chunk);
      if (temp) writeSync(temp.fd, chunk);
      if (++written % 1000 === 0) collectGarbage();
    }
  } finally {
    if (temp) closeSync(temp.fd);
  }
  const status = before === undefined ? 'new' : before === hash.digest('hex') ? 'unchanged' : 'updated';
  if (temp) {
    if (status === 'unchanged') rmSync(temp.path, { force: true });
    else renameSync(temp.path, full);
  }
  return status;
}

let transcriptTemps = 0;

/** Heap in use above which a full garbage collection is asked for between two memories (see `collectGarbage`). */
const COLLECT_ABOVE_BYTES = 224 * 1024 * 1024;
let gc: (() => void) | undefined;

/**
 * A full garbage collection once the heap holds more than
 * `COLLECT_ABOVE_BYTES`. Rendering a part of a long session makes megabytes
 * of short-lived strings (redaction, markdown); V8 lets its heap grow to about
 * four times what is live before collecting, which for a 200 MB log (100 MB
 * of parsed turns) is 500 MB. Collecting at the threshold keeps the peak near
 * it; ordinary transcripts never reach it. `--expose-gc` set at run time
 * applies to new contexts, so the function comes from one.
 */
function collectGarbage(): void {
  if (v8.getHeapStatistics().used_heap_size < COLLECT_ABOVE_BYTES) return;
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** SHA-256 of a file's content, read in chunks. */
function hashOfFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    return hashFile(fd, Number.MAX_SAFE_INTEGER);
  } finally {
    closeSync(fd);
  }
}

/** A file that cannot be read, or is too large, as `ingest/read`: the reason names the file, never its content. */
function readDiagnostic(file: string, error: InputReadError): Diagnostic {
  return { path: file, line: 1, column: 1, severity: 'error', reason: error.reason, hint: error.hint, rule: 'ingest/read' };
}

/** `--date 2026-02-13` (midnight in `zone`) or `--date 2026-02-13T14:05:00+01:00`. */
export function parseDateFlag(value: string, zone: string): Date {
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(value) ? DateTime.fromISO(value, { zone }) : undefined;
  if (!parsed?.isValid) throw new UserError('cli/date', `--date \`${value}\` is not an ISO 8601 date or datetime`);
  return parsed.toJSDate();
}

/**
 * How the input is named in `source.file`: relative to the project when it is
 * inside it, else just its name (an absolute path would put the user's home
 * folder into the vault's history).
 */
function recordedPath(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative.split(path.sep).join('/');
  return path.basename(absolute);
}

/** A draft must read back as a valid memory; anything else is a bug, caught before writing. */
function assertReadable(text: string, draft: MemoryDraft, stream: string, zone: string): void {
  const parsed = parseMemoryFile(
    Buffer.from(text, 'utf8'),
    { path: memoryPath(stream, draft.day, 'check'), stream, location: 'memories', relativeId: 'check' },
    zone,
  );
  if (!parsed.ok)
    throw new Error(`ingest produced an unreadable memory (${parsed.diagnostics[0]?.reason}); frontmatter: ${text.slice(0, 200)}`);
}
