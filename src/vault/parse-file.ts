import type { CachedResult, ParsedContent } from './cache.js';
import { headingSpans, parseMarkdown } from './markdown.js';
import { parseMemoryFile } from './memory-file.js';
import { readPlainSummary } from './plain-summary.js';
import { memorySecrets } from './secrets-check.js';
import { extractSentences, sentencesOf } from './sentences.js';
import type { FileRole } from './paths.js';
import { parseSummaryFile } from './summary-file.js';

export interface ParsedFile {
  result: CachedResult;
  /** The parsed body of a memory, for the content cache. */
  content?: ParsedContent;
}

/** Parses one vault file according to its role. Pure: bytes in, data out; used in-process and by parse workers. */
export function parseVaultFile(bytes: Uint8Array, vaultPath: string, role: FileRole, timezone: string): ParsedFile {
  // `archive/<quarter>/` holds archived memories and archived dailies/weeklies: a generated summary says so in its frontmatter.
  if (role.role === 'memory' && role.location === 'archive' && isGeneratedSummary(bytes)) return parseVaultFile(bytes, vaultPath, { role: 'summary', stream: role.stream, tier: 'daily', period: '' }, timezone);
  if (role.role === 'memory') {
    const parsed = parseMemoryFile(bytes, { path: vaultPath, stream: role.stream, location: role.location, relativeId: role.relativeId }, timezone);
    if (!parsed.ok) return { result: { type: 'invalid', diagnostics: parsed.diagnostics } };
    return { result: { type: 'memory', memory: parsed.content.memory, ...memorySecrets(bytes) }, content: { body: parsed.content.body, sentences: parsed.content.sentences, headings: parsed.content.headings } };
  }
  if (role.role === 'summary') {
    const parsed = parseSummaryFile(Buffer.from(bytes).toString('utf8'), vaultPath);
    if (!parsed.ok) return { result: { type: 'invalid', diagnostics: parsed.diagnostics } };
    return { result: { type: 'summary', summary: parsed.summary } };
  }
  return { result: { type: 'invalid', diagnostics: [] } };
}

/** True when the frontmatter has `memvault: summary` (every generated summary starts with it). */
function isGeneratedSummary(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 64)).toString('utf8');
  return /^---\r?\nmemvault:\s*['"]?summary['"]?\s*\r?\n/.test(head);
}

/** The parsed form of a summary body (one a build wrote, or one read back): what the tiers above read. */
export function parseSummaryBody(body: string): ParsedContent {
  const text = body.trim();
  // Most summaries are headings and bullets of plain text: read as remark would read them, without parsing.
  const plain = readPlainSummary(text);
  if (plain) return { body: text, sentences: sentencesOf(plain.prose, { pinned: false }), headings: plain.headings };
  const tree = parseMarkdown(text);
  return { body: text, sentences: extractSentences(tree, { pinned: false }), headings: headingSpans(tree) };
}
