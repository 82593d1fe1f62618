import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { planArchive } from '../../src/pipeline/calendar/archive.js';
import type { Memory, StreamState, Summary, SummaryMeta } from '../../src/vault/model.js';
import { generateHistory } from '../helpers/history.js';
import { copyProject, createProject, memory, readJsonFile, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';
import { changedIn, filesAt, git, gitConfig, initRepo, memoryNames, porcelain } from './helpers.js';

/**
 * Retention: memories, dailies and weeklies past their windows move to
 * `archive/<YYYY-Qn>/` as git renames, only once the pyramid above holds
 * them; nothing is regenerated because of a move, and history follows them.
 */

const RETENTION = 'calendar:\n  retention: { memories_days: 30, daily_days: 40, weekly_weeks: 6 }\n';
/** Monday 2026-02-09: January (W02–W05, 01-05 to 02-01) gets its monthly; memories before 01-10 are past retention. */
const NOW1 = '2026-02-09T06:00:00Z';
/** Friday 2026-03-20: February (W06–W09) gets its monthly; memories before 02-18, dailies before 02-08 and weeklies ending before 02-06 are past retention. */
const NOW2 = '2026-03-20T06:00:00Z';

const history = generateHistory({ from: '2026-01-05', to: '2026-03-19', seed: 5 });
const PINNED = 'vault/main/memories/rules/deploys.md';

describe('archive: past retention, into archive/<quarter>/', () => {
  let root: string;
  let first: any;
  let second: any;

  beforeAll(async () => {
    root = createProject(
      {
        ...history.files,
        [PINNED]: memory({ date: '2026-01-06T08:00:00Z', title: 'Deploy rule', importance: 'pinned', body: 'Never deploy on Fridays.' }),
        '.gitignore': '.memvault/\n',
      },
      gitConfig(RETENTION),
    );
    initRepo(root);
    // The first build through the CLI (its JSON report); the builds after it in-process, without a CLI start each.
    first = (await runCliJson(['build', '--now', NOW1, '--json'], { cwd: root })).json;
    second = await build({ root, now: new Date(NOW2) });
    // Two builds of ten weeks of memories: over the default hook timeout when the shared cores are busy.
  }, 180_000);
  afterAll(() => removeProject(root));

  it('moves the memories, dailies and weeklies past retention once a monthly holds them, in the build that makes the monthly', () => {
    const memoriesOf = (days: string[]) =>
      days
        .flatMap((day) => history.byDay.get(day)!)
        .map((file) => file.replace(/^vault\//, ''))
        .sort();
    const days = [...history.byDay.keys()];
    expect(first.archived.map((m: any) => [m.kind, m.from])).toEqual(
      memoriesOf(days.filter((day) => day < '2026-01-10')).map((file) => ['memory', file]),
    );
    const byKind = (kind: string) => second.archived.filter((m: any) => m.kind === kind);
    expect(
      byKind('memory')
        .map((m: any) => m.from)
        .sort(),
    ).toEqual(memoriesOf(days.filter((day) => day >= '2026-01-10' && day < '2026-02-18')));
    for (const move of [...first.archived, ...byKind('memory')])
      expect(move.to).toBe(move.from.replace('main/memories/', 'main/archive/2026-Q1/'));
    expect(byKind('daily').map((m: any) => m.to)).toEqual(
      days.filter((day) => day < '2026-02-08').map((day) => `main/archive/2026-Q1/daily/${day}.md`),
    );
    expect(byKind('weekly').map((m: any) => m.to)).toEqual(
      ['2026-W02', '2026-W03', '2026-W04', '2026-W05'].map((week) => `main/archive/2026-Q1/weekly/${week}.md`),
    );
    // The pinned memory stays where it is.
    expect(existsSync(path.join(root, PINNED))).toBe(true);
    for (const move of second.archived) {
      expect(existsSync(path.join(root, 'vault', move.to))).toBe(true);
      expect(existsSync(path.join(root, 'vault', move.from))).toBe(false);
    }
  });

  it('regenerates nothing because of the moves: archived summaries stay fresh and keep their content', () => {
    // Only what is new since NOW1: dailies from 02-09, weeklies from W07, February's monthly.
    const summaries = second.written.filter((file: string) => /\/(daily|weekly|monthly)\//.test(file)).sort();
    expect(summaries.filter((file: string) => /daily\/2026-(01-|02-0[1-8])|weekly\/2026-W0[2-6]|monthly\/2026-01/.test(file))).toEqual([]);
    expect(summaries).toContain('main/monthly/2026-02.md');
    expect(second.historyCopies).toEqual([]);
  });

  it('commits each move as a rename (git mv), both ends in the same commit', () => {
    const changed = changedIn(root);
    const before = new Set(filesAt(root, 'HEAD~1'));
    // Memories dated after NOW1 were never committed where they were written: they arrive in the archive directly.
    const wasCommitted = second.archived.filter((m: any) => before.has(`vault/${m.from}`));
    expect(wasCommitted.length).toBeGreaterThan(40);
    const renames = changed.filter(([status]) => status!.startsWith('R'));
    expect(renames.every(([status]) => status === 'R100')).toBe(true);
    expect(renames.map(([, from, to]) => [from, to]).sort()).toEqual(
      wasCommitted.map((m: any) => [`vault/${m.from}`, `vault/${m.to}`]).sort(),
    );
    for (const move of second.archived.filter((m: any) => !before.has(`vault/${m.from}`)))
      expect(changed).toContainEqual(['A', `vault/${move.to}`]);
    expect(git(root, 'log', '-1', '--format=%s')).toMatch(new RegExp(`, ${second.archived.length} archived\\n$`));
    expect(porcelain(root)).toEqual(['?? .gitignore', '?? memory.config.yaml']);
  });

  it('keeps every memory in HEAD (under memories/ or archive/) and the package covering every day', () => {
    const names = memoryNames(Object.keys(history.files)).concat('deploys.md').sort();
    expect(memoryNames(filesAt(root))).toEqual(names);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(manifest.coverage.days_covered).toBe(manifest.coverage.days_with_memories);
    const index = readJsonFile(root, 'vault/index.json');
    expect(index.streams[0].memories.archived).toBe([...first.archived, ...second.archived].filter((m: any) => m.kind === 'memory').length);
  });

  it('is idempotent after archiving: the same build again writes nothing and commits nothing', async () => {
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const json = await build({ root, now: new Date(NOW2) });
    expect(json.archived).toEqual([]);
    expect(json.written).toEqual([]);
    expect(json.commit?.status).toBe('unchanged');
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
  });

  it('follows an archived memory in memvault log and show, back to where it was', async () => {
    const move = second.archived.find((m: any) => m.kind === 'memory');
    const log = await runCliJson(['log', `vault/${move.to}`, '--json'], { cwd: root });
    expect(log.json.versions.map((v: any) => [v.change, v.path])).toEqual([
      ['moved', `vault/${move.to}`],
      ['added', `vault/${move.from}`],
    ]);
    const then = await runCli(['show', `vault/${move.from}`, '--at', '2026-02-09'], { cwd: root });
    expect(then.code).toBe(0);
    expect(then.stdout).toBe(readText(root, `vault/${move.to}`));
    const same = await runCli(['show', `vault/${move.to}`, '--at', '2026-02-09'], { cwd: root });
    expect(same.stdout).toBe(then.stdout);
  });

  it('regenerates an archived daily where it lies when its archived memory changes', async () => {
    const copy = copyProject(root);
    try {
      const move = first.archived.find((m: any) => m.kind === 'memory' && m.from.includes('2026-01-06'));
      writeFileSync(
        path.join(copy, 'vault', move.to),
        `${readText(copy, `vault/${move.to}`)}\nLate addition: the fix also covered the EU region.\n`,
      );
      const json = await build({ root: copy, now: new Date(NOW2) });
      expect(json.written).toContain('main/archive/2026-Q1/daily/2026-01-06.md');
      expect(json.written).not.toContain('main/daily/2026-01-06.md');
      expect(json.historyCopies).toContain('main/history/daily/2026-01-06-20260320-060000.md');
      expect(readText(copy, 'vault/main/archive/2026-Q1/daily/2026-01-06.md')).toContain('Late addition');
      expect(porcelain(copy), JSON.stringify(json.commit)).toEqual(['?? .gitignore', '?? memory.config.yaml']);
    } finally {
      removeProject(copy);
    }
  });
});

describe('planArchive (pure)', () => {
  const stream = (memories: Memory[], summaries: Summary[]): StreamState => ({
    name: 'main',
    memories,
    summaries: new Map(summaries.map((s) => [s.path, s])),
  });
  const mem = (id: string, day: string, extra: Partial<Memory> = {}): Memory => ({
    id,
    stream: 'main',
    path: `main/memories/${id}.md`,
    location: 'memories',
    date: day,
    day,
    minute: 0,
    title: undefined,
    kind: 'note',
    tags: [],
    importance: 'normal',
    sha256: `sha-${id}`,
    ...extra,
  });
  const sum = (tier: SummaryMeta['tier'], period: string, sources: { id: string; sha256: string }[], where?: string): Summary => ({
    meta: {
      memvault: 'summary',
      tier,
      stream: 'main',
      period,
      start: period,
      end: period,
      sources,
      memories: 1,
      tokens: 1,
      bytes: 1,
      generator: { provider: 'merge', model: 'none', prompt: 'x' },
      input_hash: 'i',
      output_hash: 'o',
    },
    path: where ?? `main/${tier}/${period}.md`,
    sha256: `sha-${tier}-${period}`,
    bodyHash: 'o',
  });
  const retention = { memories_days: 30, daily_days: 90, weekly_weeks: 12 };
  const a = mem('a', '2026-01-07');
  const daily = sum('daily', '2026-01-07', [{ id: 'a', sha256: 'sha-a' }]);
  const weekly = sum('weekly', '2026-W02', [{ id: 'daily/2026-01-07', sha256: daily.sha256 }]);
  const monthly = sum('monthly', '2026-01', [{ id: 'weekly/2026-W02', sha256: weekly.sha256 }]);

  it('moves a memory past retention whose daily, weekly and monthly chain holds it', () => {
    expect(planArchive(stream([a], [daily, weekly, monthly]), retention, '2026-02-20')).toEqual([
      { stream: 'main', kind: 'memory', id: 'a', from: 'main/memories/a.md', to: 'main/archive/2026-Q1/a.md', quarter: '2026-Q1' },
    ]);
  });

  it('keeps a memory that is recent, pinned, not yet in a monthly, or changed since its daily', () => {
    expect(planArchive(stream([a], [daily, weekly, monthly]), retention, '2026-02-05')).toEqual([]); // 29 days old
    expect(planArchive(stream([{ ...a, importance: 'pinned' }], [daily, weekly, monthly]), retention, '2026-03-01')).toEqual([]);
    expect(planArchive(stream([a], [daily, weekly]), retention, '2026-03-01')).toEqual([]);
    expect(planArchive(stream([{ ...a, sha256: 'edited' }], [daily, weekly, monthly]), retention, '2026-03-01')).toEqual([]);
    expect(planArchive(stream([a], [daily, { ...weekly, sha256: 'rebuilt' }, monthly]), retention, '2026-03-01')).toEqual([]);
  });

  it('moves dailies and weeklies past their windows into <quarter>/daily and /weekly, never over an existing file', () => {
    const moves = planArchive(stream([], [daily, weekly, monthly]), retention, '2026-05-01');
    expect(moves.map((m) => [m.kind, m.to])).toEqual([
      ['daily', 'main/archive/2026-Q1/daily/2026-01-07.md'],
      ['weekly', 'main/archive/2026-Q1/weekly/2026-W02.md'],
    ]);
    // A memory that happens to sit at the archived daily's place: the daily stays live.
    const squatter = mem('daily/2026-01-07', '2026-04-30', { path: 'main/archive/2026-Q1/daily/2026-01-07.md', location: 'archive' });
    expect(planArchive(stream([squatter], [daily, weekly, monthly]), retention, '2026-05-01').map((m) => m.kind)).toEqual(['weekly']);
  });

  it('does not move again what is archived, and judges archived summaries where they belong', () => {
    const archivedDaily = { ...daily, path: 'main/archive/2026-Q1/daily/2026-01-07.md' };
    const archivedA = { ...a, path: 'main/archive/2026-Q1/a.md', location: 'archive' as const };
    expect(planArchive(stream([archivedA], [archivedDaily, weekly, monthly]), retention, '2026-05-01').map((m) => m.to)).toEqual([
      'main/archive/2026-Q1/weekly/2026-W02.md',
    ]);
    // A live memory under an archived daily still moves: the chain is read through the archive.
    expect(planArchive(stream([a], [archivedDaily, weekly, monthly]), retention, '2026-02-20').map((m) => m.kind)).toEqual(['memory']);
  });
});
