import { describe, expect, it } from 'vitest';
import { droppedFields, MAX_DROPPED_LISTED, type MustKeepItem } from '../../src/retention/index.js';
import { sha256 } from '../../src/util/hash.js';
import type { SummaryMeta } from '../../src/vault/model.js';
import { parseSummaryFile, writeSummaryFile } from '../../src/vault/summary-file.js';

/** `must_keep:` and `dropped:` in a summary's frontmatter: written and read back as they were. */

const body = '# main: 2026-02-10 (Tuesday)\n\n## Done\n\n- Replaced JWT with server sessions.\n';

function meta(overrides: Partial<SummaryMeta>): SummaryMeta {
  return {
    memvault: 'summary',
    tier: 'daily',
    stream: 'main',
    period: '2026-02-10',
    start: '2026-02-10',
    end: '2026-02-10',
    sources: [{ id: '2026/02/auth', sha256: 'ab'.repeat(32) }],
    memories: 1,
    tokens: 14,
    bytes: 70,
    generator: { provider: 'extractive', model: 'memvault-extractive-1', prompt: 'daily@12345678' },
    input_hash: 'cd'.repeat(32),
    output_hash: sha256(body),
    ...overrides,
  };
}

describe('retention fields of a summary', () => {
  it('round-trips must_keep and dropped, items with YAML-special characters included', () => {
    const dropped = ['#412', 'Decision: sessions live in Postgres, 30-day expiry.', "'EUR'", 'a: b', '7 May 2023', '- dash', '`code`'];
    const text = writeSummaryFile(meta({ must_keep: 12, dropped }), body);
    const parsed = parseSummaryFile(text, 'main/daily/2026-02-10.md');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.summary.meta.must_keep).toBe(12);
    expect(parsed.summary.meta.dropped).toEqual(dropped);
    expect(parsed.body).toBe(body);
    // Written after the hashes, where a reader of the file finds them next to `review`.
    expect(text.indexOf('must_keep:')).toBeGreaterThan(text.indexOf('output_hash:'));
  });

  it('writes no dropped list when nothing was dropped, and reads files written before the check existed', () => {
    const text = writeSummaryFile(meta({ must_keep: 3, dropped: [] }), body);
    expect(text).toContain('must_keep: 3');
    expect(text).not.toContain('dropped');
    const old = writeSummaryFile(meta({}), body);
    const parsed = parseSummaryFile(old, 'main/daily/2026-02-10.md');
    expect(parsed.ok && parsed.summary.meta.must_keep === undefined && parsed.summary.meta.dropped === undefined).toBe(true);
  });

  it('rejects a dropped list that is not a list of strings', () => {
    const text = writeSummaryFile(meta({ must_keep: 3 }), body).replace('must_keep: 3', 'must_keep: 3\ndropped: { a: 1 }');
    const parsed = parseSummaryFile(text, 'main/daily/2026-02-10.md');
    expect(parsed.ok).toBe(false);
  });
});

describe('droppedFields', () => {
  it('names at most MAX_DROPPED_LISTED items and counts the rest, so a long-term summary stays readable', () => {
    const items: MustKeepItem[] = Array.from({ length: 1565 }, (_, i) => ({
      kind: 'decision',
      text: `Decided thing number ${i} after a long discussion.`,
    }));
    const fields = droppedFields(items);
    expect(fields.dropped).toHaveLength(MAX_DROPPED_LISTED);
    expect(fields.dropped_total).toBe(1565);
    const text = writeSummaryFile(meta({ tier: 'longterm', must_keep: 1600, ...fields }), body);
    const parsed = parseSummaryFile(text, 'main/longterm.md');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.summary.meta.dropped_total).toBe(1565);
    expect(text.length).toBeLessThan(32_000);
    // Few enough: the list as it was, no total.
    const few = droppedFields(items.slice(0, 3));
    expect(few).toEqual({ dropped: items.slice(0, 3).map((i) => i.text) });
    expect(droppedFields([])).toEqual({});
  });
});
