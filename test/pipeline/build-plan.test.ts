import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { type BuildPlan, type BuildPlanInput, packageBase, planBuild } from '../../src/pipeline/build-plan.js';
import { packageInputHash, packageMemoriesDigest } from '../../src/pipeline/package/index.js';
import type { RollupJob } from '../../src/pipeline/calendar/plan.js';
import { resolveTier } from '../../src/pipeline/calendar/plan-periods.js';
import { movesDue, planArchive } from '../../src/pipeline/calendar/archive.js';
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

/** Applies a plan in memory the way calendar/apply.ts does: each tier above daily resolved as planned from what the tier below wrote. */
function applyInMemory(plan: BuildPlan, state: VaultState): void {
  for (const streamPlan of plan.streams) {
    const stream = state.streams.get(streamPlan.name)!;
    for (const tier of TIERS) {
      const coarser = streamPlan.coarser.find((c) => c.tier === tier);
      const tierPlan = coarser
        ? resolveTier(coarser, stream.summaries, streamPlan.bands.longtermThrough, streamPlan.context)
        : streamPlan.finest;
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
    expect(plan.streams[0]!.finest.jobs.map((j) => j.period)).not.toContain('2026-02-18');
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

  it("hands the apply step the memories' digest it hashed the package with: the same input hash, worked out once", () => {
    const state = vault(DAYS.map((day) => memory(day)));
    const plan = planBuild(input(state)).streams[0]!.package;
    const stream = state.streams.get('main')!;
    expect(plan.memoriesDigest).toBe(packageMemoriesDigest(stream.memories));
    const base = packageBase(stream, planBuild(input(state)).streams[0]!.bands, config);
    expect(packageInputHash(base, plan.memoriesDigest)).toBe(plan.inputHash);
    expect(packageInputHash(base)).toBe(plan.inputHash);
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
    // The weeklies are rewritten, so January (W05's month) is planned too: the apply step makes it from their new hashes.
    expect(planned(plan)).toEqual([
      'weekly 2026-W05 (stale)',
      'weekly 2026-W06 (stale)',
      'weekly 2026-W07 (stale)',
      'monthly 2026-01 (inputs change)',
    ]);
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

describe('planned once, applied as planned', () => {
  const cold = () => vault(DAYS.map((day) => memory(day)));
  const coarser = (plan: BuildPlan, tier: CalendarTier) => plan.streams[0]!.coarser.find((c) => c.tier === tier)!;
  const resolve = (plan: BuildPlan, state: VaultState, tier: CalendarTier) => {
    const s = plan.streams[0]!;
    return resolveTier(coarser(plan, tier), state.streams.get('main')!.summaries, s.bands.longtermThrough, s.context);
  };
  const record = (state: VaultState, jobs: readonly RollupJob[]) => {
    for (const job of jobs) state.streams.get('main')!.summaries.set(job.path, summaryOf(job));
  };

  it("names each upper period's inputs: a week from its dailies, a month from its weeklies", () => {
    const plan = planBuild(input(cold()));
    const week = coarser(plan, 'weekly').periods.find((p) => p.period === '2026-W07')!;
    expect(week).toMatchObject({ reason: 'inputs change', start: '2026-02-09', end: '2026-02-15' });
    expect(week.inputs).toEqual([
      { period: '2026-02-10', path: 'main/daily/2026-02-10.md' },
      { period: '2026-02-12', path: 'main/daily/2026-02-12.md' },
    ]);
    expect(coarser(plan, 'monthly').periods.map((p) => [p.period, p.inputs.map((i) => i.period)])).toEqual([['2026-01', ['2026-W05']]]);
  });

  it('a tier resolves only its planned periods, once the tier below is written; an input that failed defers its period', () => {
    const state = cold();
    const plan = planBuild(input(state));
    // Before the dailies exist every planned week waits for them.
    expect(resolve(plan, state, 'weekly').jobs).toEqual([]);
    expect(resolve(plan, state, 'weekly').deferred.map((d) => d.period)).toEqual(['2026-W05', '2026-W06', '2026-W07']);
    // The daily of 2026-02-12 fails: its week waits, the others are made.
    record(
      state,
      plan.streams[0]!.finest.jobs.filter((job) => job.period !== '2026-02-12'),
    );
    const weekly = resolve(plan, state, 'weekly');
    expect(weekly.jobs.map((job) => [job.period, job.reason])).toEqual([
      ['2026-W05', 'missing'],
      ['2026-W06', 'missing'],
    ]);
    expect(weekly.deferred).toEqual([{ period: '2026-W07', reason: 'no summary yet for 2026-02-12' }]);
  });

  it('a planned period whose inputs come out the same is left unchanged, not made again', () => {
    const state = cold();
    applyInMemory(planBuild(input(state)), state);
    const daily = 'main/daily/2026-02-10.md';
    const plan = planBuild(input(state, { regenerate: new Set([daily]) }));
    expect(planned(plan)).toEqual(['daily 2026-02-10 (regenerate)', 'weekly 2026-W07 (inputs change)']);
    // The summarizer wrote the very same file again: the week's input hash is the one it was made from.
    const week = resolve(plan, state, 'weekly');
    expect(week.jobs).toEqual([]);
    expect(week.unchanged.map((p) => p.period)).toEqual(['2026-W07']);
    // Rewritten with other bytes, the same planned week is made again.
    const summaries = state.streams.get('main')!.summaries;
    summaries.set(daily, { ...summaries.get(daily)!, sha256: sha256('another text') });
    expect(resolve(plan, state, 'weekly').jobs.map((job) => [job.period, job.reason])).toEqual([['2026-W07', 'stale']]);
  });

  it('plans archive candidates before their summaries exist; the apply step moves those the tiers above hold then', () => {
    const retention = { memories_days: 14, daily_days: 14, weekly_weeks: 1 };
    const archiving = configSchema.parse({ calendar: { retention } });
    const state = cold();
    const plan = planBuild(input(state, { config: archiving }));
    const s = plan.streams[0]!;
    expect(s.archive).toEqual([]); // nothing is held yet
    expect(s.archivePlan.memories.map((m) => m.day)).toEqual(['2026-01-26', '2026-01-28', '2026-02-02']);
    expect(s.archivePlan.summaries).toEqual([
      'main/daily/2026-01-26.md',
      'main/daily/2026-01-28.md',
      'main/daily/2026-02-02.md',
      'main/weekly/2026-W05.md',
      'main/weekly/2026-W06.md',
    ]);
    applyInMemory(plan, state);
    const moves = movesDue(s.archivePlan, plan.order[0]!.stream);
    // January's month holds W05, its dailies and memories; W06 (February's) waits for its month.
    expect(moves.map((m) => `${m.kind} ${m.id}`)).toEqual([
      'memory 2026-01-26-0',
      'memory 2026-01-28-0',
      'daily 2026-01-26',
      'daily 2026-01-28',
      'weekly 2026-W05',
    ]);
    expect(moves).toEqual(planArchive(plan.order[0]!.stream, retention, '2026-02-18'));
  });
});
