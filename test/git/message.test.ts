import { describe, expect, it } from 'vitest';
import { commitMessage, selectPaths, type StreamSources } from '../../src/pipeline/commit.js';
import type { BuildReport, StreamReport } from '../../src/pipeline/build.js';
import type { Memory } from '../../src/vault/model.js';

/**
 * What a build commits and what the message says, from the build report:
 * pure functions, checked on hand-made reports.
 */

function streamReport(name: string, extra: Partial<StreamReport> = {}): StreamReport {
  return {
    name,
    memories: 0,
    future: 0,
    tiers: {} as StreamReport['tiers'],
    held: [],
    deferred: [],
    planned: [],
    failed: [],
    package: null,
    ...extra,
  } as StreamReport;
}

function report(extra: Partial<BuildReport>): BuildReport {
  return {
    now: '2026-02-16T06:00:00.000Z',
    vault: 'vault',
    dryRun: false,
    streams: [streamReport('main')],
    written: [],
    historyCopies: [],
    archived: [],
    commit: null,
    diagnostics: [],
    generator: { provider: 'extractive', model: 'memvault-extractive-1' },
    ...extra,
  } as BuildReport;
}

const mem = (path: string, day: string, sha = `sha-${path}`): Memory => ({
  id: path,
  stream: path.split('/')[0]!,
  path,
  location: 'memories',
  date: day,
  day,
  minute: 0,
  title: undefined,
  kind: 'note',
  tags: [],
  importance: 'normal',
  sha256: sha,
});

describe('commit message', () => {
  it('names the newest period of the coarsest tier and counts what was rolled up and archived', () => {
    const message = commitMessage(
      report({
        written: [
          'main/daily/2026-02-12.md',
          'main/daily/2026-02-10.md',
          'main/daily/2026-02-11.md',
          'main/weekly/2026-W07.md',
          'main/UPLOAD_PACKAGE.md',
          'index.json',
        ],
        historyCopies: ['main/history/daily/2026-02-11-20260216-060000.md'],
        archived: [
          { stream: 'main', kind: 'memory', id: 'a', from: 'main/memories/a.md', to: 'main/archive/2026-Q1/a.md', quarter: '2026-Q1' },
          {
            stream: 'main',
            kind: 'daily',
            id: '2025-11-02',
            from: 'main/daily/2025-11-02.md',
            to: 'main/archive/2025-Q4/daily/2025-11-02.md',
            quarter: '2025-Q4',
          },
        ],
        streams: [
          streamReport('main', {
            package: { path: 'main/UPLOAD_PACKAGE.md', tokens: 812, bytes: 3301, changed: true, degraded: 0, leftOut: 0 },
            held: [{ path: 'main/daily/2026-02-03.md', status: 'edited, stale' }],
          }),
        ],
      }),
    );
    expect(message).toBe(
      [
        'memvault: rollup 2026-W07 — 3 daily, 1 weekly, 2 archived',
        '',
        'main: daily 2026-02-10, 2026-02-11, 2026-02-12; weekly 2026-W07',
        'main: archived 1 memory, 1 daily to archive/2025-Q4, archive/2026-Q1',
        'main: UPLOAD_PACKAGE.md 812 tokens, 3301 bytes',
        'main: kept hand-edited main/daily/2026-02-03.md (edited, stale)',
        'previous versions kept: 1 file(s) under history/',
        'memvault build as of 2026-02-16T06:00:00.000Z (extractive/memvault-extractive-1)',
        '',
      ].join('\n'),
    );
  });

  it('prefers a monthly, counts archived summaries regenerated in place, and says when only outputs changed', () => {
    expect(
      commitMessage(
        report({
          written: ['main/monthly/2026-01.md', 'main/weekly/2026-W05.md', 'main/archive/2026-Q1/daily/2026-01-06.md', 'main/longterm.md'],
        }),
      ).split('\n')[0],
    ).toBe('memvault: rollup 2026-01 — 1 daily, 1 weekly, 1 monthly, long-term');
    expect(commitMessage(report({ written: ['main/UPLOAD_PACKAGE.md', 'INDEX.md', 'index.json'] })).split('\n')[0]).toBe(
      'memvault: update package, index',
    );
    expect(commitMessage(report({ written: ['agent/CONTEXT.md', 'agent/waterfall/recent.md'] })).split('\n')[0]).toBe(
      'memvault: rollup waterfall — waterfall compaction',
    );
    expect(
      commitMessage(
        report({
          archived: [
            {
              stream: 'main',
              kind: 'weekly',
              id: '2025-W40',
              from: 'main/weekly/2025-W40.md',
              to: 'main/archive/2025-Q4/weekly/2025-W40.md',
              quarter: '2025-Q4',
            },
          ],
        }),
      ).split('\n')[0],
    ).toBe('memvault: archive — 1 archived');
    expect(commitMessage(report({ written: ['index.json'] }), true)).toContain('also commits what an interrupted build left uncommitted');
  });
});

describe('paths to commit', () => {
  const streams: StreamSources[] = [
    {
      name: 'main',
      memories: [
        mem('main/memories/a.md', '2026-02-10'),
        mem('main/memories/b.md', '2026-02-11'),
        mem('main/memories/today.md', '2026-02-16'),
        mem('main/archive/2026-Q1/old.md', '2026-01-02'),
      ],
      manifest: {
        items: [
          {
            type: 'memory',
            tier: 'raw',
            id: 'today',
            path: 'main/memories/today.md',
            start: '2026-02-16',
            end: '2026-02-16',
            status: 'included',
          },
        ],
      } as StreamSources['manifest'],
    },
  ];

  it('commits what was written, copied and moved, plus the memories behind the rewritten dailies and package, pinned to the hash the build read', () => {
    const selected = selectPaths(
      report({
        written: ['main/daily/2026-02-10.md', 'main/UPLOAD_PACKAGE.md'],
        historyCopies: ['main/history/daily/2026-02-10-20260216-060000.md'],
        archived: [
          {
            stream: 'main',
            kind: 'memory',
            id: 'old',
            from: 'main/memories/old.md',
            to: 'main/archive/2026-Q1/old.md',
            quarter: '2026-Q1',
          },
        ],
        streams: [
          streamReport('main', {
            package: { path: 'main/UPLOAD_PACKAGE.md', tokens: 1, bytes: 1, changed: true, degraded: 0, leftOut: 0 },
            held: [{ path: 'main/daily/2026-02-03.md', status: 'edited' }],
          }),
        ],
      }),
      streams,
    );
    expect(selected.paths).toEqual([
      'main/UPLOAD_PACKAGE.md',
      'main/archive/2026-Q1/old.md',
      'main/daily/2026-02-10.md',
      'main/history/daily/2026-02-10-20260216-060000.md',
      'main/memories/old.md',
    ]);
    expect([...selected.pinned]).toEqual([
      ['main/memories/a.md', 'sha-main/memories/a.md'],
      ['main/memories/today.md', 'sha-main/memories/today.md'],
    ]);
    expect([...selected.keep]).toEqual(['main/daily/2026-02-03.md']);
  });

  it('pins no memory when only the index changed, and every memory of a stream whose waterfall context was rewritten', () => {
    expect(selectPaths(report({ written: ['index.json'] }), streams).pinned.size).toBe(0);
    const waterfall = selectPaths(report({ written: ['main/CONTEXT.md'] }), streams);
    expect([...waterfall.pinned.keys()].sort()).toEqual([
      'main/archive/2026-Q1/old.md',
      'main/memories/a.md',
      'main/memories/b.md',
      'main/memories/today.md',
    ]);
  });
});
