import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { Manifest } from '../../src/pipeline/package/index.js';
import { vaultStatus } from '../../src/pipeline/status.js';
import type { Memory, StreamState, Summary, VaultState } from '../../src/vault/model.js';

/** `vaultStatus` on in-memory vaults: the figures `memvault status` prints, for both kinds of stream, without reading a file. */

const ROOT = '/project';

function memory(stream: string, day: string, n: number, extra: Partial<Memory> = {}): Memory {
  return {
    id: `${day}-${n}`,
    stream,
    path: `${stream}/memories/${day}-${n}.md`,
    location: 'memories',
    date: `${day}T10:00:00Z`,
    day,
    minute: 600 + n,
    title: undefined,
    kind: 'note',
    tags: [],
    importance: 'normal',
    sha256: `sha-${stream}-${day}-${n}`,
    ...extra,
  };
}

function daily(day: string, tokens: number, extra: Partial<Summary['meta']> = {}, edited = false): Summary {
  return {
    path: `main/daily/${day}.md`,
    sha256: `file-${day}`,
    bodyHash: edited ? 'edited' : `out-${day}`,
    meta: {
      memvault: 'summary',
      tier: 'daily',
      stream: 'main',
      period: day,
      start: day,
      end: day,
      sources: [],
      memories: 1,
      tokens,
      bytes: tokens * 4,
      generator: { provider: 'extractive', model: 'm', prompt: 'daily@1' },
      input_hash: `in-${day}`,
      output_hash: `out-${day}`,
      ...extra,
    },
  };
}

const main: StreamState = {
  name: 'main',
  memories: [
    memory('main', '2026-02-10', 0),
    memory('main', '2026-02-10', 1, { importance: 'pinned' }),
    memory('main', '2026-02-12', 0, { location: 'archive', path: 'main/archive/2026-Q1/2026-02-12-0.md' }),
  ],
  summaries: new Map(
    [
      daily('2026-02-10', 120, { must_keep: 10, dropped: ['a', 'b'] }),
      daily('2026-02-12', 280, { must_keep: 10, review: ['over-budget'] }, true),
    ].map((s) => [s.path, s]),
  ),
};
// 140 memories, the last two after `now`: the waterfall counts 138, one compaction due at 129 has not run.
const agent: StreamState = {
  name: 'agent',
  memories: Array.from({ length: 140 }, (_, i) => memory('agent', i < 138 ? '2026-02-10' : '2026-02-20', i)),
  summaries: new Map(),
};
const state: VaultState = {
  streams: new Map([
    ['main', main],
    ['agent', agent],
  ]),
  diagnostics: [
    { path: 'main/memories/x.md', line: 1, column: 1, severity: 'error', reason: 'secret', hint: 'h', rule: 'secret/aws-key' } as never,
  ],
};
const config = configSchema.parse({ streams: { main: { calendar: true, waterfall: false }, agent: { calendar: false, waterfall: true } } });
const manifest = {
  tokens: 900,
  bytes: 3600,
  budget: { max_tokens: 8750, max_bytes: 35840 },
  items: [{ status: 'included' }, { status: 'degraded' }, { status: 'left-out' }, { status: 'left-out' }],
} as unknown as Manifest;

describe('vaultStatus', () => {
  const status = vaultStatus({
    config,
    root: ROOT,
    state,
    now: new Date('2026-02-18T12:00:00Z'),
    files: { manifests: new Map([['main', manifest]]), waterfall: new Map([['agent', { context: undefined, history: new Map() }]]) },
  });

  it('counts a calendar stream: memories, archived, pinned, coverage, tiers against budgets, retention, review, package', () => {
    const s = status.streams.find((x) => x.name === 'main')!;
    expect([s.memories, s.archived, s.pinned]).toEqual([3, 1, 1]);
    expect(s.coverage).toEqual({ first_day: '2026-02-10', last_day: '2026-02-12', days_with_memories: 2 });
    expect(s.tiers.daily).toEqual({
      count: 2,
      tokens_total: 400,
      tokens_max: 280,
      budget_tokens: config.calendar.daily.target_tokens,
      over_budget: ['main/daily/2026-02-12.md'],
      edited: ['main/daily/2026-02-12.md'],
      retention: { items: 20, dropped: 2, rate: 0.9 },
    });
    expect(s.tiers.weekly!.count).toBe(0);
    expect(s.package).toEqual({
      path: 'vault/main/UPLOAD_PACKAGE.md',
      tokens: 900,
      bytes: 3600,
      max_tokens: 8750,
      max_bytes: 35840,
      degraded: 1,
      left_out: 2,
    });
    expect(s.waterfall).toBeUndefined();
  });

  it('gives a waterfall stream its position from the memories up to now, and says CONTEXT.md is not built', () => {
    const s = status.streams.find((x) => x.name === 'agent')!;
    expect(s.memories).toBe(140);
    expect(s.package).toBeNull();
    expect(s.waterfall).toMatchObject({ memories: 138, compaction: 0, next_compaction_at: 129, context: null });
    expect(s.waterfall!.layers.immediate + s.waterfall!.layers.recent + s.waterfall!.layers.longterm).toBe(138);
  });

  it('lists the memories held back for a secret and every invalid file', () => {
    expect(status.held_for_secrets).toEqual(['main/memories/x.md']);
    expect(status.invalid).toHaveLength(1);
    expect(status.vault).toBe('/project/vault');
  });
});
