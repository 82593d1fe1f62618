import { citationsOfBody } from '../vault/citation-find.js';
import { mayStateFact, memoryFactFields } from '../vault/fact-extract.js';
import type { CachedResult, ParsedContent } from '../store/cache.js';
import { headingSpans, parseMarkdown } from '../vault/markdown.js';
import { parseMemoryBody, readMemoryFile } from '../vault/memory-file.js';
import { memorySecrets } from '../vault/secrets-check.js';
import { extractSentences, sentencesOf } from '../vault/sentences.js';
import { readGeneratedMarkdown } from '../vault/generated-markdown.js';
import type { FileRole } from '../vault/paths.js';
import { parseSummaryFile } from '../vault/summary-file.js';
import { opensGeneratedSummary } from '../text/frontmatter-fence.js';

export interface ParsedFile {
  result: CachedResult;
  /** The parsed body of a memory, for the content cache. */
  content?: ParsedContent;
}

/**
 * Parses one vault file according to its role. Pure: bytes in, data out; used
 * in-process and by parse workers. A memory's markdown is parsed into
 * `content` unless `markdown` is false (its metadata, checks and secrets are
 * the same either way); a summary's body is never parsed here.
 */
export function parseVaultFile(
  bytes: Uint8Array,
  vaultPath: string,
  role: FileRole,
  timezone: string,
  markdown = true,
  /** Times each step (`build --json` stats, pipeline/build-timings.ts); by default none. */
  time: <T>(stage: string, fn: () => T) => T = (_stage, fn) => fn(),
): ParsedFile {
  // `archive/<quarter>/` holds archived memories and archived dailies/weeklies: a generated summary says so in its frontmatter.
  if (role.role === 'memory' && isSummaryFile(role, bytes)) role = { role: 'summary', stream: role.stream, tier: 'daily', period: '' };
  if (role.role === 'memory') {
    const place = { path: vaultPath, stream: role.stream, location: role.location, relativeId: role.relativeId };
    const read = time('parse.frontmatter', () => readMemoryFile(bytes, place, timezone));
    if (!read.ok) return { result: { type: 'invalid', diagnostics: read.diagnostics } };
    const { memory, body } = read.content;
    // Facts are read with the memory, so the parse cache keeps them and no stage reads the file again for them.
    if (mayStateFact(memory.kind, body)) Object.assign(memory, memoryFactFields(Buffer.from(bytes).toString('utf8'), memory));
    // Citations too (paths, commits, branches, issues): the build checks them against the repository (src/citations/).
    const citations = time('parse.citations', () => citationsOfBody(bytes, body));
    if (citations.length > 0) memory.citations = citations;
    const result: CachedResult = { type: 'memory', memory, ...time('parse.secrets', () => memorySecrets(bytes)) };
    return markdown ? { result, content: { body, ...time('parse.markdown', () => parseMemoryBody(body, memory.importance)) } } : { result };
  }
  if (role.role === 'summary') {
    const parsed = parseSummaryFile(Buffer.from(bytes).toString('utf8'), vaultPath);
    if (!parsed.ok) return { result: { type: 'invalid', diagnostics: parsed.diagnostics } };
    return { result: { type: 'summary', summary: parsed.summary } };
  }
  return { result: { type: 'invalid', diagnostics: [] } };
}

/** True for a generated summary: by its place, or in `archive/` (which holds memories too) by its frontmatter. */
export function isSummaryFile(role: FileRole, bytes: Uint8Array): boolean {
  return role.role === 'summary' || (role.role === 'memory' && role.location === 'archive' && isGeneratedSummary(bytes));
}

/** True when the frontmatter has `memvault: summary` (every generated summary starts with it). */
function isGeneratedSummary(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 64)).toString('utf8');
  return opensGeneratedSummary(head);
}

/**
 * The parsed form of a summary body (one a build wrote, or one read back):
 * what the tiers above read. Parsed with remark like any markdown: a rollup
 * worker parses the summary it wrote, so the main thread reads it parsed.
 */
export function parseSummaryBody(body: string): ParsedContent {
  const text = body.trim();
  // The usual shape of a generated summary is read without remark (same sentences and spans); anything else is parsed.
  const generated = readGeneratedMarkdown(text);
  if (generated) return { body: text, sentences: sentencesOf(generated.prose, { pinned: false }), headings: generated.headings };
  const tree = parseMarkdown(text);
  return { body: text, sentences: extractSentences(tree, { pinned: false }), headings: headingSpans(tree) };
}
