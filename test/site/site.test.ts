import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nightlyWorkflowText } from '../../src/project/init-templates.js';
import { openVault } from '../../src/read/vault.js';
import { hrefTo, html } from '../../src/site/html.js';
import { renderMarkdown } from '../../src/site/markdown.js';
import { fileName, sitePaths } from '../../src/site/paths.js';
import { buildSite } from '../../src/site/site.js';
import { lintWorkflow } from '../helpers/actionlint.js';
import { createProject, memory, removeProject, runCli, writeFiles } from '../helpers/project.js';

/** A secret of a kind the loader holds back, assembled at run time so no source file holds one. */
const SECRET = ['gh', 'p_', 'Zq8', 'x'.repeat(30), 'a7Q'].join('');

const HOSTILE = `Look: <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">.

[click me](javascript:window.__pwned=3) · [data](data:text/html,<script>alert(1)</script>) · [fine](https://example.com/a?b=1)

<iframe src="https://evil.example"></iframe>
`;

describe('site rendering: memory text is text', () => {
  it('raw HTML in a memory is shown escaped, never as markup', () => {
    const out = renderMarkdown(HOSTILE).value;
    expect(out).not.toMatch(/<script/i);
    expect(out).not.toMatch(/<img/i);
    expect(out).not.toMatch(/<iframe/i);
    expect(out).not.toMatch(/<[a-z][^<>]*\sonerror=/i);
    expect(out).toContain('&#x3C;script>window.__pwned = 1&#x3C;/script>');
  });

  it('javascript: and data: links lose their target; http links keep theirs and get rel', () => {
    const out = renderMarkdown(HOSTILE).value;
    expect(out).not.toMatch(/href="\s*javascript:/i);
    expect(out).not.toMatch(/href="\s*data:/i);
    expect(out).toContain('<span>click me</span>');
    expect(out).toMatch(/<a href="https:\/\/example.com\/a\?b=1" rel="nofollow noopener noreferrer">fine<\/a>/);
  });

  it('the html template escapes every value and passes markup it made', () => {
    const title = '"><script>x()</script>';
    const out = html`<a title="${title}">${title}</a>${html`<b>${'<i>'}</b>`}`.value;
    expect(out).toBe(
      '<a title="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;">&quot;&gt;&lt;script&gt;x()&lt;/script&gt;</a><b>&lt;i&gt;</b>',
    );
  });

  it('links between pages are relative, encoded, and never start with a scheme', () => {
    expect(hrefTo('main/day-2026-10-01.html', 'main/memory/a~b.html')).toBe('./memory/a~b.html');
    expect(hrefTo('main/memory/x.html', 'index.html')).toBe('./../../index.html');
    expect(hrefTo('index.html', 'javascript:alert(1)')).toBe('./javascript%3Aalert(1)');
    expect(fileName('2026/10/notes')).toBe('2026~10~notes');
    expect(fileName('a b?c#d')).toMatch(/^a_b_c_d-[0-9a-f]{8}$/);
    expect(fileName('a b?c#d')).not.toBe(fileName('a b?c#e'));
  });
});

describe('memvault site on a small vault', () => {
  let root: string;
  let out: string;
  const files = () =>
    readdirSync(out, { recursive: true, encoding: 'utf8' })
      .filter((f) => statSync(path.join(out, f)).isFile())
      .sort();

  beforeAll(() => {
    root = createProject({
      'vault/main/memories/2026/10/2026-10-05-hostile.md': memory({
        date: '2026-10-05T10:00:00Z',
        title: 'Hostile <b>title</b>',
        body: HOSTILE,
      }),
      'vault/main/memories/2026/10/2026-10-06-plain.md': memory({
        date: '2026-10-06T09:30:00Z',
        title: 'Sessions in Postgres',
        kind: 'decision',
        tags: ['auth'],
        body: 'We store sessions in Postgres.\n\nFact: session_store = postgres',
      }),
      'vault/main/memories/2026/10/2026-10-07-held.md': memory({
        date: '2026-10-07T09:30:00Z',
        title: 'Token',
        body: `The token is ${SECRET} for CI.`,
      }),
    });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
    execFileSync('git', ['add', 'vault/main/memories/2026/10/2026-10-06-plain.md'], { cwd: root });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'Add the sessions decision'], { cwd: root });
    out = path.join(root, 'site');
  });
  afterAll(() => removeProject(root));

  it('writes the timeline, memory pages, search and the vault pages', async () => {
    const result = buildSite(await openVault(root), out, '2026-10-10');
    expect(result.written.length).toBe(result.pages);
    const written = files();
    for (const page of [
      sitePaths.home,
      sitePaths.stream('main'),
      sitePaths.year('main', '2026'),
      sitePaths.month('main', '2026-10'),
      sitePaths.week('main', '2026-W41'),
      sitePaths.day('main', '2026-10-06'),
      sitePaths.memory('main', '2026/10/2026-10-06-plain'),
      sitePaths.review,
      sitePaths.facts,
      sitePaths.charts('main'),
      sitePaths.search,
      sitePaths.searchCatalog,
    ])
      expect(written).toContain(page);
    const day = readFileSync(path.join(out, sitePaths.day('main', '2026-10-06')), 'utf8');
    expect(day).toContain('href="./memory/2026~10~2026-10-06-plain.html"');
    expect(day).toContain('rel="up" href="./week-2026-W41.html"');
    const page = readFileSync(path.join(out, sitePaths.memory('main', '2026/10/2026-10-06-plain')), 'utf8');
    expect(page).toContain('Add the sessions decision');
    expect(page).toContain('<code>session_store</code> = postgres');
    expect(readFileSync(path.join(out, sitePaths.facts), 'utf8')).toContain('postgres');
  });

  it('a hostile memory renders inert: the only scripts are the site’s own files', () => {
    const page = readFileSync(path.join(out, sitePaths.memory('main', '2026/10/2026-10-05-hostile')), 'utf8');
    expect(page.match(/<script\b[^>]*>/g) ?? []).toEqual([]);
    expect(page).not.toMatch(/href="\s*javascript:/i);
    expect(page).toContain('<h1>Hostile &lt;b&gt;title&lt;/b&gt;</h1>');
    expect(page).toContain('script-src &#39;self&#39;');
    const search = readFileSync(path.join(out, sitePaths.search), 'utf8');
    expect(search.match(/<script\b[^>]*>/g)).toEqual(['<script src="./assets/search.js">']);
  });

  it('a memory held back for a secret appears nowhere, not even its title', () => {
    for (const file of files()) {
      const text = readFileSync(path.join(out, file), 'utf8');
      expect(text, file).not.toContain(SECRET);
      expect(text, file).not.toContain('2026-10-07-held');
    }
  });

  it('a second run writes nothing; an edit rewrites only the pages it shows on', async () => {
    expect(buildSite(await openVault(root), out, '2026-10-10').written).toEqual([]);
    const before = statSync(path.join(out, sitePaths.home)).mtimeMs;
    writeFiles(root, {
      'vault/main/memories/2026/10/2026-10-06-plain.md': memory({
        date: '2026-10-06T09:30:00Z',
        title: 'Sessions in Postgres',
        kind: 'decision',
        tags: ['auth'],
        body: 'We store sessions in Postgres, 30 days.\n\nFact: session_store = postgres',
      }),
    });
    const edited = buildSite(await openVault(root), out, '2026-10-10');
    expect(edited.written.sort()).toEqual(
      [sitePaths.memory('main', '2026/10/2026-10-06-plain'), sitePaths.searchShard('main', '2026-10')].sort(),
    );
    expect(statSync(path.join(out, sitePaths.home)).mtimeMs).toBe(before);
    expect(readFileSync(path.join(out, sitePaths.searchShard('main', '2026-10')), 'utf8')).toContain('30 days');
  });

  it('a deleted memory’s page is removed, and so is a page deleted by hand written again', async () => {
    rmSync(path.join(root, 'vault/main/memories/2026/10/2026-10-05-hostile.md'));
    rmSync(path.join(out, sitePaths.facts));
    const result = buildSite(await openVault(root), out, '2026-10-10');
    expect(result.removed).toContain(sitePaths.memory('main', '2026/10/2026-10-05-hostile'));
    expect(existsSync(path.join(out, sitePaths.memory('main', '2026/10/2026-10-05-hostile')))).toBe(false);
    expect(result.written).toContain(sitePaths.facts);
    // The day had only that memory: its page goes too; the week lists one memory less.
    expect(result.removed).toContain(sitePaths.day('main', '2026-10-05'));
    expect(result.written).toContain(sitePaths.week('main', '2026-W41'));
  });
});

describe('memvault site (the CLI)', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({ 'vault/main/memories/2026-10-06-a.md': memory({ date: '2026-10-06T09:30:00Z', title: 'A', body: 'Text.' }) });
  });
  afterAll(() => removeProject(root));

  it('writes the site and says what it wrote; a second run writes nothing', async () => {
    const first = await runCli(['site', '--json'], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    const json = JSON.parse(first.stdout) as { out: string; pages: number; written: string[] };
    expect(json.out).toBe(path.join(root, 'site'));
    expect(json.written).toContain(sitePaths.memory('main', '2026-10-06-a'));
    const second = await runCli(['site'], { cwd: root });
    expect(second.stdout).toMatch(/^0 of \d+ pages written, 0 removed/);
  });

  it('refuses an --out in the vault or outside the project, and writes nothing there', async () => {
    for (const out of ['vault/site', '../elsewhere']) {
      const result = await runCli(['site', '--out', out], { cwd: root });
      expect(result.code, out).toBe(1);
      expect(result.stderr).toContain('[cli/out]');
    }
    expect(existsSync(path.join(root, 'vault/site'))).toBe(false);
    expect(existsSync(path.join(root, '../elsewhere'))).toBe(false);
  });
});

describe('init --pages', () => {
  it('adds a Pages job after the rollup that actionlint accepts; without it the workflow has none', async () => {
    const install = 'github:ana/memvault#0123456789abcdef0123456789abcdef01234567';
    const withPages = nightlyWorkflowText({ install, pages: true });
    expect(withPages).toContain('needs: rollup');
    expect(withPages).toContain('memvault site --out');
    expect(withPages).toContain('actions/deploy-pages@v4');
    expect(await lintWorkflow(withPages, '.github/workflows/memvault-nightly.yml')).toEqual([]);
    expect(nightlyWorkflowText({ install })).not.toContain('deploy-pages');
  });
});
