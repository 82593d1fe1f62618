import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNumberRange, parsePeriod } from '../../src/read/period-query.js';
import { openVault, pickStream, type ReadVault } from '../../src/read/vault.js';
import { zoom } from '../../src/read/zoom.js';
import { createProject, memory, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * `memvault zoom` on one fixture vault, built once by the real CLI:
 * February 2026 (one week of it archived) and a day in April. Each behaviour
 * goes through the CLI once (JSON and text output, each period form, paging,
 * --tier, --memories, errors); the detail (phrases, pages, cuts) is checked by
 * calling the same `zoom()` in-process, with the JSON the command prints.
 */

const files: Record<string, string> = {
  // Archived: week 2026-W05 (Jan 26 – Feb 1) and Feb 2, moved to archive/2026-Q1 with their ids.
  'vault/main/archive/2026-Q1/2026-02-02-kickoff.md': memory({
    date: '2026-02-02T09:00:00Z',
    title: 'Kickoff',
    body: 'Kickoff of the ledger project with Farah.',
  }),
  'vault/main/archive/2026-Q1/2026-02-02-budget.md': memory({
    date: '2026-02-02T15:00:00Z',
    title: 'Budget',
    body: 'Budget approved: 3 engineers until June.',
  }),
  'vault/main/memories/2026-02-10-auth.md': memory({
    date: '2026-02-10T14:05:00Z',
    title: 'Auth refactor',
    kind: 'decision',
    tags: ['auth'],
    body: 'Replaced JWT with server sessions.\nSessions live in Postgres, 30-day expiry.',
  }),
  'vault/main/memories/2026-02-11-cache.md': memory({
    date: '2026-02-11T09:00:00Z',
    title: 'Cache',
    body: 'Added a read-through cache for invoices.',
  }),
  'vault/main/memories/2026-02-11-bug.md': memory({
    date: '2026-02-11T08:00:00Z',
    title: 'Bug',
    kind: 'error',
    body: 'Invoice totals rounded twice; fixed in the formatter.',
  }),
  'vault/main/memories/2026-02-13-release.md': memory({
    date: '2026-02-13T17:00:00Z',
    title: 'Release 1.4',
    body: `Release 1.4 shipped.\n\n${'Changelog line with several words in it. '.repeat(40)}`,
  }),
  'vault/main/memories/2026-02-17-retro.md': memory({
    date: '2026-02-17T10:00:00Z',
    title: 'Retro',
    body: 'Retro: fewer meetings, more pairing.',
  }),
  'vault/main/memories/2026-04-02-april.md': memory({
    date: '2026-04-02T10:00:00Z',
    title: 'April',
    body: 'Second quarter starts with payments work.',
  }),
};

let root: string;
const NOW = '2026-04-06T12:00:00Z';

let vault: ReadVault;

beforeAll(async () => {
  root = createProject(files);
  const built = await runCli(['build', '--no-commit', '--now', NOW], { cwd: root });
  expect(built.code, built.stderr).toBe(0);
  vault = await openVault(root);
}, 60_000);
afterAll(() => removeProject(root));

/** `memvault zoom <args> --json` through the CLI. */
const zoomJson = (args: string[]) => runCliJson(['zoom', ...args, '--now', NOW, '--json'], { cwd: root }).then((r) => r.json);
/** The same zoom in-process: what `memvault zoom <period> --json` prints, for the options given. */
const zoomIn = (
  period: string | undefined,
  options: { budget?: number; page?: number; tier?: 'daily' | 'weekly' | 'monthly'; memories?: string; now?: string } = {},
): any => {
  const at = { now: new Date(options.now ?? NOW), zone: vault.config.timezone };
  const result = zoom(vault, {
    stream: pickStream(vault, undefined),
    ...(period === undefined ? {} : { period: parsePeriod(period, at) }),
    ...(options.memories === undefined ? {} : { memoryRange: parseNumberRange(options.memories) }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.page === undefined ? {} : { page: options.page }),
    ...(options.tier === undefined ? {} : { tier: options.tier }),
  });
  return JSON.parse(JSON.stringify(result));
};
// Ids survive archiving (the build archives February's memories as of April), paths do not.
const paths = (json: any): string[] => json.memories.map((m: any) => m.id);

describe('memvault zoom', () => {
  it('zooms into a day whose memories are archived, in time order, with ids and provenance', async () => {
    const json = await zoomJson(['2026-02-02']);
    expect(paths(json)).toEqual(['2026-02-02-kickoff', '2026-02-02-budget']);
    expect(json.memories[1].path).toBe('main/archive/2026-Q1/2026-02-02-budget.md');
    expect(json.memories[0]).toMatchObject({
      id: '2026-02-02-kickoff',
      location: 'archive',
      date: '2026-02-02T09:00:00Z',
      summarized_in: ['main/daily/2026-02-02.md'],
    });
    expect(json.memories[0].body).toContain('Kickoff of the ledger project');
    const daily = json.covering.find((s: any) => s.tier === 'daily');
    expect(daily).toMatchObject({ path: 'main/daily/2026-02-02.md', sources: ['2026-02-02-kickoff', '2026-02-02-budget'] });
    expect(json.covering.map((s: any) => s.path)).toContain('main/weekly/2026-W06.md');
  });

  it('zooms into a week (archived by the build), a month, a quarter and a range, through the CLI', async () => {
    // The four period forms through the CLI once each (side by side); the same zoom in-process prints the same JSON.
    const [week, month, quarter, range] = await Promise.all(
      ['2026-W07', '2026-02', '2026-Q1', '2026-02-11..2026-02-17'].map((period) => zoomJson([period])),
    );
    expect(paths(week)).toEqual(['2026-02-10-auth', '2026-02-11-bug', '2026-02-11-cache', '2026-02-13-release']);
    expect(week.period).toEqual({ label: '2026-W07', kind: 'week', start: '2026-02-09', end: '2026-02-15' });
    expect(week.covering.map((s: any) => `${s.tier}/${s.period}`)).toEqual(
      expect.arrayContaining(['daily/2026-02-10', 'weekly/2026-W07', 'monthly/2026-02']),
    );
    expect(month.memories).toHaveLength(7);
    expect(month.period).toEqual({ label: '2026-02', kind: 'month', start: '2026-02-01', end: '2026-02-28' });
    expect(quarter.memories).toHaveLength(7);
    expect(quarter.period).toMatchObject({ kind: 'quarter', start: '2026-01-01', end: '2026-03-31' });
    expect(paths(zoomIn('2026-Q2'))).toEqual(['2026-04-02-april']);
    expect(paths(range)).toEqual(['2026-02-11-bug', '2026-02-11-cache', '2026-02-13-release', '2026-02-17-retro']);
    expect(range.period).toMatchObject({ kind: 'range', start: '2026-02-11', end: '2026-02-17' });
    expect([week, month, quarter, range]).toEqual(['2026-W07', '2026-02', '2026-Q1', '2026-02-11..2026-02-17'].map((p) => zoomIn(p)));
  });

  it('reads phrases relative to --now', async () => {
    const json = (await runCliJson(['zoom', 'last Tuesday', '--now', '2026-02-19T12:00:00Z', '--json'], { cwd: root })).json;
    expect(json.period.start).toBe('2026-02-17');
    expect(paths(json)).toEqual(['2026-02-17-retro']);
    const lastWeek = zoomIn('last week', { now: '2026-02-19T12:00:00Z' });
    expect(lastWeek.period.label).toBe('2026-W07');
    expect(lastWeek.memories).toHaveLength(4);
  });

  it('pages by budget: never over it, every memory on exactly one page, and says how to go on', async () => {
    const first = await zoomJson(['2026-02', '--budget', '150']);
    expect(first.page.pages).toBeGreaterThan(2);
    expect(first).toEqual(zoomIn('2026-02', { budget: 150 }));
    const seen: string[] = [];
    for (let page = 1; page <= first.page.pages; page++) {
      const json = zoomIn('2026-02', { budget: 150, page });
      expect(json.page.tokens).toBeLessThanOrEqual(150);
      seen.push(...paths(json));
      if (page === 1) expect(json.page.items_left).toBe(7 - json.memories.length);
    }
    expect(seen).toEqual(paths(zoomIn('2026-02')));
    const text = await runCli(['zoom', '2026-02', '--budget', '150', '--now', NOW], { cwd: root });
    expect(text.stdout).toMatch(
      /Page 1 of \d+ \(\d+ tokens\); \d+ memories \(\d+ tokens\) left; next: memvault zoom 2026-02 --budget 150 --page 2/,
    );
  });

  it('cuts a memory larger than the budget to fit and says so', async () => {
    const json = zoomIn('2026-02-13', { budget: 120 });
    expect(json.truncated).toBe('main/archive/2026-Q1/2026-02-13-release.md');
    expect(json.page.tokens).toBeLessThanOrEqual(120);
    expect(json.memories[0].body).toContain('cut to fit --budget');
  });

  it('--tier shows the summaries of the period instead', async () => {
    const json = await zoomJson(['2026-W07', '--tier', 'daily']);
    expect(json.memories).toEqual([]);
    expect(json.summaries.map((s: any) => s.period)).toEqual(['2026-02-10', '2026-02-11', '2026-02-13']);
    expect(json.summaries[1].sources).toEqual(['2026-02-11-bug', '2026-02-11-cache']);
    expect(json.summaries[1].body).toContain('Invoice totals');
  });

  it('says when a period is empty, and rejects an unknown one in one error line and one hint line with examples', async () => {
    const empty = await runCli(['zoom', '2026-03-05', '--now', NOW], { cwd: root });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('No memories in this period.');
    const bad = await runCli(['zoom', 'next blue moon', '--now', NOW], { cwd: root });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^memvault: `next blue moon`: not a period\n {2}hint: .*2026-W07.*last Tuesday/);
    // Exactly one error line and one hint line with examples, nothing else.
    expect(bad.stderr.endsWith('\n')).toBe(true);
    expect(bad.stderr.slice(0, -1).split('\n')).toHaveLength(2);
  });

  it('zooms by memory number range', async () => {
    const json = await zoomJson(['--memories', '2..3']);
    expect(json.memories.map((m: any) => m.number)).toEqual([2, 3]);
    expect(paths(json)).toEqual(['2026-02-02-budget', '2026-02-10-auth']);
  });
});
