import { describe, expect, it } from 'vitest';
import {
  assembleReport,
  type BuildParts,
  type CalendarOutcome,
  emptyStats,
  finishReport,
  TIERS,
  type StreamReport,
} from '../../src/pipeline/build-report.js';
import type { WaterfallReport } from '../../src/pipeline/waterfall/report.js';
import type { Diagnostic } from '../../src/vault/model.js';

/**
 * The build's report is made in one place from what the stages return
 * (build-report.ts): these pin the order of its lists and of its keys, which
 * `build --json` prints as they are.
 */

function warning(rule: string): Diagnostic {
  return { path: `${rule}.md`, line: 1, column: 1, severity: 'warning', reason: rule, rule };
}

function streamReport(name: string): StreamReport {
  const tiers = Object.fromEntries(TIERS.map((tier) => [tier, emptyStats()])) as StreamReport['tiers'];
  return { name, memories: 1, future: 0, tiers, held: [], deferred: [], planned: [], failed: [], package: null };
}

function calendar(name: string, written: string[], extra: Partial<CalendarOutcome> = {}): CalendarOutcome {
  return {
    report: streamReport(name),
    manifest: {} as CalendarOutcome['manifest'],
    written,
    historyCopies: [],
    archived: [],
    packageMs: 5,
    workerRollups: 0,
    ...extra,
  };
}

function waterfall(stream: string, written: string[], historyCopies: string[]): WaterfallReport {
  return {
    stream,
    memories: 1,
    compactions: [],
    planned: [],
    position: {} as WaterfallReport['position'],
    layers: { longterm: 0, recent: 0, immediate: 1 },
    context: null,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0, ms: 0 },
    notes: [],
    written,
    historyCopies,
  };
}

function parts(overrides: Partial<BuildParts> = {}): BuildParts {
  const none: Diagnostic[] = [];
  return {
    now: new Date('2026-11-22T06:00:00Z'),
    vault: 'vault',
    dryRun: false,
    generator: { provider: 'extractive', model: 'x' },
    load: { files: 3, read: 2, parsed: 1, workerParses: 0, helper: false, ms: 7 },
    diagnostics: {
      load: none,
      housekeeping: none,
      plan: none,
      nearDuplicates: none,
      facts: none,
      search: none,
      movedAside: none,
      summarizer: none,
    },
    applied: [],
    indexWritten: [],
    usageWritten: [],
    movedAside: [],
    ms: { plan: 1, index: 2 },
    ...overrides,
  };
}

describe('assembleReport', () => {
  it('lists the files in the order the stages wrote them, stream by stream, each once', () => {
    const report = assembleReport(
      parts({
        applied: [
          { waterfall: waterfall('agent', ['agent/waterfall/recent.md', 'agent/CONTEXT.md'], ['agent/waterfall/history/r.md']) },
          {
            calendar: calendar('main', ['main/UPLOAD_PACKAGE.md', 'main/daily/2026-11-21.md', 'main/UPLOAD_PACKAGE.md'], {
              historyCopies: ['main/history/daily/x.md'],
              workerRollups: 2,
            }),
          },
        ],
        indexWritten: ['INDEX.md', 'index.json'],
        usageWritten: ['main/usage.json'],
        movedAside: ['main/history/daily/x.md', 'main/daily/notes-aside.md'],
      }),
    );
    expect(report.written).toEqual([
      'agent/waterfall/recent.md',
      'agent/CONTEXT.md',
      'main/UPLOAD_PACKAGE.md',
      'main/daily/2026-11-21.md',
      'INDEX.md',
      'index.json',
      'main/usage.json',
    ]);
    expect(report.historyCopies).toEqual(['agent/waterfall/history/r.md', 'main/history/daily/x.md', 'main/daily/notes-aside.md']);
    expect(report.streams.map((s) => s.name)).toEqual(['main']);
    expect(report.waterfall.map((w) => w.stream)).toEqual(['agent']);
    expect(report.stats.workerRollups).toBe(2);
    expect(report.stats.package).toBe(5);
  });

  it('lists the diagnostics by the stage that found them, in the order the stages ran', () => {
    const report = assembleReport(
      parts({
        diagnostics: {
          load: [warning('load')],
          housekeeping: [warning('housekeeping')],
          plan: [warning('plan')],
          nearDuplicates: [warning('near')],
          facts: [warning('facts')],
          search: [warning('search')],
          movedAside: [warning('moved')],
          summarizer: [warning('summarizer')],
        },
      }),
    );
    expect(report.diagnostics.map((d) => d.rule)).toEqual([
      'load',
      'housekeeping',
      'plan',
      'near',
      'facts',
      'search',
      'moved',
      'summarizer',
    ]);
  });

  it('takes a dry run’s streams, waterfall and archive from the plan', () => {
    const planned = { streams: [streamReport('main')], waterfall: [waterfall('agent', [], [])], archived: [] };
    const report = assembleReport(parts({ dryRun: true, planned }));
    expect(report.streams).toBe(planned.streams);
    expect(report.waterfall).toBe(planned.waterfall);
    expect(report.dryRun).toBe(true);
  });

  it('keeps the keys in the order `build --json` prints them, the commit and stages added by finishReport', () => {
    const citations = { head: 'abc' } as unknown as BuildParts['citations'];
    const assembled = assembleReport(parts({ citations }));
    const report = finishReport(assembled, {
      commit: { status: 'disabled', note: 'off' },
      parsed: 4,
      commitMs: 3,
      ms: 20,
      stages: { load: 7 },
    });
    expect(Object.keys(report)).toEqual([
      'now',
      'vault',
      'dryRun',
      'streams',
      'waterfall',
      'written',
      'historyCopies',
      'archived',
      'commit',
      'diagnostics',
      'stats',
      'generator',
      'citations',
    ]);
    expect(Object.keys(report.stats)).toEqual([
      'files',
      'read',
      'parsed',
      'workerParses',
      'workerRollups',
      'helper',
      'ms',
      'load',
      'plan',
      'package',
      'index',
      'commit',
      'stages',
    ]);
    expect(report.stats).toMatchObject({ parsed: 4, commit: 3, ms: 20, load: 7, plan: 1, index: 2 });
    expect(report.commit).toEqual({ status: 'disabled', note: 'off' });
    expect(assembled.commit).toBeNull();
  });
});
