import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { sha256 } from '../util/hash.js';
import type { ParseCache, ParsedContent } from './cache.js';
import { frontmatterBody } from './frontmatter.js';
import { parseMemoryBody } from './memory-file.js';
import type { Memory, Summary } from './model.js';
import { parseSummaryBody } from './parse-file.js';
import { readVaultFile } from './scan.js';

/**
 * Parsed bodies (text, sentences, headings) by content hash: from this run's
 * parses, then the parse cache's content pack, then by reading and parsing
 * the file. A load parses the bodies of the memories no summary covers yet
 * (what the build will summarize); every other body is parsed here, the first
 * time a stage reads it, and kept in the content pack for the next build.
 */
export class ContentStore {
  private readonly fresh = new Map<string, ParsedContent>();
  /** Bodies parsed here (read from disk, not found in memory or the pack) since the load. */
  parsed = 0;

  constructor(
    private readonly vaultDir: string,
    private readonly cache: ParseCache,
  ) {}

  remember(sha: string, content: ParsedContent): void {
    this.fresh.set(sha, content);
  }

  memory(memory: Memory): ParsedContent {
    const known = this.fresh.get(memory.sha256) ?? this.cache.readContent(memory.path, memory.sha256);
    if (known) return known;
    const read = readVaultFile(this.vaultDir, memory.path);
    // The load checked this content: the same hash needs no second look at its frontmatter.
    if (!read.ok || sha256(read.bytes) !== memory.sha256) {
      throw new UserError('vault/changed', `memory \`${memory.path}\` changed while the build was running`);
    }
    const body = frontmatterBody(Buffer.from(read.bytes).toString('utf8')).trim();
    const parsed = { body, ...parseMemoryBody(body, memory.importance) };
    this.keep(memory.path, memory.sha256, parsed);
    return parsed;
  }

  summary(summary: Summary): ParsedContent {
    const known = this.fresh.get(summary.sha256) ?? this.cache.readContent(summary.path, summary.sha256);
    if (known) return known;
    const text = readFileSync(path.join(this.vaultDir, summary.path), 'utf8');
    const parsed = parseSummaryBody(frontmatterBody(text));
    // Kept in the content pack: the index reads every weekly and monthly body when it is rebuilt.
    this.keep(summary.path, summary.sha256, parsed);
    return parsed;
  }

  /** Keeps a summary body (one this build wrote, or one read back) for the tiers above; parses it unless `parsed` is given (a rollup worker did). */
  rememberSummary(sha: string, body: string, parsed?: ParsedContent): ParsedContent {
    const content = parsed ?? parseSummaryBody(body);
    this.fresh.set(sha, content);
    return content;
  }

  private keep(vaultPath: string, sha: string, parsed: ParsedContent): void {
    this.parsed++;
    this.fresh.set(sha, parsed);
    const entry = this.cache.get(vaultPath);
    if (entry?.sha256 === sha) this.cache.set(vaultPath, entry, parsed);
  }
}
