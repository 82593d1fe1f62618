import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { sha256 } from '../util/hash.js';
import type { ParseCache, ParsedContent } from '../store/cache.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { mayHaveHeadings } from '../vault/markdown.js';
import { parseMemoryBody } from '../vault/memory-file.js';
import { firstSentences, openingSentences } from '../vault/opening.js';
import type { Memory, Summary } from '../vault/model.js';
import { parseSummaryBody } from './parse-file.js';
import { readVaultFile } from '../vault/scan.js';

/**
 * Parsed bodies (text, sentences, headings) by content hash: from this run's
 * parses, then the parse cache's stored bodies, then by reading and parsing
 * the file. A load parses the bodies of the memories no summary covers yet
 * (what the build will summarize); every other body is parsed here, the first
 * time a stage reads it, and kept in the parse cache for the next build.
 */
export class ContentStore {
  private readonly fresh = new Map<string, ParsedContent>();
  /** Bodies parsed here (read from disk, not found in memory or the cache) since the load. */
  parsed = 0;

  constructor(
    private readonly vaultDir: string,
    private readonly cache: ParseCache,
    private readonly options: {
      /**
       * A memory's opening, when its body is not at hand, from a parse of the body's beginning, neither kept nor counted
       * (a fresh clone's first build: its cache, seeded from the committed record, holds no parsed body). Otherwise the
       * body is parsed whole and kept in the parse cache, so the builds after read it back instead of parsing again.
       */
      openingsFromBeginning?: boolean;
    } = {},
  ) {}

  remember(sha: string, content: ParsedContent): void {
    this.fresh.set(sha, content);
  }

  memory(memory: Memory): ParsedContent {
    const known = this.fresh.get(memory.sha256) ?? this.cache.readContent(memory.path, memory.sha256);
    return known ?? this.parseMemory(memory, this.memoryBody(memory));
  }

  summary(summary: Summary): ParsedContent {
    const known = this.fresh.get(summary.sha256) ?? this.cache.readContent(summary.path, summary.sha256);
    return known ?? this.parseSummary(summary, readFileSync(path.join(this.vaultDir, summary.path), 'utf8'));
  }

  /**
   * A body to show with its headings demoted: its text with the headings
   * remark found when it was last parsed (here, or by the machine that wrote
   * the committed record), else its text alone when no line may be a heading,
   * else parsed now. A fresh clone has no parsed body in its cache: the
   * package shows the bodies the record knows without parsing them.
   */
  shown(file: Memory | Summary): Pick<ParsedContent, 'body' | 'headings'> {
    const known = this.fresh.get(file.sha256) ?? this.cache.readContent(file.path, file.sha256);
    if (known) return known;
    const entry = this.cache.get(file.path);
    const headings = entry?.sha256 === file.sha256 ? entry.headings : undefined;
    if ('meta' in file) {
      const text = readFileSync(path.join(this.vaultDir, file.path), 'utf8');
      const body = frontmatterBody(text).trim();
      if (headings) return { body, headings };
      return mayHaveHeadings(body) ? this.parseSummary(file, text) : { body, headings: [] };
    }
    const body = this.memoryBody(file);
    if (headings) return { body, headings };
    return mayHaveHeadings(body) ? this.parseMemory(file, body) : { body, headings: [] };
  }

  /**
   * A memory's first `count` sentences (headings left out): from its parsed body when one is at hand; else, in a fresh
   * clone's first build (`openingsFromBeginning`), from a parse of the body's beginning only (vault/opening.ts): its
   * package shows ~100 memories by their opening, and parsed each in full for it; else from the body parsed and kept.
   */
  opening(memory: Memory, count: number): string[] {
    const known = this.fresh.get(memory.sha256) ?? this.cache.readContent(memory.path, memory.sha256);
    if (!known && this.options.openingsFromBeginning) return openingSentences(this.memoryBody(memory), count);
    return firstSentences((known ?? this.memory(memory)).sentences, count);
  }

  /** Keeps a summary body (one this build wrote, or one read back) for the tiers above; parses it unless `parsed` is given (a rollup worker did). */
  rememberSummary(sha: string, body: string, parsed?: ParsedContent): ParsedContent {
    const content = parsed ?? parseSummaryBody(body);
    this.fresh.set(sha, content);
    return content;
  }

  /**
   * Writes the bodies the parse cache holds for its save to the state store
   * now and lets go of them here too: a stage that reads one later reads it
   * back from the store. Called by a load that parses many files and after each
   * tier of a build, so a cold build holds a few batches of bodies, not all of
   * them (issue 29); only once `atLeast` wait (an edit's few are saved with
   * the cache). Bodies the cache does not hold (no entry for them, a dry
   * run's summaries) stay.
   */
  release(atLeast = 1): void {
    if (this.cache.pendingBodyCount < atLeast) return;
    for (const sha of this.cache.flushBodies()) this.fresh.delete(sha);
  }

  /** A memory's body as the load checked it (frontmatter removed, trimmed). */
  private memoryBody(memory: Memory): string {
    const read = readVaultFile(this.vaultDir, memory.path);
    // The load checked this content: the same hash needs no second look at its frontmatter.
    if (!read.ok || sha256(read.bytes) !== memory.sha256) {
      throw new UserError('vault/changed', `memory \`${memory.path}\` changed while the build was running`);
    }
    return frontmatterBody(Buffer.from(read.bytes).toString('utf8')).trim();
  }

  private parseMemory(memory: Memory, body: string): ParsedContent {
    const parsed = { body, ...parseMemoryBody(body, memory.importance) };
    this.keep(memory.path, memory.sha256, parsed);
    return parsed;
  }

  private parseSummary(summary: Summary, text: string): ParsedContent {
    const parsed = parseSummaryBody(frontmatterBody(text));
    // Kept in the parse cache: the index reads every weekly and monthly body when it is rebuilt.
    this.keep(summary.path, summary.sha256, parsed);
    return parsed;
  }

  private keep(vaultPath: string, sha: string, parsed: ParsedContent): void {
    this.parsed++;
    this.fresh.set(sha, parsed);
    const entry = this.cache.get(vaultPath);
    if (entry?.sha256 === sha) this.cache.set(vaultPath, entry, parsed);
  }
}
