import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import { daysBetween, generateHistory } from '../helpers/history.js';
import {
  copyProject,
  createProject,
  listFiles,
  memory,
  readJsonFile,
  readText,
  removeProject,
  runCliJson,
  snapshotTree,
  splitFrontmatter,
} from '../helpers/project.js';

/**
 * `memvault build` end to end: the compiled CLI on real vaults in temporary
 * folders, always with a fixed `--now`. The ten-week vault is built once
 * (beforeAll) through the CLI; scenarios that change it work on copies and
 * are checked by their `--json` report and files, so they build in-process
 * (`buildHere`: the same pipeline, no CLI start each). Bad input, flags,
 * errors and the lock on small vaults: build-input.test.ts.
 */

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const HEX64 = /^[0-9a-f]{64}$/;

const BUDGETS = {
  daily: { tokens: 400, bytes: 4096 },
  weekly: { tokens: 800, bytes: 6144 },
  monthly: { tokens: 1200, bytes: 8192 },
  longterm: { tokens: 1600, bytes: 10240 },
} as const;
type Tier = keyof typeof BUDGETS;

/** Budgets spelled out, so the assertions below do not depend on the defaults. */
const CONFIG = `timezone: UTC
calendar:
  daily: { target_tokens: ${BUDGETS.daily.tokens}, max_bytes: ${BUDGETS.daily.bytes} }
  weekly: { target_tokens: ${BUDGETS.weekly.tokens}, max_bytes: ${BUDGETS.weekly.bytes} }
  monthly: { target_tokens: ${BUDGETS.monthly.tokens}, max_bytes: ${BUDGETS.monthly.bytes} }
  longterm: { target_tokens: ${BUDGETS.longterm.tokens}, max_bytes: ${BUDGETS.longterm.bytes} }
  retention: { memories_days: 3650, daily_days: 3650, weekly_weeks: 520 }   # no archiving here: test/git/archive.test.ts covers it
upload: { max_tokens: 8750, max_bytes: 35840, monthly_window: 3 }
`;

/** Wednesday evening of ISO week 2026-W17 (after today's memories): weeks W07–W16 and the months 2026-02 and 2026-03 are complete. */
const NOW = '2026-04-22T18:00:00Z';
const TODAY = '2026-04-22';
/** `history/` copies made by a build at NOW are stamped with it. */
const STAMP = '20260422-180000';

const PINNED_PATH = 'vault/main/memories/pinned/deploy-rule.md';
const PINNED_TITLE = 'Standing rule: never deploy on Fridays';
const PINNED_BODY = 'Deploys happen Monday to Thursday before 16:00; hotfixes need a second reviewer.';

/** Memories from Monday 2026-02-09 to today, plus one pinned rule. */
const history = generateHistory({ from: '2026-02-09', to: TODAY, seed: 11 });
const TEN_WEEKS = {
  ...history.files,
  [PINNED_PATH]: memory({ date: '2026-02-11T08:00:00Z', title: PINNED_TITLE, importance: 'pinned', kind: 'decision', body: PINNED_BODY }),
};
const EXPECTED_DAILIES = [...history.byDay.keys()].filter((day) => day < TODAY);
const EXPECTED_WEEKLIES = [
  '2026-W07',
  '2026-W08',
  '2026-W09',
  '2026-W10',
  '2026-W11',
  '2026-W12',
  '2026-W13',
  '2026-W14',
  '2026-W15',
  '2026-W16',
];
/** By the Thursday rule: 2026-02 is W06–W09 (02-02 to 03-01), 2026-03 is W10–W13 (03-02 to 03-29); 2026-04 ends 05-03. */
const EXPECTED_MONTHLIES = ['2026-02', '2026-03'];

const build = (root: string, ...flags: string[]) => runCliJson(['build', '--now', NOW, '--json', ...flags], { cwd: root });
/** The same build in this process, its report as `--json` prints it. */
const buildHere = async (root: string): Promise<{ json: any }> => ({
  json: JSON.parse(JSON.stringify(await buildInProcess({ root, now: new Date(NOW) }))),
});

/** Paths in reports are vault-relative (`main/daily/…`); accept project-relative ones (`vault/main/daily/…`) too. */
const inVault = (file: string): string => file.replace(/^vault\//, '');
const allInVault = (files: readonly string[]): string[] => files.map(inVault);

interface SummaryFile {
  meta: Record<string, any>;
  body: string;
  text: string;
}

function readSummary(root: string, relative: string): SummaryFile {
  const text = readText(root, relative);
  const { front, body } = splitFrontmatter(text);
  return { meta: parseYaml(front) as Record<string, any>, body, text };
}

const names = (root: string, folder: string): string[] => listFiles(root, folder).map((file) => path.posix.basename(file, '.md'));

/** The `## …` section of a markdown text that starts with `heading`, up to the next `## `. */
function section(text: string, heading: string): string | undefined {
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) return undefined;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end);
}

describe('build: a ten-week vault', () => {
  let root: string;
  let first: { result: { code: number; stdout: string; stderr: string }; json: any };
  let afterFirst: ReturnType<typeof snapshotTree>;
  const copies: string[] = [];

  beforeAll(async () => {
    root = createProject(TEN_WEEKS, CONFIG);
    first = await build(root);
    afterFirst = snapshotTree(root);
  });
  afterAll(() => {
    removeProject(root);
    for (const copy of copies) removeProject(copy);
  });

  it('exits 0 and writes a daily per day with memories up to yesterday, a weekly per complete ISO week, a monthly per complete month', () => {
    expect(first.result.code).toBe(0);
    expect(first.result.stderr).toBe('');
    expect(names(root, 'vault/main/daily')).toEqual(EXPECTED_DAILIES);
    expect(names(root, 'vault/main/weekly')).toEqual(EXPECTED_WEEKLIES);
    expect(names(root, 'vault/main/monthly')).toEqual(EXPECTED_MONTHLIES);
    // Two months of history fit in the three-month package window: nothing is squashed yet.
    expect(existsSync(path.join(root, 'vault/main/longterm.md'))).toBe(false);
    // Today is still open: its memories stay raw.
    expect(history.byDay.has(TODAY)).toBe(true);
    expect(existsSync(path.join(root, `vault/main/daily/${TODAY}.md`))).toBe(false);
  });

  it('writes self-describing summaries within their tier budget, with sources pinned to the current files', () => {
    const summaries = [
      ...listFiles(root, 'vault/main/daily'),
      ...listFiles(root, 'vault/main/weekly'),
      ...listFiles(root, 'vault/main/monthly'),
    ];
    expect(summaries).toHaveLength(EXPECTED_DAILIES.length + EXPECTED_WEEKLIES.length + EXPECTED_MONTHLIES.length);
    const providers: Record<string, Set<string>> = { daily: new Set(), weekly: new Set(), monthly: new Set() };
    for (const file of summaries) {
      const { meta, body } = readSummary(root, file);
      const tier = file.split('/')[2]! as Tier;
      expect(meta, file).toMatchObject({ memvault: 'summary', tier, stream: 'main', period: path.posix.basename(file, '.md') });
      expect(meta.tokens, file).toBeGreaterThan(0);
      expect(meta.tokens, file).toBeLessThanOrEqual(BUDGETS[tier].tokens);
      expect(meta.bytes, file).toBeLessThanOrEqual(BUDGETS[tier].bytes);
      expect(meta.bytes, file).toBe(Buffer.byteLength(body));
      expect(meta.output_hash, file).toMatch(HEX64);
      expect(meta.output_hash, `${file}: output_hash is the hash of the body as generated`).toBe(sha256(body));
      expect(meta.input_hash, file).toMatch(HEX64);
      expect(meta.sources.length, file).toBeGreaterThan(0);
      for (const source of meta.sources) {
        expect(source.sha256, `${file} ← ${source.id}`).toMatch(HEX64);
        // Provenance: a daily's sources are memory files, a weekly's dailies, a monthly's weeklies.
        const sourceFile = tier === 'daily' ? `vault/main/memories/${source.id}.md` : `vault/main/${source.id}.md`;
        expect(sha256(readText(root, sourceFile)), `${file} ← ${source.id}`).toBe(source.sha256);
      }
      if (tier === 'daily') expect(meta.memories).toBe(meta.sources.length);
      providers[tier]!.add(meta.generator.provider);
    }
    // Busy days are over the daily budget, so the summarizer really ran (not only lossless merges).
    expect([...providers.daily!]).toContain('extractive');
    expect([...providers.weekly!]).toContain('extractive');
    expect([...providers.monthly!]).toContain('extractive');
    // A weekly covers exactly the memories of its dailies.
    const w08 = readSummary(root, 'vault/main/weekly/2026-W08.md').meta;
    const w08Days = daysBetween('2026-02-16', '2026-02-22').filter((day) => history.byDay.has(day));
    expect(w08.sources.map((s: { id: string }) => s.id)).toEqual(w08Days.map((day) => `daily/${day}`));
    expect(w08.memories).toBe(w08Days.reduce((sum, day) => sum + history.byDay.get(day)!.length, 0));
    expect(readSummary(root, 'vault/main/monthly/2026-02.md').meta.sources.map((s: { id: string }) => s.id)).toEqual([
      'weekly/2026-W07',
      'weekly/2026-W08',
      'weekly/2026-W09',
    ]);
  });

  it('writes an UPLOAD_PACKAGE.md within 8750 tokens / 35840 bytes that covers every day once', () => {
    const text = readText(root, 'vault/main/UPLOAD_PACKAGE.md');
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(manifest.budget).toEqual({ max_tokens: 8750, max_bytes: 35840 });
    expect(manifest.tokens).toBeGreaterThan(0);
    expect(manifest.tokens).toBeLessThanOrEqual(8750);
    expect(manifest.bytes).toBeLessThanOrEqual(35840);
    expect(manifest.bytes).toBe(Buffer.byteLength(text));
    expect(manifest.coverage.days_with_memories).toBe(history.byDay.size);
    expect(manifest.coverage.days_covered).toBe(history.byDay.size);
    expect(manifest.items.filter((item: { status: string }) => item.status === 'left-out')).toEqual([]);
    expect(first.json.streams[0].package).toMatchObject({ tokens: manifest.tokens, bytes: manifest.bytes, changed: true });
    expect(inVault(first.json.streams[0].package.path)).toBe('main/UPLOAD_PACKAGE.md');
    // Today's memories are in full detail.
    for (const file of history.byDay.get(TODAY)!) expect(text).toContain(/title: "([^"]+)"/.exec(readText(root, file))![1]);
  });

  it('puts pinned memories in the "## Critical (pinned)" section of the package', () => {
    const text = readText(root, 'vault/main/UPLOAD_PACKAGE.md');
    const critical = section(text, '## Critical (pinned)');
    expect(critical, 'package has a Critical section').toBeDefined();
    expect(critical).toContain(PINNED_TITLE);
    expect(critical).toContain(PINNED_BODY);
    // It comes before any history.
    expect(/^## .*$/m.exec(text)?.[0]).toBe('## Critical (pinned)');
  });

  it('writes vault/INDEX.md and vault/index.json listing every summary', () => {
    const summaries = [
      ...listFiles(root, 'vault/main/daily'),
      ...listFiles(root, 'vault/main/weekly'),
      ...listFiles(root, 'vault/main/monthly'),
    ].map((file) => file.replace(/^vault\//, ''));
    const index = readJsonFile(root, 'vault/index.json');
    const stream = index.streams.find((s: { name: string }) => s.name === 'main');
    expect(stream.summaries.map((s: { path: string }) => inVault(s.path)).sort()).toEqual([...summaries].sort());
    expect(stream.memories.pinned).toBe(1);
    expect(inVault(stream.package.path)).toBe('main/UPLOAD_PACKAGE.md');
    expect(index.invalid).toEqual([]);
    const markdown = readText(root, 'vault/INDEX.md');
    for (const summary of summaries) expect(markdown).toContain(`(${summary})`);
  });

  it('changes no byte on a second build and reports 0 files written', async () => {
    const again = await buildHere(root);
    expect(again.json.written).toEqual([]);
    expect(again.json.historyCopies).toEqual([]);
    expect(again.json.stats.parsed).toBe(0);
    expect(Object.values(again.json.streams[0].tiers).map((t: any) => t.created + t.updated)).toEqual([0, 0, 0, 0]);
    expect(snapshotTree(root)).toEqual(afterFirst);
  });

  /** The copy the edit test changed, for the test that edits the same memory again. */
  let edited: { copy: string; day: string; file: string; original: string } | undefined;

  it('after editing one past memory, regenerates exactly its daily, weekly and monthly (plus package, index), old versions kept in history/', async () => {
    const copy = copyProject(root);
    copies.push(copy);
    const day = '2026-02-17';
    const file = history.byDay.get(day)![0]!;
    const sentence = 'Never restart the billing primary during business hours #critical.';
    writeFileSync(path.join(copy, file), `${readText(copy, file)}\n${sentence}\n`);
    const before = {
      daily: readText(copy, `vault/main/daily/${day}.md`),
      weekly: readText(copy, 'vault/main/weekly/2026-W08.md'),
      monthly: readText(copy, 'vault/main/monthly/2026-02.md'),
    };
    edited = { copy, day, file, original: before.daily };

    const { json } = await buildHere(copy);
    expect(allInVault(json.written).sort()).toEqual(
      [
        `main/daily/${day}.md`,
        'main/weekly/2026-W08.md',
        'main/monthly/2026-02.md',
        'main/UPLOAD_PACKAGE.md',
        'main/UPLOAD_PACKAGE.manifest.json',
        'INDEX.md',
        'index.json',
      ].sort(),
    );
    expect(allInVault(json.historyCopies).sort()).toEqual([
      `main/history/daily/${day}-${STAMP}.md`,
      `main/history/monthly/2026-02-${STAMP}.md`,
      `main/history/weekly/2026-W08-${STAMP}.md`,
    ]);
    expect(readText(copy, `vault/main/history/daily/${day}-${STAMP}.md`)).toBe(before.daily);
    expect(readText(copy, `vault/main/history/weekly/2026-W08-${STAMP}.md`)).toBe(before.weekly);
    expect(readText(copy, `vault/main/history/monthly/2026-02-${STAMP}.md`)).toBe(before.monthly);
    expect(json.stats.parsed).toBe(1);
    // The #critical line is must-keep: it climbs the whole pyramid into the package.
    for (const summary of [
      `vault/main/daily/${day}.md`,
      'vault/main/weekly/2026-W08.md',
      'vault/main/monthly/2026-02.md',
      'vault/main/UPLOAD_PACKAGE.md',
    ]) {
      expect(readText(copy, summary), summary).toContain('Never restart the billing primary');
    }
    expect(
      readSummary(copy, `vault/main/daily/${day}.md`).meta.sources.find((s: { id: string }) => `vault/main/memories/${s.id}.md` === file)
        .sha256,
    ).toBe(sha256(readText(copy, file)));
  });

  it('keeps every replaced version in history/ when a summary is regenerated twice at the same --now', async () => {
    // The second edit of the memory the test above edited and rebuilt, on the same copy: its daily is regenerated again.
    const { copy, day, file, original } = edited!;
    const second = readText(copy, `vault/main/daily/${day}.md`);
    expect(second).not.toBe(original);
    writeFileSync(path.join(copy, file), `${readText(copy, file)}\nSecond addition: the \`ledger-sync\` job now retries twice.\n`);
    await buildHere(copy);
    expect(readText(copy, `vault/main/daily/${day}.md`)).not.toBe(second);
    // Nothing lost: both the original and the intermediate daily are kept somewhere under history/daily/.
    const kept = listFiles(copy, 'vault/main/history/daily').map((f) => readText(copy, f));
    expect(kept).toContain(original);
    expect(kept).toContain(second);
  });

  it('keeps a hand-edited daily, reports it as edited, then as "edited, stale" once its memories change, and never overwrites it', async () => {
    const copy = copyProject(root);
    copies.push(copy);
    const day = '2026-03-04';
    const dailyPath = `vault/main/daily/${day}.md`;
    const generated = readText(copy, dailyPath);
    const edited = `${generated.trimEnd()}\n\nHand note: the real cause was the load balancer, not the cache.\n`;
    writeFileSync(path.join(copy, dailyPath), edited);

    const afterEdit = await buildHere(copy);
    expect(afterEdit.json.streams[0].held.map((h: { path: string; status: string }) => [inVault(h.path), h.status])).toEqual([
      [`main/daily/${day}.md`, 'edited'],
    ]);
    expect(allInVault(afterEdit.json.written)).not.toContain(`main/daily/${day}.md`);
    expect(readText(copy, dailyPath)).toBe(edited);

    const memoryFile = history.byDay.get(day)![0]!;
    writeFileSync(path.join(copy, memoryFile), `${readText(copy, memoryFile)}\nLate addition: the fix also needs a config change.\n`);
    const afterChange = await buildHere(copy);
    expect(afterChange.json.streams[0].held.map((h: { path: string; status: string }) => [inVault(h.path), h.status])).toEqual([
      [`main/daily/${day}.md`, 'edited, stale'],
    ]);
    expect(allInVault(afterChange.json.written)).not.toContain(`main/daily/${day}.md`);
    expect(afterChange.json.historyCopies).toEqual([]);
    expect(readText(copy, dailyPath)).toBe(edited);
    expect(listFiles(copy, 'vault/main/history/daily')).toEqual([]);
    // The review queue names it, for people and for scripts.
    const index = readJsonFile(copy, 'vault/index.json');
    expect(index.streams[0].review.map((r: { path: string; kind: string }) => [inVault(r.path), r.kind])).toContainEqual([
      `main/daily/${day}.md`,
      'edited, stale',
    ]);
    expect(readText(copy, 'vault/INDEX.md')).toContain(`main/daily/${day}.md`);
    const status = await runCliJson(['status', '--json'], { cwd: copy });
    expect(allInVault(status.json.streams[0].tiers.daily.edited)).toEqual([`main/daily/${day}.md`]);
  });
});
