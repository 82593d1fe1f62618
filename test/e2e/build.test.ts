import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { daysBetween, generateHistory } from '../helpers/history.js';
import {
  copyProject,
  createProject,
  listFiles,
  memory,
  readJsonFile,
  readText,
  removeProject,
  runCli,
  runCliJson,
  snapshotTree,
  splitFrontmatter,
} from '../helpers/project.js';

/**
 * `memvault build` end to end: the compiled CLI on real vaults in temporary
 * folders, always with a fixed `--now`. The ten-week vault is built once
 * (beforeAll); scenarios that change it work on copies.
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
    const again = await build(root);
    expect(again.json.written).toEqual([]);
    expect(again.json.historyCopies).toEqual([]);
    expect(again.json.stats.parsed).toBe(0);
    expect(Object.values(again.json.streams[0].tiers).map((t: any) => t.created + t.updated)).toEqual([0, 0, 0, 0]);
    expect(snapshotTree(root)).toEqual(afterFirst);
  });

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

    const { json } = await build(copy);
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
    const copy = copyProject(root);
    copies.push(copy);
    const day = '2026-03-11';
    const file = history.byDay.get(day)![0]!;
    const original = readText(copy, `vault/main/daily/${day}.md`);
    writeFileSync(path.join(copy, file), `${readText(copy, file)}\nFirst addition: the \`ledger-sync\` job moved to 02:00.\n`);
    await build(copy);
    const second = readText(copy, `vault/main/daily/${day}.md`);
    writeFileSync(path.join(copy, file), `${readText(copy, file)}\nSecond addition: the \`ledger-sync\` job now retries twice.\n`);
    await build(copy);
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

    const afterEdit = await build(copy);
    expect(afterEdit.json.streams[0].held.map((h: { path: string; status: string }) => [inVault(h.path), h.status])).toEqual([
      [`main/daily/${day}.md`, 'edited'],
    ]);
    expect(allInVault(afterEdit.json.written)).not.toContain(`main/daily/${day}.md`);
    expect(readText(copy, dailyPath)).toBe(edited);

    const memoryFile = history.byDay.get(day)![0]!;
    writeFileSync(path.join(copy, memoryFile), `${readText(copy, memoryFile)}\nLate addition: the fix also needs a config change.\n`);
    const afterChange = await build(copy);
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

describe('build: bad input files', () => {
  const M = 'vault/main/memories';
  const BAD: { file: string; content: string | Buffer; rule: string; line: number; column?: number }[] = [
    { file: 'broken-yaml.md', content: '---\ndate: 2026-02-10\ntitle: [unclosed\n---\nBody.\n', rule: 'memory/frontmatter', line: 3 },
    { file: 'no-date.md', content: '---\ntitle: Nothing to date\n---\nA memory without any date.\n', rule: 'memory/no-date', line: 1 },
    {
      file: 'impossible-date.md',
      content: '---\ntitle: Leap\ndate: 2026-02-30\n---\nThere is no 30 February.\n',
      rule: 'memory/invalid-date',
      line: 3,
      column: 7,
    },
    {
      file: 'binary.md',
      content: Buffer.from('---\ndate: 2026-02-10\n---\nab\u0000cd\n', 'utf8'),
      rule: 'memory/binary',
      line: 4,
      column: 3,
    },
    {
      file: 'latin1.md',
      content: Buffer.concat([Buffer.from('---\ndate: 2026-02-10\n---\nCaf'), Buffer.from([0xe9]), Buffer.from(' au lait.\n')]),
      rule: 'memory/encoding',
      line: 4,
    },
    { file: 'empty.md', content: '', rule: 'memory/empty', line: 1, column: 1 },
  ];
  let root: string;
  let result: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    root = createProject({
      [`${M}/2026-02-10-good.md`]: memory({ date: '2026-02-10T10:00:00Z', title: 'Good one', body: 'Moved the cron job to 03:00.' }),
      [`${M}/2026-02-11-good.md`]: memory({ date: '2026-02-11T10:00:00Z', title: 'Good two', body: 'Renewed the TLS certificate.' }),
      ...Object.fromEntries(BAD.map((bad) => [`${M}/${bad.file}`, bad.content])),
    });
    result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
  });
  afterAll(() => removeProject(root));

  it('exits 0, prints one `path:line:col error … [rule]` line per bad file, and builds the rest', () => {
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(BAD.length);
    for (const bad of BAD) {
      const pattern = new RegExp(`^(?:vault/)?main/memories/${bad.file.replace('.', '\\.')}:(\\d+):(\\d+) error .+ \\[${bad.rule}\\]$`);
      const matching = lines.filter((line) => pattern.test(line));
      expect(matching, `${bad.file} in:\n${result.stderr}`).toHaveLength(1);
      const [, line, column] = pattern.exec(matching[0]!)!;
      expect(Number(line), bad.file).toBe(bad.line);
      if (bad.column !== undefined) expect(Number(column), bad.file).toBe(bad.column);
    }
    expect(lines.find((line) => line.includes('no-date.md'))).toContain('hint:');
    expect(result.stdout).toContain('6 invalid file(s) skipped');
    expect(names(root, 'vault/main/daily')).toEqual(['2026-02-10', '2026-02-11']);
    expect(readText(root, 'vault/main/UPLOAD_PACKAGE.md')).toContain('Renewed the TLS certificate.');
  });

  it('points an invalid UTF-8 error at the offending byte (line 4, column 4 for `Caf\\xE9`)', () => {
    const line = result.stderr.split('\n').find((l) => l.includes('latin1.md'));
    expect(line).toMatch(/latin1\.md:4:4 error/);
  });

  it('lists the bad files under `invalid` in `memvault status --json` and in index.json', async () => {
    const { json } = await runCliJson(['status', '--json'], { cwd: root });
    const invalid = json.invalid.map((d: { path: string; rule: string; line: number }) => [inVault(d.path), d.rule, d.line]);
    expect(invalid.sort()).toEqual(BAD.map((bad) => [`main/memories/${bad.file}`, bad.rule, bad.line]).sort());
    expect(json.streams[0].memories).toBe(2);
    const index = readJsonFile(root, 'vault/index.json');
    expect(index.invalid.map((d: { rule: string }) => d.rule).sort()).toEqual(BAD.map((bad) => bad.rule).sort());
  });
});

describe('build: --dry-run, --through and --force', () => {
  const M = 'vault/main/memories';
  // Wednesday of 2026-W08: W07 is complete, W08 is not.
  const now = '2026-02-18T15:00:00Z';
  const files: Record<string, string> = {};
  for (const day of ['2026-02-09', '2026-02-10', '2026-02-12', '2026-02-16', '2026-02-17', '2026-02-18']) {
    files[`${M}/${day}.md`] = memory({ date: `${day}T10:00:00Z`, title: `Work on ${day}`, body: `Shipped the change planned for ${day}.` });
  }
  const roots: string[] = [];
  const project = (): string => {
    const root = createProject(files);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach(removeProject));

  it('--dry-run writes nothing and lists the dailies it would create', async () => {
    const root = project();
    const before = snapshotTree(root);
    const text = await runCli(['build', '--now', now, '--dry-run'], { cwd: root });
    expect(text.code).toBe(0);
    for (const day of ['2026-02-09', '2026-02-10', '2026-02-12', '2026-02-16', '2026-02-17']) expect(text.stdout).toContain(`daily ${day}`);
    expect(text.stdout).not.toContain('daily 2026-02-18');
    const { json } = await runCliJson(['build', '--now', now, '--dry-run', '--json'], { cwd: root });
    expect(json.dryRun).toBe(true);
    expect(json.written).toEqual([]);
    expect(json.streams[0].planned.filter((p: { tier: string }) => p.tier === 'daily').map((p: { period: string }) => p.period)).toEqual([
      '2026-02-09',
      '2026-02-10',
      '2026-02-12',
      '2026-02-16',
      '2026-02-17',
    ]);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('--through makes the weekly of an incomplete week', async () => {
    const root = project();
    await runCliJson(['build', '--now', now, '--json'], { cwd: root });
    expect(names(root, 'vault/main/weekly')).toEqual(['2026-W07']);
    const { json } = await runCliJson(['build', '--now', now, '--through', '2026-02-22', '--json'], { cwd: root });
    expect(allInVault(json.written)).toContain('main/weekly/2026-W08.md');
    expect(names(root, 'vault/main/weekly')).toEqual(['2026-W07', '2026-W08']);
    expect(names(root, 'vault/main/daily')).toContain('2026-02-18');
  });

  it('--force summarizes today', async () => {
    const root = project();
    const { json } = await runCliJson(['build', '--now', now, '--force', '--json'], { cwd: root });
    expect(allInVault(json.written)).toContain('main/daily/2026-02-18.md');
    expect(readText(root, 'vault/main/daily/2026-02-18.md')).toContain('Shipped the change planned for 2026-02-18.');
  });
});

describe('build: configuration and clock errors', () => {
  const files = { 'vault/main/memories/2026-02-10.md': memory({ date: '2026-02-10', body: 'Something happened.' }) };
  const roots: string[] = [];
  const project = (config?: string): string => {
    const root = createProject(files, config);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach(removeProject));

  it('an invalid memory.config.yaml exits 1 with the file, line and column, and a hint; nothing is written', async () => {
    const root = project('upload:\n  max_tokens: -1\n');
    const before = snapshotTree(root);
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^memory\.config\.yaml:2:15 error .*max_tokens/m);
    expect(result.stderr).toContain('hint:');
    expect(snapshotTree(root)).toEqual(before);
  });

  it('points an unknown config key at its own line', async () => {
    const root = project('timezone: UTC\nbogus_key: 1\n');
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^memory\.config\.yaml:2:1 error .*bogus_key/m);
  });

  it('a bad --now (or MEMVAULT_NOW) exits 1 with a one-line reason and a hint', async () => {
    const root = project();
    for (const [args, env] of [
      [['--now', 'yesterday'], {}],
      [[], { MEMVAULT_NOW: '2026-13-45' }],
    ] as const) {
      const result = await runCli(['build', ...args], { cwd: root, env });
      expect(result.code).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^memvault: .*(yesterday|2026-13-45).* not an ISO 8601 datetime/);
      expect(lines.slice(1).join('\n')).toMatch(/^ {2}hint: /);
      expect(lines.length).toBeLessThanOrEqual(2);
    }
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });

  it('rejects an impossible --now date instead of rolling it over (2026-02-30 is not 2026-03-02)', async () => {
    const root = project();
    const result = await runCli(['build', '--now', '2026-02-30T10:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('2026-02-30');
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });
});

describe('build: an empty vault', () => {
  let root: string;
  afterAll(() => removeProject(root));

  it('builds a package that says how to add memories', async () => {
    root = createProject({});
    const { json } = await runCliJson(['build', '--now', '2026-02-13T09:00:00Z', '--json'], { cwd: root });
    expect(allInVault(json.written)).toContain('main/UPLOAD_PACKAGE.md');
    const text = readText(root, 'vault/main/UPLOAD_PACKAGE.md');
    expect(text).toContain('No memories yet');
    expect(text).toMatch(/memories\//);
    expect(text).toContain('memvault build');
    expect(readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json').items).toEqual([]);
  });
});

describe('build: the build lock', () => {
  const files = { 'vault/main/memories/2026-02-10.md': memory({ date: '2026-02-10T10:00:00Z', body: 'Locked out, then in.' }) };
  let root: string;
  let sleeper: ChildProcess | undefined;
  afterAll(() => {
    sleeper?.kill();
    removeProject(root);
  });

  /** Pretends a build by `pid` holds the lock right now. */
  function holdLock(pid: number): void {
    const state = path.join(root, '.memvault');
    mkdirSync(path.join(state, 'build.lock'), { recursive: true });
    writeFileSync(
      path.join(state, 'build.owner.json'),
      JSON.stringify({ pid, started: '2026-02-13T08:59:00.000Z', command: 'memvault build' }),
    );
    const now = new Date();
    utimesSync(path.join(state, 'build.lock'), now, now);
  }

  it('refuses to build while a live process holds the lock', async () => {
    root = createProject(files);
    sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    holdLock(sleeper.pid!);
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`another build is running (pid ${sleeper.pid}`);
    expect(result.stderr).toContain('hint:');
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
  });

  it('takes over the lock of a process that is gone, builds, and releases it', async () => {
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => dead.on('exit', resolve));
    holdLock(dead.pid!);
    const result = await runCli(['build', '--now', '2026-02-13T09:00:00Z'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(names(root, 'vault/main/daily')).toEqual(['2026-02-10']);
    expect(existsSync(path.join(root, '.memvault/build.lock'))).toBe(false);
    expect(existsSync(path.join(root, '.memvault/build.owner.json'))).toBe(false);
  });
});
