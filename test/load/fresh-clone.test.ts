import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSyntheticVault } from '../../scripts/fixtures/synthetic-vault.js';
import { DEFAULT_TIMEZONE } from '../../src/config/schema.js';
import { build, type BuildReport } from '../../src/pipeline/build.js';
import type { Manifest } from '../../src/pipeline/package/index.js';
import { ParseCache } from '../../src/store/cache.js';
import { frontmatterBody } from '../../src/vault/frontmatter.js';
import { headingSpans, parseMarkdown } from '../../src/vault/markdown.js';
import { RECORD_DIR } from '../../src/store/committed-record.js';
import { loadVault, type LoadStats } from '../../src/load/load.js';
import { MIN_FILES_FOR_WORKERS } from '../../src/load/parse-pool.js';

/**
 * The nightly job's case: a clean checkout of a built vault, without the
 * `.memvault` parse cache, plus a day of new memories. It must write exactly
 * what a warm build of the same vault writes, and parse only what it
 * summarizes and packages.
 */

const FIRST_NOW = '2026-03-15T06:00:00Z';
const NOW = '2026-03-16T06:00:00Z';
const NEW_DAY = '2026-03-15';

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Every file under the vault folder, path → content. */
function vaultFiles(root: string): Map<string, string> {
  const vault = path.join(root, 'vault');
  const out = new Map<string, string>();
  for (const file of readdirSync(vault, { recursive: true, withFileTypes: true })) {
    if (!file.isFile()) continue;
    const full = path.join(file.parentPath, file.name);
    out.set(path.relative(vault, full), readFileSync(full, 'utf8'));
  }
  return out;
}

function addNewMemories(root: string): void {
  const folder = path.join(root, 'vault', 'main', 'memories', NEW_DAY.slice(0, 4), NEW_DAY.slice(5, 7));
  for (const n of [1, 2, 3]) {
    const body = `Moved the invoice export ${n} to the queue worker; the p99 stayed under ${200 + n}ms (#${7000 + n}).`;
    writeFileSync(
      path.join(folder, `${NEW_DAY}-nightly-${n}.md`),
      `---\ndate: ${NEW_DAY}T1${n}:00:00Z\ntitle: Nightly ${n}\n---\n\n${body}\n`,
    );
  }
}

let warm: string;
let clone: string;
let warmReport: BuildReport;
let cloneReport: BuildReport;
let cloneLoad: LoadStats;
let untrustedLoad: LoadStats;
let recordBuild: BuildReport;
beforeAll(async () => {
  warm = mkdtempSync(path.join(os.tmpdir(), 'memvault-warm-'));
  clone = mkdtempSync(path.join(os.tmpdir(), 'memvault-clone-'));
  // More memories than MIN_FILES_FOR_WORKERS: a clone reads them all, and looks for the summaries that list them.
  generateSyntheticVault(warm, { memories: 320, days: 35, endDay: '2026-03-14', seed: 11, pinned: 2 });
  await build({ root: warm, now: new Date(FIRST_NOW), commit: false });
  writeFileSync(path.join(warm, '.gitignore'), '.memvault/\n');
  git(warm, 'init', '-q', '-b', 'main');
  git(warm, 'add', '-A');
  git(warm, '-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'built');
  // A committing build of the built vault writes the committed record and commits it (nothing else changes).
  recordBuild = await build({ root: warm, now: new Date(FIRST_NOW), commit: true });
  rmSync(clone, { recursive: true, force: true });
  git(os.tmpdir(), 'clone', '-q', warm, clone);
  addNewMemories(warm);
  addNewMemories(clone);
  // The clone's load alone (nothing saved): what it reads and what it parses before any stage asks for text.
  const loadClone = async (useRecord: boolean): Promise<LoadStats> => {
    const loaded = await loadVault({
      vaultDir: path.join(clone, 'vault'),
      stateDir: path.join(clone, '.memvault'),
      timezone: DEFAULT_TIMEZONE,
      configuredStreams: ['main'],
      useRecord,
    });
    loaded.cache.close();
    rmSync(path.join(clone, '.memvault'), { recursive: true, force: true });
    return loaded.stats;
  };
  // A project that did not opt in (git.record) never trusts a record it finds: every file is read.
  untrustedLoad = await loadClone(false);
  cloneLoad = await loadClone(true);
  warmReport = await build({ root: warm, now: new Date(NOW), commit: false });
  cloneReport = await build({ root: clone, now: new Date(NOW), commit: false });
}, 120_000);
afterAll(() => {
  rmSync(warm, { recursive: true, force: true });
  rmSync(clone, { recursive: true, force: true });
});

describe('a fresh clone without .memvault', () => {
  it('writes byte for byte what a warm build of the same vault writes', () => {
    expect(cloneReport.written).toEqual(warmReport.written);
    expect(cloneReport.written).toContain(`main/daily/${NEW_DAY}.md`);
    const warmFiles = vaultFiles(warm);
    const cloneFiles = vaultFiles(clone);
    expect([...cloneFiles.keys()].sort()).toEqual([...warmFiles.keys()].sort());
    for (const [file, text] of warmFiles) expect(cloneFiles.get(file), file).toBe(text);
  });

  it('reads only the new memories: the committed record vouches for every file committed unchanged', () => {
    expect(recordBuild.written).toEqual([]);
    expect(recordBuild.commit?.status).toBe('committed');
    expect(git(warm, 'ls-files', `vault/${RECORD_DIR}`).split('\n').length).toBeGreaterThan(3);
    expect(cloneReport.streams[0]!.memories).toBe(323);
    expect(cloneReport.stats.files).toBeGreaterThan(MIN_FILES_FOR_WORKERS);
    expect(cloneReport.stats.read).toBe(3);
    expect(cloneLoad.read).toBe(3);
    expect(untrustedLoad.read).toBeGreaterThan(320);
    expect(cloneLoad.parsed).toBe(3);
    expect(cloneReport.diagnostics.filter((d) => d.rule === 'record/unreadable')).toEqual([]);
    // Then the stages parse what they summarize: the new day's memories, the summaries a new summary is built from, the
    // summaries the index reads. Never all of it.
    expect(cloneReport.stats.parsed).toBeGreaterThanOrEqual(3);
    expect(cloneReport.stats.parsed).toBeLessThan(cloneReport.stats.files);
    // No other memory: the package shows bodies with the headings the record holds (remark's, from the warm machine's
    // parse), though most of these memories have headings. A parsed body is kept in the clone's parse cache.
    const cache = ParseCache.open(path.join(clone, '.memvault'), DEFAULT_TIMEZONE);
    const parsedMemories = [...cache.values()].filter(
      (entry) => entry.result.type === 'memory' && cache.readContent(entry.result.memory.path, entry.sha256) !== undefined,
    );
    // What lets it: every memory came with remark's headings from the record (the warm build parsed them all).
    const withHeadings = [...cache.values()].filter((entry) => entry.result.type === 'memory' && entry.headings?.length);
    expect(withHeadings.length).toBeGreaterThan(100);
    for (const entry of withHeadings.slice(0, 20)) {
      const text = readFileSync(path.join(clone, 'vault', entry.result.type === 'memory' ? entry.result.memory.path : ''), 'utf8');
      expect(entry.headings).toEqual(headingSpans(parseMarkdown(frontmatterBody(text).trim())));
    }
    cache.close();
    // Parsed in full: the new day's memories only. The days the package tried to buy back in part show their memories'
    // opening sentences (refineInPart), read from each body's beginning (vault/opening.ts), not kept as parsed bodies.
    const parsedDays = parsedMemories.map((entry) => (entry.result.type === 'memory' ? entry.result.memory.day : ''));
    expect(parsedDays).toEqual([NEW_DAY, NEW_DAY, NEW_DAY]);
    const manifest = JSON.parse(readFileSync(path.join(clone, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
    expect(manifest.items.filter((item) => item.reason?.startsWith('opening only')).length).toBeGreaterThan(0);
    // The warm build read only the new files.
    expect(warmReport.stats.read).toBe(3);
    expect(warmReport.stats.parsed).toBe(3);
  });

  it("takes every memory's citations from the record, as the warm machine parsed them", () => {
    const citationsOf = (root: string): Map<string, unknown> => {
      const cache = ParseCache.open(path.join(root, '.memvault'), DEFAULT_TIMEZONE);
      try {
        const out = new Map<string, unknown>();
        for (const entry of cache.values())
          if (entry.result.type === 'memory' && entry.result.memory.citations)
            out.set(entry.result.memory.path, entry.result.memory.citations);
        return out;
      } finally {
        cache.close();
      }
    };
    const warmCitations = citationsOf(warm);
    // The synthetic memories cite issues (`#7001`): most of them cite something.
    expect(warmCitations.size).toBeGreaterThan(100);
    expect(citationsOf(clone)).toEqual(warmCitations);
    // As tuples in the record's `c`, not objects in `m`.
    const shard = readFileSync(memoryShard(warm), 'utf8');
    expect(shard).toMatch(/"c":\[\["i","#\d+",\d+\]/);
    expect(shard).not.toContain('"kind":"issue"');
  });

  it('leaves a parse cache behind: the next build reads and writes nothing', async () => {
    const again = await build({ root: clone, now: new Date(NOW), commit: false });
    expect(again.written).toEqual([]);
    expect(again.stats.read).toBe(0);
    expect(again.stats.parsed).toBe(0);
  });
});

/** The first shard of memories in a repository's record. */
function memoryShard(root: string): string {
  const dir = path.join(root, 'vault', RECORD_DIR, 'main');
  return path.join(dir, readdirSync(dir).filter((name) => name.startsWith('memories-'))[0]!);
}

describe('a fresh clone whose history was edited by hand, with a merge conflict left in the record', () => {
  let edited: string;
  let shardLines: number;
  let second: string;
  let report: BuildReport;
  let warmAgain: BuildReport;
  beforeAll(async () => {
    second = mkdtempSync(path.join(os.tmpdir(), 'memvault-clone2-'));
    // The warm vault as the nightly leaves it: built as of NOW, record and all committed.
    await build({ root: warm, now: new Date(NOW), commit: true });
    git(warm, 'add', '-A');
    git(warm, '-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '--allow-empty', '-m', 'new memories');
    // A memory of an old day edited and committed without a build: its blob differs from the record's.
    const shard = memoryShard(warm);
    const lines = readFileSync(shard, 'utf8').trimEnd().split('\n');
    shardLines = lines.length - 1;
    const other = readdirSync(path.dirname(shard)).filter((name) => name.startsWith('memories-'))[1]!;
    const otherLine = readFileSync(path.join(path.dirname(shard), other), 'utf8').split('\n')[1]!;
    edited = (JSON.parse(otherLine) as { p: string }).p;
    const file = path.join(warm, 'vault', edited);
    writeFileSync(file, `${readFileSync(file, 'utf8').trimEnd()}\n\nDecided to keep the hand-made note about the rollback window.\n`);
    // What git leaves in a file when two branches changed the same lines.
    writeFileSync(shard, [lines[0], '<<<<<<< HEAD', ...lines.slice(1, 3), '=======', ...lines.slice(3), '>>>>>>> other', ''].join('\n'));
    git(warm, 'add', '-A');
    git(warm, '-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'hand edit');
    rmSync(second, { recursive: true, force: true });
    git(os.tmpdir(), 'clone', '-q', warm, second);
    warmAgain = await build({ root: warm, now: new Date(NOW), commit: false });
    report = await build({ root: second, now: new Date(NOW), commit: false });
  }, 120_000);
  afterAll(() => rmSync(second, { recursive: true, force: true }));

  it("reads the edited memory and the conflicted shard's files, warns once, and writes what a warm build writes", () => {
    const dailyOfEdit = `main/daily/${edited.match(/(\d{4}-\d{2}-\d{2})/)![1]}.md`;
    expect(warmAgain.written).toContain(dailyOfEdit);
    expect(report.written).toEqual(warmAgain.written);
    expect(report.stats.read).toBe(shardLines + 1);
    const warnings = report.diagnostics.filter((d) => d.rule === 'record/unreadable');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.path).toBe(path.relative(path.join(warm, 'vault'), memoryShard(warm)).split(path.sep).join('/'));
    const warmFiles = vaultFiles(warm);
    for (const [name, text] of vaultFiles(second)) if (!name.startsWith(RECORD_DIR)) expect(text, name).toBe(warmFiles.get(name));
  });

  it('a committing build writes the record anew: a clone of it reads nothing it does not summarize', async () => {
    const committed = await build({ root: second, now: new Date(NOW), commit: true });
    expect(committed.commit?.status).toBe('committed');
    expect(readFileSync(memoryShard(second), 'utf8')).not.toContain('<<<<<<<');
    const third = mkdtempSync(path.join(os.tmpdir(), 'memvault-clone3-'));
    try {
      rmSync(third, { recursive: true, force: true });
      git(os.tmpdir(), 'clone', '-q', second, third);
      const again = await build({ root: third, now: new Date(NOW), commit: false });
      expect(again.written).toEqual([]);
      expect(again.stats.read).toBe(0);
      expect(again.diagnostics.filter((d) => d.rule === 'record/unreadable')).toEqual([]);
    } finally {
      rmSync(third, { recursive: true, force: true });
    }
  }, 60_000);
});
