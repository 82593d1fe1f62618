import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import { copyProject, createProject, memory, removeProject, runCli, type CliResult } from '../helpers/project.js';

/**
 * Bad input: a corpus of hostile and broken single files,
 * all in one vault next to a few good memories, built once through the real
 * CLI. Each bad file is named by exactly one message with a line and column,
 * the good memories reach the daily summary and the package, frontmatter
 * tagged `---js` never runs (its code would write a marker file), and nothing
 * outside the test's temporary folders is read or written.
 */

const NOW = '2026-02-06T06:00:00Z';
const DAY = '2026-02-03';
const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

interface Case {
  /** Path under `vault/main/` (or under `vault/` when it starts with `/`). */
  file: string;
  content?: string | Buffer;
  /** The rule of the one message naming the file; undefined: a good memory, named by no message and summarized. */
  rule?: string;
  /** Line of that message, when it matters. */
  line?: number;
  severity?: 'error' | 'warning' | 'info';
  /** Rules of further messages expected for the file (see the hand-made daily). */
  alsoRules?: string[];
}

let root: string;
let outside: string;
let marker: string;
let jsFrontmatter: (name: string) => string;
const cases: Case[] = [];
let result: CliResult;
let report: {
  diagnostics: { path: string; line: number; column: number; severity: string; reason: string; hint?: string; rule: string }[];
};

const ODD_STREAMS = ['we ird $(touch PWNED) `touch PWNED`', '-rf', 'ünï;|&'];
const good = (word: string, extra = ''): string =>
  `---\ndate: ${DAY}\n${extra}---\nThe ${word} migration was finished and verified today.\n`;
const dated = (frontmatter: string, body = 'Broken but harmless text.'): string => `---\n${frontmatter}\n---\n${body}\n`;

beforeAll(async () => {
  root = createProject({});
  roots.push(root);
  outside = mkdtempSync(path.join(os.tmpdir(), 'memvault-outside-'));
  roots.push(outside);
  writeFileSync(path.join(outside, '2026-02-03-secret.md'), good('outsidermarker'));
  marker = path.join(root, 'js-ran');
  jsFrontmatter = (fence) =>
    `---${fence}\n{ date: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') || '${DAY}' }\n---\nBody of a js memory.\n`;
  const aliasBomb = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  ].join('\n');
  const words = ['alpha', 'beta', 'gamma', 'delta', 'shipped', 'the', 'build'];
  let paragraph = '';
  for (let i = 0; paragraph.length < 900_000; i++) paragraph += `${words[i % words.length]} `;
  cases.push(
    // Code in frontmatter: never run, one error each.
    { file: 'memories/js.md', content: jsFrontmatter('js'), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/javascript.md', content: jsFrontmatter('javascript'), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/js-upper.md', content: jsFrontmatter('JS'), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/js-spaced.md', content: jsFrontmatter(' js '), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/coffee.md', content: jsFrontmatter('coffee'), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/toml.md', content: `---toml\ndate = "${DAY}"\n---\nBody.\n`, rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/constructor.md', content: jsFrontmatter('constructor'), rule: 'memory/frontmatter-language', line: 1 },
    { file: 'memories/fence-only.md', content: '---yaml', rule: 'memory/frontmatter', line: 1 },
    // Broken and hostile YAML.
    { file: 'memories/2026-02-03-unclosed.md', content: dated(`date: [${DAY}`), rule: 'memory/frontmatter' },
    { file: 'memories/duplicate-key.md', content: dated(`date: ${DAY}\ndate: 2026-02-04`), rule: 'memory/frontmatter', line: 3 },
    { file: 'memories/2026-02-03-list.md', content: dated('- a\n- b'), rule: 'memory/frontmatter' },
    { file: 'memories/2026-02-03-alias-bomb.md', content: dated(aliasBomb), rule: 'memory/frontmatter' },
    {
      file: 'memories/2026-02-03-flow-depth.md',
      content: dated(`a: ${'['.repeat(5000)}${']'.repeat(5000)}`),
      rule: 'memory/frontmatter-depth',
      line: 2,
    },
    { file: 'memories/2026-02-03-dash-depth.md', content: dated(`a:\n${'- '.repeat(5000)}x`), rule: 'memory/frontmatter-depth', line: 3 },
    {
      file: 'memories/2026-02-03-huge-frontmatter.md',
      content: dated(Array.from({ length: 7000 }, (_, i) => `key${i}: value${i}`).join('\n')),
      rule: 'memory/too-large',
    },
    { file: 'memories/2026-02-03-reserved.md', content: dated(`memvault: summary\ndate: ${DAY}`), rule: 'memory/reserved-key', line: 2 },
    { file: 'memories/2026-02-03-schema.md', content: dated(`date: ${DAY}\nimportance: urgent`), rule: 'memory/schema', line: 3 },
    { file: 'memories/no-date.md', content: 'A memory with no date anywhere.\n', rule: 'memory/no-date' },
    // Huge and deeply nested.
    { file: 'memories/2026-02-03-huge.md', content: good('huge', '') + 'x'.repeat(1024 * 1024), rule: 'memory/too-large' },
    {
      file: 'memories/2026-02-03-deep-list.md',
      content: dated(`date: ${DAY}`, `${'- '.repeat(5000)}deep`),
      rule: 'memory/too-deep',
      line: 4,
    },
    {
      file: 'memories/2026-02-03-deep-indent.md',
      content: dated(`date: ${DAY}`, Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')),
      rule: 'memory/too-deep',
    },
    {
      file: 'memories/2026-02-03-deep-quote.md',
      content: dated(`date: ${DAY}`, `${'>'.repeat(5000)} deep`),
      rule: 'memory/too-deep',
      line: 4,
    },
    {
      file: 'memories/2026-02-03-deep-emphasis.md',
      content: dated(`date: ${DAY}`, `${'*'.repeat(5000)}x${'*'.repeat(5000)}`),
      rule: 'memory/too-deep',
      line: 4,
    },
    {
      file: 'memories/2026-02-03-mixed-emphasis.md',
      content: dated(`date: ${DAY}`, `${'_*'.repeat(2500)}x`),
      rule: 'memory/too-deep',
      line: 4,
    },
    // Nested links: more `[` in one paragraph than micromark matches in linear time.
    {
      file: 'memories/2026-02-03-deep-links.md',
      content: dated(`date: ${DAY}`, `The deeplinks memory. ${'['.repeat(5000)}x${'](u)'.repeat(5000)}`),
      rule: 'memory/too-deep',
      line: 4,
    },
    {
      file: 'memories/2026-02-03-many-emphasis.md',
      content: dated(`date: ${DAY}`, '*a* '.repeat(50_000)),
      rule: 'memory/too-deep',
      line: 4,
    },
    // A long paragraph (0.9 MB) is read in linear time.
    { file: 'memories/2026-02-03-long-paragraph.md', content: dated(`date: ${DAY}`, `The longparagraph memory begins. ${paragraph}`) },
    // Bad dates.
    { file: 'memories/year-0999.md', content: dated('date: 0999-06-01'), rule: 'memory/invalid-date', line: 2 },
    { file: 'memories/month-13.md', content: dated('date: 2026-13-01'), rule: 'memory/invalid-date', line: 2 },
    { file: 'memories/feb-30.md', content: dated('date: 2026-02-30'), rule: 'memory/invalid-date', line: 2 },
    { file: 'memories/huge-year.md', content: dated('date: +012345-01-01'), rule: 'memory/invalid-date', line: 2 },
    { file: 'memories/year-10000.md', content: dated('date: 9999-12-31T23:59:59-14:00'), rule: 'memory/invalid-date', line: 2 },
    { file: 'memories/number-date.md', content: dated('date: 20260203'), rule: 'memory/invalid-date', line: 2 },
    {
      file: 'memories/future.md',
      content: dated('date: 2026-03-01', 'A memory from the future.'),
      rule: 'memory/future-date',
      severity: 'info',
    },
    // Encodings and bytes.
    { file: 'memories/2026-02-03-utf16.md', content: Buffer.from(`\ufeff${good('utf16')}`, 'utf16le'), rule: 'memory/binary' },
    {
      file: 'memories/2026-02-03-invalid-utf8.md',
      content: Buffer.concat([Buffer.from(`---\ndate: ${DAY}\n---\nBad `), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' bytes.\n')]),
      rule: 'memory/encoding',
      line: 4,
    },
    { file: 'memories/2026-02-03-lone-bom.md', content: '\ufeff', rule: 'memory/empty' },
    {
      file: 'memories/2026-02-03-binary.md',
      content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      rule: 'memory/binary',
    },
    { file: 'memories/2026-02-03-empty.md', content: '', rule: 'memory/empty' },
    { file: 'memories/2026-02-03-crlf.md', content: good('crlf').replace(/\n/g, '\r\n') },
    { file: 'memories/bom-frontmatter.md', content: `\ufeff${good('bomfront')}` },
    { file: 'memories/json.md', content: `---json\n{"date": "${DAY}"}\n---\nThe jsonfront migration was finished.\n` },
    // Odd names.
    { file: 'memories/2026-02-03 with spaces.md', content: good('spaces') },
    { file: 'memories/2026-02-03-ünïcødé-名前.md', content: good('unicode') },
    { file: 'memories/-2026-02-03-leading-dash.md', content: good('leadingdash') },
    { file: `memories/2026-02-03-${'long'.repeat(55)}.md`, content: good('longname') },
    // Traversal in ids.
    { file: 'memories/id-traversal.md', content: dated(`date: ${DAY}\nid: ../../etc/passwd`), rule: 'memory/invalid-id', line: 3 },
    { file: 'memories/id-dotdot.md', content: dated(`date: ${DAY}\nid: notes/..`), rule: 'memory/invalid-id', line: 3 },
    { file: 'memories/id-absolute.md', content: dated(`date: ${DAY}\nid: /etc/passwd`), rule: 'memory/invalid-id', line: 3 },
    { file: 'memories/id-control.md', content: dated(`date: ${DAY}\nid: "a\\u0007b"`), rule: 'memory/invalid-id', line: 3 },
    { file: 'memories/id-backslash.md', content: dated(`date: ${DAY}\nid: '..\\..\\x'`), rule: 'memory/invalid-id', line: 3 },
    // Links and non-files: reported, never followed.
    { file: 'memories/link-inside.md', rule: 'memory/symlink-skipped', severity: 'info' },
    { file: 'memories/link-outside.md', rule: 'memory/symlink-skipped', severity: 'info' },
    { file: 'memories/linkdir', rule: 'memory/symlink-skipped', severity: 'info' },
    { file: 'memories/fifo.md', rule: 'memory/not-a-file', severity: 'info' },
    // Fake summary frontmatter in the archive: read as a (bad) summary whatever the cache holds.
    { file: 'archive/2026-Q1/2026-02-03-fake.md', content: dated(`memvault: summary\ndate: ${DAY}`), rule: 'summary/schema' },
    // A hand-made file at a generated path: reported as an invalid summary, then moved aside (never overwritten) before the daily is written.
    {
      file: `daily/${DAY}.md`,
      content: '# My own notes\n\nHandmade daily text.\n',
      rule: 'summary/schema',
      alsoRules: ['build/moved-aside'],
    },
  );
  const files: Record<string, string | Buffer> = {
    'vault/main/memories/2026-02-02-good.md': memory({ date: '2026-02-02', body: 'The goodone migration was finished.' }),
  };
  for (const c of cases) if (c.content !== undefined) files[`vault/main/${c.file}`] = c.content;
  // Stream folders with odd names: built like any other, nothing in the name is run, nothing written outside them.
  for (const stream of ODD_STREAMS) files[`vault/${stream}/memories/2026-02-03-odd.md`] = good('oddstream');
  writeFilesRaw(root, files);
  const memories = path.join(root, 'vault/main/memories');
  symlinkSync('2026-02-02-good.md', path.join(memories, 'link-inside.md'));
  symlinkSync(path.join(outside, '2026-02-03-secret.md'), path.join(memories, 'link-outside.md'));
  symlinkSync(outside, path.join(memories, 'linkdir'));
  execFileSync('mkfifo', [path.join(memories, 'fifo.md')]);
  execFileSync('git', ['init', '-q'], { cwd: root });
  result = await runCli(['build', '--no-commit', '--json', '--now', NOW], { cwd: root });
  report = JSON.parse(result.stdout) as typeof report;
}, 120_000);

function writeFilesRaw(dir: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(dir, ...relative.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

function read(relative: string): string {
  return readFileSync(path.join(root, relative), 'utf8');
}

describe('a vault of hostile files builds', () => {
  it('holds at least 40 cases and exits 0 with the rest of the vault built', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(result.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    expect(result.code).toBe(0);
  });

  it('names each bad file in exactly one message, with a line, a column and a hint', () => {
    const problems: string[] = [];
    for (const c of cases) {
      const vaultPath = `main/${c.file}`;
      const all = report.diagnostics.filter((d) => d.path === vaultPath || d.path === `${vaultPath}/`);
      const named = all.filter((d) => !c.alsoRules?.includes(d.rule));
      if (c.alsoRules && all.length - named.length !== c.alsoRules.length)
        problems.push(`${vaultPath}: expected also ${c.alsoRules.join(', ')}`);
      if (c.rule === undefined) {
        if (named.length > 0) problems.push(`${vaultPath}: expected no message, got ${named.map((d) => d.rule).join(', ')}`);
        continue;
      }
      if (named.length !== 1 || named[0]!.rule !== c.rule) {
        problems.push(`${vaultPath}: expected one ${c.rule}, got ${named.map((d) => `${d.rule} (${d.reason})`).join(', ') || 'nothing'}`);
        continue;
      }
      const d = named[0]!;
      if (c.line !== undefined && d.line !== c.line) problems.push(`${vaultPath}: line ${d.line}, expected ${c.line}`);
      if (!(d.line >= 1 && d.column >= 1 && d.hint)) problems.push(`${vaultPath}: no place or hint`);
      if (d.severity !== (c.severity ?? 'error')) problems.push(`${vaultPath}: severity ${d.severity}`);
      // Printed as `path:line:col severity reason` on stderr.
      if (!result.stderr.includes(`${vaultPath}:${d.line}:${d.column} ${d.severity}`)) problems.push(`${vaultPath}: not printed`);
    }
    expect(problems).toEqual([]);
  });

  it('summarizes the good memories in the daily and the package, within the budget', () => {
    // The extractive summary drops near-duplicate sentences: the sources list says which memories it read.
    const daily = read(`vault/main/daily/${DAY}.md`);
    const goodCases = cases.filter((c) => c.rule === undefined);
    expect(goodCases.length).toBeGreaterThanOrEqual(8);
    for (const c of goodCases) expect(daily, c.file).toContain(`id: ${path.basename(c.file, '.md')},`);
    expect(daily).not.toMatch(/id: (?:js|javascript|coffee|link-inside|link-outside|linkdir|fifo|2026-02-03-huge|2026-02-03-deep-list),/);
    expect(read('vault/main/daily/2026-02-02.md')).toContain('goodone');
    const manifest = JSON.parse(read('vault/main/UPLOAD_PACKAGE.manifest.json')) as {
      tokens: number;
      bytes: number;
      budget: { max_tokens: number; max_bytes: number };
    };
    expect(manifest.tokens).toBeGreaterThan(0);
    expect(manifest.tokens).toBeLessThanOrEqual(manifest.budget.max_tokens);
    expect(manifest.bytes).toBeLessThanOrEqual(manifest.budget.max_bytes);
    expect(read('vault/main/UPLOAD_PACKAGE.md')).toMatch(/goodone|migration/);
  });

  it('never runs frontmatter code, never reads through a link', () => {
    expect(existsSync(marker)).toBe(false);
    for (const stream of ODD_STREAMS) expect(read(`vault/${stream}/daily/${DAY}.md`), stream).toContain('oddstream');
    expect(execFileSync('find', [root, outside, '-name', 'PWNED'], { encoding: 'utf8' })).toBe('');
    const outputs = ['vault/main/UPLOAD_PACKAGE.md', `vault/main/daily/${DAY}.md`, 'vault/INDEX.md'].map(read).join('\n');
    expect(outputs).not.toContain('outsidermarker');
    // The linked file is summarized once, from its own path, not again through the link.
    expect(read('vault/main/daily/2026-02-02.md').match(/^ {2}- \{ id: /gm)).toHaveLength(1);
    expect(readdirSync(outside).sort()).toEqual(['2026-02-03-secret.md']);
    const aside = readdirSync(path.join(root, 'vault/main/history/hand-written/daily'));
    expect(aside).toHaveLength(1);
    expect(read(`vault/main/history/hand-written/daily/${aside[0]!}`)).toContain('Handmade daily text.');
  });

  it('gives the same output with a cold and a warm parse cache', async () => {
    // cp cannot copy a FIFO: each copy gets its own.
    const fifo = path.join(root, 'vault/main/memories/fifo.md');
    rmSync(fifo);
    const cold = copyProject(root);
    const warm = copyProject(root);
    roots.push(cold, warm);
    rmSync(path.join(cold, '.memvault'), { recursive: true, force: true });
    for (const dir of [root, cold, warm]) execFileSync('mkfifo', [path.join(dir, 'vault/main/memories/fifo.md')]);
    // Checked by their files: built in-process (the same pipeline and parse cache, no CLI start each).
    for (const dir of [cold, warm]) await buildInProcess({ root: dir, now: new Date(NOW), commit: false });
    for (const file of [`vault/main/daily/${DAY}.md`, 'vault/main/UPLOAD_PACKAGE.md', 'vault/index.json']) {
      expect(readFileSync(path.join(cold, file), 'utf8'), file).toBe(readFileSync(path.join(warm, file), 'utf8'));
    }
  }, 120_000);
});

describe('frontmatter code never runs in any command', () => {
  it('build --dry-run, status, ingest FILE.md and add leave no marker', async () => {
    const project = createProject({
      'vault/main/memories/2026-02-02-good.md': memory({ date: '2026-02-02', body: 'The goodone memory.' }),
    });
    roots.push(project);
    const mark = path.join(project, 'js-ran');
    const js = `---js\n{ date: require('fs').writeFileSync(${JSON.stringify(mark)}, 'x') || '${DAY}' }\n---\nBody.\n`;
    writeFileSync(path.join(project, 'vault/main/memories/2026-02-03-js.md'), js);
    writeFileSync(path.join(project, 'note.md'), js);
    execFileSync('git', ['init', '-q'], { cwd: project });
    const dry = await runCli(['build', '--dry-run', '--now', NOW], { cwd: project });
    expect(dry.stderr).toContain('main/memories/2026-02-03-js.md:1:1 error unsupported frontmatter language "js"');
    const status = await runCli(['status', '--now', NOW], { cwd: project });
    const ingest = await runCli(['ingest', 'note.md'], { cwd: project });
    expect(ingest.stderr).toContain('unsupported frontmatter language "js"');
    const add = await runCli(['add', '--date', DAY, '--', js], { cwd: project });
    const build = await runCli(['build', '--no-commit', '--now', NOW], { cwd: project });
    expect({ dry: dry.code, status: status.code, add: add.code, build: build.code }).toEqual({ dry: 0, status: 0, add: 0, build: 0 });
    expect(existsSync(mark)).toBe(false);
  }, 120_000);
});

describe('an unreadable file', () => {
  // chmod 000 does not stop root: as root, the CLI runs as the unprivileged user `nobody` (65534) on a project it may write.
  const asRoot = process.getuid?.() === 0;
  it('is one error, and the rest builds', async () => {
    const project = createProject({
      'vault/main/memories/2026-02-02-good.md': memory({ date: '2026-02-02', body: 'The goodone memory.' }),
      'vault/main/memories/2026-02-03-locked.md': good('locked'),
    });
    roots.push(project);
    if (asRoot) execFileSync('chmod', ['-R', 'a+rwX', project]);
    chmodSync(path.join(project, 'vault/main/memories/2026-02-03-locked.md'), 0);
    const user = asRoot ? { uid: 65534, gid: 65534, env: { HOME: project } } : {};
    const run = await runCli(['build', '--no-commit', '--now', NOW], { cwd: project, ...user });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('main/memories/2026-02-03-locked.md:1:1 error cannot read the file (EACCES)');
    expect(readFileSync(path.join(project, 'vault/main/daily/2026-02-02.md'), 'utf8')).toContain('goodone');
  }, 60_000);
});
