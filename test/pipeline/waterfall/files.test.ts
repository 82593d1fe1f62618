import { describe, expect, it } from 'vitest';
import type { SummaryMeta } from '../../../src/vault/model.js';
import { classifyPath, vaultPaths } from '../../../src/vault/paths.js';
import { parseSummaryFile, writeSummaryFile } from '../../../src/vault/summary-file.js';

/** The waterfall's files: a summary written and read back, and where its paths sit. The pure planning: plan.test.ts. */

describe('waterfall files', () => {
  it('a waterfall summary written and read back is equal, its state block included', () => {
    const meta: SummaryMeta = {
      memvault: 'summary',
      tier: 'waterfall-recent',
      stream: 'agent',
      period: 'memories 66-129',
      start: '2026-01-05',
      end: '2026-01-12',
      sources: [{ id: '2026-01/2026-01-05-0714-action-tests', sha256: 'a'.repeat(64) }],
      memories: 64,
      tokens: 700,
      bytes: 3000,
      generator: { provider: 'extractive', model: 'memvault-extractive-1', prompt: 'waterfall-recent@1234abcd' },
      input_hash: 'b'.repeat(64),
      output_hash: 'c'.repeat(64),
      waterfall: {
        compaction: 2,
        compacted_at_count: 193,
        covers_from: '2026-01/a',
        covers_through: '2026-01/b',
        history: 'agent/waterfall/history/recent-20260112-101500.md',
      },
    };
    const text = writeSummaryFile(meta, '# agent: recent past\n\n- I did things.\n');
    expect(text).toContain(
      'waterfall: { compaction: 2, compacted_at_count: 193, covers_from: 2026-01/a, covers_through: 2026-01/b, ' +
        'history: agent/waterfall/history/recent-20260112-101500.md }',
    );
    const parsed = parseSummaryFile(text, vaultPaths.waterfallRecent('agent'));
    expect(parsed.ok && parsed.summary.meta).toEqual(meta);
    const broken = parseSummaryFile(text.replace('compaction: 2,', 'compaction: two,'), vaultPaths.waterfallRecent('agent'));
    expect(broken.ok).toBe(false);
  });

  it('loads waterfall/recent.md and waterfall/longterm.md as summaries, never the history copies', () => {
    expect(classifyPath('agent/waterfall/recent.md')).toEqual({
      role: 'summary',
      stream: 'agent',
      tier: 'waterfall-recent',
      period: 'recent',
    });
    expect(classifyPath('agent/waterfall/longterm.md')).toEqual({
      role: 'summary',
      stream: 'agent',
      tier: 'waterfall-longterm',
      period: 'longterm',
    });
    expect(classifyPath('agent/waterfall/history/recent-20260112-101500.md')).toEqual({ role: 'ignored' });
    expect(classifyPath('agent/CONTEXT.md')).toEqual({ role: 'ignored' });
    expect(vaultPaths.waterfallHistory('agent', new Date('2026-01-12T10:15:00Z'), 2)).toBe(
      'agent/waterfall/history/recent-20260112-101500-2.md',
    );
  });
});
