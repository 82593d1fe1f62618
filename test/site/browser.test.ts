import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memory, removeProject, runCli } from '../helpers/project.js';

/**
 * The site in a real browser: headless Chromium (the Debian package, driven by playwright-core) opens the sample
 * vault's site from file://, walks the timeline from a month to a memory and back, finds a memory by search, checks
 * that a hostile memory renders inert, takes screenshots checked against loose expectations (what is visible and
 * how large), and runs axe-core on the main pages. Slow (a build of the sample vault and a browser): MEMVAULT_SLOW=1.
 * Without Chromium (CI may lack it) the tests skip and say so; set MEMVAULT_CHROMIUM to use another binary.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const SLOW = process.env.MEMVAULT_SLOW === '1';
const CANDIDATES = [process.env.MEMVAULT_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const CHROMIUM = CANDIDATES.find((candidate): candidate is string => candidate !== undefined && candidate !== '' && existsSync(candidate));
const HAS_PLAYWRIGHT = (() => {
  try {
    require.resolve('playwright-core');
    return true;
  } catch {
    return false;
  }
})();
const RUN = SLOW && CHROMIUM !== undefined && HAS_PLAYWRIGHT;
if (SLOW && !RUN)
  console.warn(
    `test/site/browser.test.ts skipped: ${CHROMIUM ? '' : 'no Chromium found (apt-get install -y chromium, or set MEMVAULT_CHROMIUM)'}${
      HAS_PLAYWRIGHT ? '' : ' playwright-core is not installed'
    }`,
  );

/** A credential of a kind the loader holds back, assembled at run time so no source file holds one. */
const SECRET = ['gh', 'p_', 'Zq8', 'y'.repeat(30), 'a7Q'].join('');

const HOSTILE_ID = '2026/11/2026-11-10-hostile-paste';
const HOSTILE = memory({
  date: '2026-11-10T10:00:00+01:00',
  title: 'Pasted <script>window.__pwned = "title"</script> from a chat',
  body: `Someone pasted this: <script>window.__pwned = "body"</script> <img src="x" onerror="window.__pwned = 'img'">

[open the dashboard](javascript:window.__pwned='link') and <a href="javascript:window.__pwned='a'">this one</a>.`,
});

/** Waits until the page's h1 reads `expected` (after a click that navigates), then checks it. */
async function heading(page: Page, expected: string): Promise<void> {
  await page
    .waitForFunction(`document.querySelector('h1')?.textContent === ${JSON.stringify(expected)}`, undefined, { timeout: 10_000 })
    .catch(() => undefined);
  expect(await page.locator('h1').textContent()).toBe(expected);
}

describe.skipIf(!RUN)('the sample vault’s site in headless Chromium', () => {
  let root: string;
  let shots: string;
  let site: string;
  let browser: Browser;
  let page: Page;
  const url = (relative: string) => pathToFileURL(path.join(site, relative)).href;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'memvault-site-'));
    for (const name of ['memory.config.yaml', 'memory.config.schema.json', 'vault', 'prompts'])
      cpSync(path.join(REPO, name), path.join(root, name), { recursive: true });
    mkdirSync(path.join(root, 'vault/main/memories/2026/11'), { recursive: true });
    writeFileSync(path.join(root, `vault/main/memories/${HOSTILE_ID}.md`), HOSTILE);
    writeFileSync(
      path.join(root, 'vault/main/memories/2026/11/2026-11-11-ci-token.md'),
      memory({ date: '2026-11-11T10:00:00+01:00', title: 'The CI token', body: `CI pushes with ${SECRET} now.` }),
    );
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: root, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'The sample vault');
    const built = await runCli(['build', '--now', '2026-11-22T06:00:00Z'], { cwd: root });
    expect(built.code, built.stderr).toBe(0);
    const started = Date.now();
    const made = await runCli(['site', '--now', '2026-11-22T06:00:00Z'], { cwd: root });
    expect(made.code, made.stderr).toBe(0);
    console.log(`memvault site of the sample vault: ${Date.now() - started} ms (${made.stdout.split('\n')[0]})`);
    site = path.join(root, 'site');
    shots = path.join(root, 'screenshots');
    mkdirSync(shots);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    removeProject(root);
  });

  it('follows the timeline from a month to a memory and back', async () => {
    await page.goto(url('index.html'));
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'main' }).click();
    await heading(page, 'Stream main');
    await page.getByRole('link', { name: '2026', exact: true }).click();
    await heading(page, 'Year 2026');
    await page.getByRole('link', { name: '2026-10', exact: true }).click();
    await heading(page, 'Month 2026-10');
    // Loose expectations of the month page: header, summary and memory list visible and of a sensible size.
    const shot = await page.screenshot({ path: path.join(shots, 'month.png') });
    expect(shot.length).toBeGreaterThan(20_000);
    const header = await page.locator('header.top').boundingBox();
    expect(header!.height).toBeGreaterThan(30);
    expect(header!.height).toBeLessThan(140);
    const summary = await page.locator('.summary').first().boundingBox();
    expect(summary!.width).toBeGreaterThan(600);
    expect(summary!.height).toBeGreaterThan(200);
    expect(await page.locator('ul.memories li').count()).toBe(53);

    await page.getByRole('link', { name: 'VAT rounding per rate, once per invoice' }).click();
    await heading(page, 'VAT rounding per rate, once per invoice');
    expect(await page.getByRole('navigation', { name: 'Breadcrumb' }).textContent()).toContain('2026-10');
    expect(await page.locator('h2', { hasText: 'Frontmatter' }).isVisible()).toBe(true);
    expect(await page.locator('li', { hasText: 'The sample vault' }).first().isVisible()).toBe(true); // the commit that added it
    await page.screenshot({ path: path.join(shots, 'memory.png') });
    // Back up through the breadcrumb, then with the browser's back button.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: '2026-10', exact: true }).click();
    await heading(page, 'Month 2026-10');
    await page.goBack();
    await heading(page, 'VAT rounding per rate, once per invoice');
    await page.getByRole('link', { name: /^day 2026-10-27$/ }).click();
    await heading(page, 'Day 2026-10-27');
  });

  it('finds a memory by search from the header and opens it', async () => {
    await page.goto(url('main/index.html'));
    await page.getByRole('searchbox', { name: 'Search' }).fill('csv injection');
    await page.getByRole('button', { name: 'Go' }).click();
    const hit = page.locator('#hits li a', { hasText: 'Fixing CSV injection (#425)' });
    await hit.waitFor();
    expect(await page.locator('#search-status').textContent()).toMatch(/^\d+ found for: csv injection/);
    expect(await page.locator('#hits mark').first().isVisible()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'search.png') });
    await hit.click();
    await heading(page, 'Fixing CSV injection (#425)');
  });

  it('renders a memory holding <script> and javascript: links inert', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url('main/memory/2026~11~2026-11-10-hostile-paste.html'));
    expect(await page.locator('h1').textContent()).toContain('<script>window.__pwned = "title"</script>');
    expect(await page.locator('.memory-text').textContent()).toContain('<script>window.__pwned = "body"</script>');
    // The markdown link lost its target (plain text now); the HTML link is shown as the text it is.
    await page.locator('.memory-text').getByText('open the dashboard', { exact: true }).click();
    await page.locator('.memory-text').getByText('this one', { exact: false }).click();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('[href^="javascript:" i], [onerror], img, iframe').count()).toBe(0);
    expect(page.url()).toContain('hostile-paste.html');
    // The same memory in search results: its title is text in the hit list too.
    await page.goto(`${url('search.html')}?q=pasted`);
    await page.locator('#hits li a').first().waitFor();
    expect(await page.locator('#hits li a').first().textContent()).toContain('<script>');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('shows nothing of a memory held back for a secret: no page, no title, no text; the review queue names its file', () => {
    const files = readdirSync(site, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(site, f)).isFile());
    const naming: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(site, file), 'utf8');
      expect(text, file).not.toContain(SECRET);
      expect(text, file).not.toContain('The CI token');
      if (text.includes('2026-11-11-ci-token')) naming.push(file);
    }
    // As in INDEX.md and index.json: the path and the kind of secret, for a person to redact it.
    expect(naming).toEqual(['review.html']);
  });

  it('draws the charts as inline SVG of a readable size', async () => {
    await page.goto(url('main/charts.html'));
    const charts = page.locator('svg.chart');
    expect(await charts.count()).toBeGreaterThanOrEqual(3);
    const box = await charts.first().boundingBox();
    expect(box!.width).toBeGreaterThan(600);
    expect(box!.height).toBeGreaterThan(150);
    expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(50);
    await page.screenshot({ path: path.join(shots, 'charts.png'), fullPage: true });
  });

  it('has no serious or critical accessibility violations on the main pages (axe-core)', async () => {
    // axe is injected as a script of its own: a context that ignores the site's CSP, the site's pages unchanged.
    const context = await browser.newContext({ bypassCSP: true });
    const axePage = await context.newPage();
    const axeSource = require.resolve('axe-core/axe.min.js');
    const pages = [
      'index.html',
      'main/index.html',
      'main/year-2026.html',
      'main/month-2026-10.html',
      'main/week-2026-W44.html',
      'main/day-2026-10-27.html',
      'main/memory/2026~10~2026-10-27-vat-rounding-decision.html',
      'main/package.html',
      'main/charts.html',
      'review.html',
      'facts.html',
      'vault-index.html',
      'search.html?q=invoice',
    ];
    const found: string[] = [];
    for (const relative of pages) {
      await axePage.goto(url(relative.split('?')[0]!) + (relative.includes('?') ? `?${relative.split('?')[1]}` : ''));
      await axePage.addScriptTag({ path: axeSource });
      // A string, run in the page: the test's own TypeScript has no DOM types.
      const violations = (await axePage.evaluate(
        `axe.run({ resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
      )) as { id: string; impact: string; nodes: number }[];
      for (const v of violations)
        if (v.impact === 'serious' || v.impact === 'critical') found.push(`${relative}: ${v.id} (${v.impact}, ${v.nodes} nodes)`);
    }
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);
});
