import { describe, expect, it } from 'vitest';
import { writtenByMemvault } from '../../src/pipeline/write.js';
import { hashValue, sha256 } from '../../src/util/hash.js';
import { MAX_FRONTMATTER_CHARS, parseFrontmatter } from '../../src/vault/frontmatter.js';
import type { SourceRef, SummaryMeta } from '../../src/vault/model.js';
import { MAX_LISTED_SOURCES, listedSources, parseSummaryFile, sourceCount, writeSummaryFile } from '../../src/vault/summary-file.js';

/**
 * A daily's frontmatter stays bounded however many memories its day has: past
 * `MAX_LISTED_SOURCES` it holds `sources_count` and `sources_sha256` instead of
 * the list, so the loader (64 KiB frontmatter limit) and the writer (which
 * moves files it does not recognise to `history/hand-written/`) always know
 * the file as generated. The CLI side is in test/busy-day.test.ts.
 */

const PATH = 'main/daily/2026-03-02.md';
const BODY = '# main: 2026-03-02 (Monday)\n\n- A very busy day.\n';

/** `count` memories of one day, with ids as long as ingested sessions' file names. */
function refs(count: number): SourceRef[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `2026-03-02-${String(i).padStart(5, '0')}-session-of-the-coding-agent-on-the-billing-service`,
    sha256: sha256(String(i)),
  }));
}

function daily(sources: SourceRef[]): SummaryMeta {
  return {
    memvault: 'summary',
    tier: 'daily',
    stream: 'main',
    period: '2026-03-02',
    start: '2026-03-02',
    end: '2026-03-02',
    sources,
    memories: sources.length,
    tokens: 12,
    bytes: BODY.length,
    generator: { provider: 'extractive', model: 'memvault-extractive-1', prompt: 'daily@1' },
    input_hash: 'ef'.repeat(32),
    output_hash: sha256(BODY),
  };
}

describe('a daily with many sources', () => {
  // 9,300: the day of the report, whose daily passed 1 MiB; ~500 already passed the 64 KiB frontmatter limit.
  for (const count of [MAX_LISTED_SOURCES + 1, 600, 9_300]) {
    it(`stays under the frontmatter limit and is read back as generated with ${count} sources`, () => {
      const text = writeSummaryFile(daily(refs(count)), BODY);
      const front = parseFrontmatter(text);
      expect(front.error).toBeUndefined();
      expect(text.length).toBeLessThan(MAX_FRONTMATTER_CHARS / 8);
      expect(writtenByMemvault(PATH, text)).toBe(true);
      const parsed = parseSummaryFile(text, PATH);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
      const { meta } = parsed.summary;
      expect(meta).toMatchObject({ sources: [], sources_count: count, sources_sha256: hashValue(refs(count)), memories: count });
      expect(sourceCount(meta)).toBe(count);
      expect(parsed.body).toBe(BODY);
      // Written again from what was read: the same bytes.
      expect(writeSummaryFile(meta, parsed.body)).toBe(text);
      // The list, when the day's memories are the ones it was built from; nothing when one changed or is missing.
      expect(listedSources(meta, () => refs(count))).toEqual(refs(count));
      const changed = refs(count).map((ref, i) => (i === 7 ? { ...ref, sha256: sha256('edited') } : ref));
      expect(listedSources(meta, () => changed)).toBeUndefined();
      expect(listedSources(meta, () => refs(count - 1))).toBeUndefined();
      expect(listedSources(meta, () => undefined)).toBeUndefined();
    });
  }

  it('lists its sources as before up to the bound: an ordinary daily is written byte for byte as it was', () => {
    for (const count of [1, 3, MAX_LISTED_SOURCES]) {
      const text = writeSummaryFile(daily(refs(count)), BODY);
      expect(text).not.toContain('sources_count');
      const lines = refs(count).map((ref) => `  - { id: ${ref.id}, sha256: ${ref.sha256} }\n`);
      expect(text).toContain(`\nend: 2026-03-02\nsources:\n${lines.join('')}memories: ${count}\n`);
      const parsed = parseSummaryFile(text, PATH);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
      expect(parsed.summary.meta.sources).toEqual(refs(count));
      expect(listedSources(parsed.summary.meta, () => undefined)).toEqual(refs(count));
    }
  });

  it('bounds by size too: ids of 255 characters', () => {
    const long = refs(150).map((ref, i) => ({ ...ref, id: `${String(i).padStart(5, '0')}-${'x'.repeat(249)}` }));
    const text = writeSummaryFile(daily(long), BODY);
    expect(text).toContain('sources_count: 150\n');
    expect(parseFrontmatter(text).error).toBeUndefined();
  });

  it('refuses a file with both the list and the count, or a count without its hash', () => {
    const text = writeSummaryFile(daily(refs(2)), BODY);
    const both = text.replace('memories: 2', `sources_count: 2\nsources_sha256: ${hashValue(refs(2))}\nmemories: 2`);
    const noHash = writeSummaryFile(daily(refs(300)), BODY).replace(/sources_sha256: [0-9a-f]+\n/, '');
    for (const broken of [both, noHash]) {
      const parsed = parseSummaryFile(broken, PATH);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.diagnostics[0]).toMatchObject({ severity: 'error', rule: 'summary/schema' });
    }
  });

  it('recognises a daily written before the bound, whose frontmatter is past 64 KiB, as generated', () => {
    const lines = refs(700).map((ref) => `  - { id: ${ref.id}, sha256: ${ref.sha256} }\n`);
    const old = `---\nmemvault: summary\ntier: daily\nsources:\n${lines.join('')}memories: 700\n---\n${BODY}`;
    expect(old.length).toBeGreaterThan(MAX_FRONTMATTER_CHARS);
    expect(writtenByMemvault(PATH, old)).toBe(true);
    // A person's file with no closing fence is still theirs.
    expect(writtenByMemvault(PATH, old.replace('\n---\n#', '\n#'))).toBe(false);
  });
});
