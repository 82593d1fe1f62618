import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { type BuildPlan, type BuildPlanInput, planBuild, planTier } from '../../src/pipeline/build-plan.js';
import type { RollupJob } from '../../src/pipeline/calendar/plan.js';
import { sha256 } from '../../src/util/hash.js';
import type { CalendarTier, Memory, StreamState, Summary, VaultState } from '../../src/vault/model.js';

/**
 * The build's planner on in-memory vaults: no files, no summarizer. An
 * "apply" here turns each planned job into the summary the real apply would
 * record (same input hash, unedited body), tier after tier, so a second plan
 * shows what a second build would do.
 */

const config = configSchema.parse({});
// Wednesday of 2026-W08: W07 (2026-02-09 … 15) and January are complete; February and W08 are not.
const NOW = new Date('2026-02-18T15:00:00Z');
const TIERS: CalendarTier[] = ['daily', 'weekly', 'monthly', 'longterm'];

function memory(day: string, n = 0, extra: Partial<Memory> = {}): Memory {
  const id = `${day}-${n}`;
  return {
    id,
    stream: 'main',
    path: `main/memories/${day.slice(0, 4)}/${day.slice(5, 7)}/${id}.md`,
    location: 'memories',
    date: `${day}T10:0${n}:00Z`,
    day,
    minute: 600 + n,
    title: `Work ${id}`,
    kind: 'note',
    tags: [],
    importance: 'normal',
    sha256: sha256(`memory ${id}`),
    ...extra,
  };
}

const DAYS = ['2026-01-26', '2026-01-28', '2026-02-02', '2026-02-10', '2026-02-12', '2026-02-16', '2026-02-18'];

function vault(memories: Memory[], summaries: Summary[] = []): VaultState {
  const stream: StreamState = { name: 'main', memories, summaries: new Map(summaries.map((s) => [s.path, s])) };
  return { streams: new Map([['main', stream]]), diagnostics: [] };
}

function input(state: VaultState, extra: Partial<BuildPlanInput> = {}): BuildPlanInput {
  return {
    config,
    state,
    now: NOW,
    force: false,
    regenerate: new Set(),
    generator: { provider: 'extractive', model: 'test-1', promptId: (tier) => `${tier}@1` },
    manifests: new Map(),
    packageFirst: false,
    ...extra,
  };
}

/** The summary a build records for a job: its input hash, an unedited body. */
function summaryOf(job: RollupJob): Summary {
  const body = sha256(`body ${job.path} ${job.inputHash}`);
  return {
    path: job.path,
    sha256: sha256(`file ${job.path} ${job.inputHash}`),
    bodyHash: body,
    meta: {
      memvault: 'summary',
      tier: job.tier,
      stream: job.stream,
      period: job.period,
      start: job.start,
      end: job.end,
      sources: job.sources,
      memories: job.memories,
      tokens: 100,
      bytes: 400,
      generator: { provider: 'extractive', model: 'test-1', prompt: `${job.tier}@1` },
      input_hash: job.inputHash,
      output_hash: body,
      ...(job.folded ? { folded: job.folded } : {}),
    },
  };
}

/** Applies a plan in memory the way calendar-apply does: each tier planned again from what the tier below wrote. */
function applyInMemory(plan: BuildPlan, state: VaultState): void {
  for (const streamPlan of plan.streams) {
    const stream = state.streams.get(streamPlan.name)!;
    const upToNow = plan.order.find((o) => o.name === streamPlan.name)!.stream;
    for (const tier of TIERS) {
      const tierPlan =
        tier === 'daily' ? streamPlan.tiers.daily : planTier(tier, upToNow, streamPlan.bands.longtermThrough, streamPlan.context);
      for (const job of tierPlan.jobs) {
        const summary = summaryOf(job);
        stream.summaries.set(summary.path, summary);
      }
    }
  }
}

const planned = (plan: BuildPlan) => plan.streams[0]!.planned.map((p) => `${p.tier} ${p.period} (${p.reason})`);

describe('planBuild', () => {
  it('plans every complete day of a new vault, the weeks and months they complete, and the package', () => {
    const plan = planBuild(input(vault(DAYS.map((day) => memory(day)))));
    expect(plan.horizon).toBe('2026-02-17');
    expect(planned(plan)).toEqual([
      'daily 2026-01-26 (missing)',
      'daily 2026-01-28 (missing)',
      'daily 2026-02-02 (missing)',
      'daily 2026-02-10 (missing)',
      'daily 2026-02-12 (missing)',
      'daily 2026-02-16 (missing)',
      'weekly 2026-W05 (inputs change)',
      'weekly 2026-W06 (inputs change)',
      'weekly 2026-W07 (inputs change)',
      'monthly 2026-01 (inputs change)',
    ]);
    // Today is incomplete, and so are W08 and February (W06's and W07's month).
    expect(plan.streams[0]!.tiers.daily.jobs.map((j) => j.period)).not.toContain('2026-02-18');
    expect(plan.streams[0]!.package).toMatchObject({ path: 'main/UPLOAD_PACKAGE.md', write: true, reason: 'missing' });
  });

  it('a second plan after an in-memory apply has nothing left to do', () => {
    const state = vault(DAYS.map((day) => memory(day)));
    const first = planBuild(input(state));
    applyInMemory(first, state);
    const second = planBuild(input(state));
    expect(planned(second)).toEqual([]);
    expect(second.streams[0]!.deferred).toEqual([]);
    expect([...state.streams.get('main')!.summaries.keys()].filter((p) => p.includes('/weekly/'))).toEqual([
      'main/weekly/2026-W05.md',
      'main/weekly/2026-W06.md',
      'main/weekly/2026-W07.md',
    ]);
  });

  it('with a manifest that matches, the package is fresh; an edited memory makes its daily stale, its week and month follow', () => {
    const state = vault(DAYS.map((day) => memory(day)));
    applyInMemory(planBuild(input(state)), state);
    const fresh = planBuild(input(state));
    const inputHash = fresh.streams[0]!.package.inputHash;
    const manifest = { inputHash, read: () => ({ input_hash: inputHash }) as never };
    expect(planBuild(input(state, { manifests: new Map([['main', manifest]]) })).streams[0]!.package).toMatchObject({
      write: false,
      reason: 'fresh',
    });

    const stream = state.streams.get('main')!;
    const edited = stream.memories.map((m) => (m.day === '2026-01-28' ? { ...m, sha256: sha256('edited') } : m));
    const after = planBuild(input(vault(edited, [...stream.summaries.values()]), { manifests: new Map([['main', manifest]]) }));
    expect(planned(after)).toEqual(['daily 2026-01-28 (stale)', 'weekly 2026-W05 (inputs change)', 'monthly 2026-01 (inputs change)']);
    expect(after.streams[0]!.package).toMatchObject({ write: true, reason: 'stale' });
  });

  it('takes a manifest whose end names another input hash as stale without reading it; one that names none is read', () => {
    const state = vault(DAYS.map((day) => memory(day)));
    applyInMemory(planBuild(input(state)), state);
    const unread = {
      inputHash: 'f'.repeat(64),
      read: () => {
        throw new Error('a 30 MB manifest read only to learn it is stale');
      },
    };
    expect(planBuild(input(state, { manifests: new Map([['main', unread]]) })).streams[0]!.package).toMatchObject({
      write: true,
      reason: 'stale',
      previous: undefined,
    });
    const inputHash = planBuild(input(state)).streams[0]!.package.inputHash;
    let reads = 0;
    const hashless = {
      inputHash: undefined,
      read: () => {
        reads++;
        return { input_hash: inputHash } as never;
      },
    };
    expect(planBuild(input(state, { manifests: new Map([['main', hashless]]) })).streams[0]!.package.reason).toBe('fresh');
    expect(reads).toBe(1);
  });

  it('holds a summary a person edited, and lists a changed prompt as stale in the tier it belongs to', () => {
    const state = vault(DAYS.map((day) => memory(day)));
    applyInMemory(planBuild(input(state)), state);
    const summaries = state.streams.get('main')!.summaries;
    const daily = summaries.get('main/daily/2026-02-10.md')!;
    summaries.set(daily.path, { ...daily, bodyHash: sha256('a person wrote this') });
    const plan = planBuild(
      input(state, {
        generator: { provider: 'extractive', model: 'test-1', promptId: (tier) => (tier === 'weekly' ? 'weekly@2' : `${tier}@1`) },
      }),
    );
    expect(plan.streams[0]!.held).toEqual([{ path: 'main/daily/2026-02-10.md', status: 'edited' }]);
    expect(planned(plan)).toEqual(['weekly 2026-W05 (stale)', 'weekly 2026-W06 (stale)', 'weekly 2026-W07 (stale)']);
  });

  it('leaves memories dated after now out, with an info message, and --force plans today', () => {
    const memories = [...DAYS.map((day) => memory(day)), memory('2026-02-18', 9, { minute: 23 * 60 }), memory('2026-03-01')];
    const plan = planBuild(input(vault(memories)));
    expect(plan.streams[0]!.future).toBe(2);
    expect(plan.diagnostics.map((d) => [d.rule, d.severity, d.path])).toEqual([
      ['memory/future-date', 'info', memories[7]!.path],
      ['memory/future-date', 'info', memories[8]!.path],
    ]);
    const forced = planBuild(input(vault(memories), { force: true }));
    expect(forced.streams[0]!.planned.filter((p) => p.tier === 'daily').map((p) => p.period)).toContain('2026-02-18');
    expect(forced.streams[0]!.planned.filter((p) => p.tier === 'daily').map((p) => p.period)).not.toContain('2026-03-01');
  });

  it('plans a waterfall-only stream through the injected planner and gives it no calendar plan', () => {
    const waterfallConfig = configSchema.parse({ streams: { agent: { calendar: false, waterfall: true } } });
    const agent: StreamState = { name: 'agent', memories: DAYS.map((day) => ({ ...memory(day), stream: 'agent' })), summaries: new Map() };
    const seen: string[] = [];
    const plan = planBuild({
      ...input({ streams: new Map([['agent', agent]]), diagnostics: [] }),
      config: waterfallConfig,
      planWaterfall: (stream) => {
        seen.push(`${stream.name}:${stream.memories.length}`);
        return { stream: stream.name } as never;
      },
    });
    // Today's memory (10:00) is up to now (15:00).
    expect(seen).toEqual(['agent:7']);
    expect(plan.streams).toEqual([]);
    expect(plan.order.map((o) => [o.name, o.calendar, o.waterfall])).toEqual([['agent', false, true]]);
  });
});
