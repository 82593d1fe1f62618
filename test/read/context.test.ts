import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleContext } from '../../src/read/context/assemble.js';
import type { Activity } from '../../src/read/context/budget.js';
import { type ContextSearch, openContextSearch } from '../../src/read/context/warm.js';
import { openVault, type ReadVault } from '../../src/read/vault.js';
import { createProject, memory, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * `memvault context` on one fixture vault, built once by the real CLI. The CLI runs once per flag and output form;
 * the detail (tiers, excerpts, rebalancing) is checked on the same assembly in-process (the warm API), which one test
 * shows prints exactly what the CLI prints.
 */

const NOW = '2026-03-20T12:00:00Z';
const filler = (topic: string, n: number): string =>
  `${topic} notes, part ${n}. ${'The team reviewed queue depth, retries and dashboards again. '.repeat(6)}`;
const files: Record<string, string> = {
  'vault/main/memories/2026-01-05-pinned.md': memory({
    date: '2026-01-05T09:00:00Z',
    title: 'Deploy rule',
    importance: 'pinned',
    body: 'Production deploys need two approvals, hotfixes too.',
  }),
  'vault/main/memories/2026-01-06-convention.md': memory({
    date: '2026-01-06T09:00:00Z',
    title: 'Naming',
    kind: 'convention',
    body: 'Branch names are kind/topic, e.g. fix/auth-expiry.',
  }),
  'vault/main/memories/2026-02-10-auth-decision.md': memory({
    date: '2026-02-10T10:00:00Z',
    title: 'ADR-012 sessions',
    kind: 'decision',
    tags: ['auth'],
    body: 'Decision: server sessions in Postgres replace JWT; 30-day expiry.',
  }),
  'vault/main/memories/2026-02-11-billing-decision.md': memory({
    date: '2026-02-11T10:00:00Z',
    title: 'ADR-013 invoices',
    kind: 'decision',
    tags: ['billing'],
    body: 'Decision: invoices are immutable once sent.',
  }),
  'vault/main/memories/2026-03-19-error.md': memory({
    date: '2026-03-19T15:00:00Z',
    title: 'Checkout crash',
    kind: 'error',
    body: 'TypeError in checkout: cart total undefined after coupon removal.',
  }),
  'vault/main/memories/2026-03-19-fix.md': memory({
    date: '2026-03-19T17:00:00Z',
    title: 'Checkout fix',
    body: 'Fixed the checkout crash: coupon removal now recomputes the cart total.',
  }),
  'vault/main/memories/2026-03-01-old-error.md': memory({
    date: '2026-03-01T15:00:00Z',
    title: 'Old error',
    kind: 'error',
    body: 'Mailer timeout on invoice send.',
  }),
  'vault/main/memories/2026-02-20-quasar.md': memory({
    date: '2026-02-20T10:00:00Z',
    title: 'Quasar importer',
    tags: ['importer'],
    body: `The quasar importer reads supplier feeds.\n\n${'Each supplier feed row is mapped, validated and stored in staging tables. '.repeat(110)}`,
  }),
};
files['vault/main/memories/2026-02-21-zephyr.md'] = memory({
  date: '2026-02-21T11:00:00Z',
  title: 'Zephyr rollout',
  body: 'The new gateway goes out region by region. '.repeat(160),
});
files['vault/main/memories/2026-03-18-chat.md'] = memory({
  date: '2026-03-18T09:00:00Z',
  title: 'Standup',
  body: [
    'Ana: Morning all.',
    'Ben: I looked at the ledger export yesterday.',
    'Ana: Anything odd?',
    'Ben: The ledger export drops rows with a null currency.',
    'Ana: Then we patch the mapper.',
    ...Array.from({ length: 30 }, (_, i) => `Cy: Unrelated point ${i + 1} about lunch, parking and the coffee machine.`),
    'Ana: And the ledger export runs again tonight.',
    'Ben: Noted.',
  ].join('\n\n'),
});
for (let i = 1; i <= 24; i++) {
  const day = String(i).padStart(2, '0');
  files[`vault/main/memories/2026-02-${day}-work.md`] = memory({
    date: `2026-02-${day}T08:00:00Z`,
    title: `Work ${i}`,
    tags: ['ops'],
    body: filler(i % 2 ? 'Payments' : 'Auth sessions', i),
  });
}

let root: string;
const context = (args: string[]) => runCliJson(['context', ...args, '--now', NOW, '--json'], { cwd: root }).then((r) => r.json);
const PINNED = 'main/memories/2026-01-05-pinned.md';

// The same assembly in-process (the warm API the MCP server calls; one test checks it prints what the CLI prints): detail checks without a process each.
let vault: ReadVault;
let search: ContextSearch;
const warm = (request: { budget: number; query?: string; file?: string; branch?: string; activity?: Activity }) => {
  const { budget, activity, ...signals } = request;
  return assembleContext(vault, search, { budget, now: new Date(NOW), signals, ...(activity ? { activity } : {}) });
};

beforeAll(async () => {
  root = createProject(files);
  const built = await runCli(['build', '--no-commit', '--now', NOW], { cwd: root });
  expect(built.code, built.stderr).toBe(0);
  vault = await openVault(root);
  search = openContextSearch(vault);
}, 180_000);
afterAll(() => removeProject(root));

describe('memvault context', () => {
  it('stays within budget from 300 to 16,000 tokens, pinned always in, every item with a source that exists', async () => {
    const cli = async (budget: number) => context(['--budget', String(budget), '--query', 'auth sessions']);
    const inProcess = async (budget: number) => warm({ budget, query: 'auth sessions' }) as any;
    for (const [budget, run] of [
      [300, cli],
      [600, inProcess],
      [1000, inProcess],
      [2000, inProcess],
      [4000, inProcess],
      [8000, inProcess],
      [16000, cli],
    ] as const) {
      const json = await run(budget);
      expect(json.token_count, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(json.token_count, `budget ${budget}`).toBeGreaterThan(Math.min(budget * 0.6, 1500));
      expect(json.items.map((i: any) => i.source)).toContain(PINNED);
      expect(json.context).toContain('Production deploys need two approvals');
      expect(Object.keys(json.tiers).sort(), `budget ${budget}`).toEqual(['background', 'critical', 'index', 'relevant']);
      for (const item of json.items) {
        expect(item).toMatchObject({ tier: expect.any(String), source: expect.any(String), tokens: expect.any(Number) });
        expect(item.tokens, item.source).toBeGreaterThan(0);
        expect(['critical', 'relevant', 'background', 'index']).toContain(item.tier);
        expect(existsSync(path.join(root, 'vault', item.source)), item.source).toBe(true);
        if (item.tier !== 'index')
          expect(json.context).toMatch(new RegExp(`\`${item.source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(:\\d+)?\``));
      }
      expect(Object.values(json.tiers).reduce((a: number, b: any) => a + b, 0)).toBeLessThanOrEqual(budget);
    }
  }, 120_000);

  it('puts decisions relevant to the signals, recent errors and their fix in critical, conventions in background', async () => {
    const json = warm({ budget: 8000, query: 'auth sessions' }) as any;
    const critical = json.items.filter((i: any) => i.tier === 'critical').map((i: any) => i.source);
    // February's memories are archived by the build (30 days as of 2026-03-20); the pinned one is older but stays.
    expect(critical).toEqual([
      'main/memories/2026-01-05-pinned.md',
      'main/archive/2026-Q1/2026-02-10-auth-decision.md',
      'main/memories/2026-03-19-error.md',
      'main/memories/2026-03-19-fix.md',
    ]);
    expect(critical.some((p: string) => p.endsWith('2026-03-01-old-error.md'))).toBe(false);
    // Conventions are always offered: background, or relevant when the search found them first.
    expect(json.items.filter((i: any) => i.source.endsWith('2026-01-06-convention.md'))).toHaveLength(1);
    const overview = warm({ budget: 8000 }) as any;
    const background = overview.items.filter((i: any) => i.tier === 'background').map((i: any) => i.source);
    expect(background[0]).toMatch(/2026-01-06-convention\.md$/);
    // The latest monthly is background unless the search already brought it in as relevant.
    expect(json.items.filter((i: any) => i.tier !== 'index' && i.source === 'main/monthly/2026-02.md')).toHaveLength(1);
    expect(json.context).toMatch(/Ask me about: .*\(2026-/);
  });

  it('quotes the passages of a memory about the signal, the whole memory when there is room, a daily for a title-only hit', async () => {
    const json = await context(['--budget', '1200', '--file', 'src/importer/quasar.ts']);
    const relevant = json.items.filter((i: any) => i.tier === 'relevant');
    expect(relevant[0]).toMatchObject({ source: 'main/memories/2026-02-20-quasar.md', level: 'excerpt' });
    expect(json.context).toContain('The quasar importer reads supplier feeds.');
    // The excerpt starts on the body's first line: line 1 of the body, after the frontmatter, as `search` counts lines.
    const line = Number(/Quasar importer \(note; importer\) `main\/memories\/2026-02-20-quasar\.md:(\d+)`\n/.exec(json.context)?.[1]);
    const file = readFileSync(path.join(root, 'vault/main/memories/2026-02-20-quasar.md'), 'utf8').split('\n');
    expect(file[line - 1]).toContain('The quasar importer reads supplier feeds.');
    const wide = warm({ budget: 16000, file: 'src/importer/quasar.ts' });
    expect(wide.items.find((i) => i.tier === 'relevant')).toMatchObject({
      source: 'main/memories/2026-02-20-quasar.md',
      level: 'full',
    });
    // Matched by its title only: no passage to quote, and the memory is too big, so its day's summary comes.
    const title = warm({ budget: 1200, query: 'zephyr' });
    expect(title.items.find((i) => i.tier === 'relevant')).toMatchObject({ source: 'main/daily/2026-02-21.md', level: 'coarser' });
    const branch = warm({ budget: 4000, branch: 'feature/quasar-importer' });
    expect(branch.items.filter((i) => i.tier === 'relevant').map((i) => i.source)).toContain('main/memories/2026-02-20-quasar.md');
  }, 120_000);

  it('puts excerpts of one memory under one heading, with neighbours, in order, and resolves relative dates', async () => {
    const json = warm({ budget: 1000, query: 'ledger export' }) as any;
    const excerpts = json.items.filter((i: any) => i.source === 'main/memories/2026-03-18-chat.md');
    expect(excerpts.length).toBeGreaterThanOrEqual(2);
    for (const item of excerpts) expect(item.level).toBe('excerpt');
    expect(json.context.match(/`main\/memories\/2026-03-18-chat\.md:\d+`/g)).toHaveLength(1);
    // `path:line` points at the first quoted block in the file (frontmatter counted).
    const line = Number(/`main\/memories\/2026-03-18-chat\.md:(\d+)`/.exec(json.context)?.[1]);
    const first = /`main\/memories\/2026-03-18-chat\.md:\d+`\n\n(?:…\n\n)?(.{12})/.exec(json.context)![1]!;
    const chat = readFileSync(path.join(root, 'vault/main/memories/2026-03-18-chat.md'), 'utf8').split('\n');
    expect(chat[line - 1]!.startsWith(first)).toBe(true);
    // A later passage after left-out blocks opens with its own line in the same file.
    const section = json.context.slice(json.context.indexOf('`main/memories/2026-03-18-chat.md:')).split('\n### ')[0]!;
    const labels = [...section.matchAll(/^`:(\d+)` (.{12})/gm)];
    expect(labels.length).toBeGreaterThanOrEqual(1);
    for (const [, at, text] of labels) expect(chat[Number(at) - 1]!.startsWith(text!)).toBe(true);
    const at = (text: string) => json.context.indexOf(text);
    // The hits and the turns around them, in the memory's order; the lunch chatter between them is left out.
    expect(at('Ben: I looked at the ledger export yesterday (17 March 2026).')).toBeGreaterThan(0);
    expect(at('Ben: The ledger export drops rows with a null currency.')).toBeGreaterThan(at('Ben: I looked at the ledger export'));
    expect(at('Ana: Then we patch the mapper.')).toBeGreaterThan(at('drops rows with a null currency'));
    expect(at('Ana: And the ledger export runs again tonight.')).toBeGreaterThan(at('Ana: Then we patch the mapper.'));
    expect(json.context).not.toContain('Unrelated point 15');
    expect(json.context).toContain('### Wednesday 18 March 2026 09:00 Standup (note) `main/memories/');
  });

  it('with signals, a background summary earns room only when the search found it', async () => {
    const summaries = (json: any) =>
      json.items.filter((i: any) => i.tier === 'background' && /\/(monthly|longterm)/.test(i.source)).map((i: any) => i.source);
    expect(summaries(warm({ budget: 2000 }))).not.toEqual([]);
    // Nothing in the summaries is about the ledger export (a chat memory): its context spends no room on them.
    const asked = warm({ budget: 2000, query: 'ledger export null currency' });
    expect(summaries(asked)).toEqual([]);
    expect(asked.allowance.background).toBeLessThan(warm({ budget: 2000 }).allowance.background);
  });

  it('rebalances: without signals relevant gives its room away; debugging widens critical', async () => {
    const none = warm({ budget: 1000 });
    expect(none.allowance.relevant).toBe(0);
    expect(none.tiers.relevant).toBe(0);
    expect(none.allowance.background).toBeGreaterThan(1000 * 0.25);
    const asked = warm({ budget: 1000, query: 'payments queue' });
    expect(asked.allowance.relevant).toBeGreaterThan(0);
    expect(asked.allowance.background).toBeLessThan(none.allowance.background);
    // At 400 tokens every tier wants more than its share: the shares decide.
    const feature = warm({ budget: 400, query: 'payments queue', activity: 'feature' });
    const debugging = await context(['--budget', '400', '--query', 'payments queue', '--activity', 'debugging']);
    expect(debugging.allowance.critical).toBeGreaterThan(feature.allowance.critical);
    expect(debugging.token_count).toBeLessThanOrEqual(400);
  }, 120_000);

  it('prints the same text on a second run', async () => {
    const args = ['context', '--budget', '3000', '--query', 'checkout coupon', '--error', 'TypeError: cart total undefined', '--now', NOW];
    const first = await runCli(args, { cwd: root });
    const second = await runCli(args, { cwd: root });
    expect(first.code).toBe(0);
    expect(first.stdout.length).toBeGreaterThan(500);
    expect(second.stdout).toBe(first.stdout);
  }, 120_000);

  it('warm API: in-process assembly matches the CLI, is the same on every call, and takes critical items from a contradictions source', async () => {
    const request = { budget: 2500, now: new Date(NOW), signals: { query: 'ledger export', error: 'TypeError: cart total undefined' } };
    const first = assembleContext(vault, search, request);
    expect(assembleContext(vault, search, request)).toEqual(first);
    const cli = await context(['--budget', '2500', '--query', 'ledger export', '--error', 'TypeError: cart total undefined']);
    expect(first.context).toBe(cli.context);
    const withContradiction = assembleContext(vault, search, {
      ...request,
      contradictions: () => [
        { source: 'main/archive/2026-Q1/2026-02-11-billing-decision.md', label: 'Contradiction: invoice.mutable', text: 'yes vs no' },
      ],
    });
    expect(
      withContradiction.items
        .filter((i) => i.tier === 'critical')
        .map((i) => i.source)
        .slice(0, 2),
    ).toEqual(['main/archive/2026-Q1/2026-02-11-billing-decision.md', PINNED]); // contradictions first
    expect(withContradiction.context).toContain('### Contradiction: invoice.mutable');
  });

  it('the package and INDEX.md name only commands the CLI has, the read commands with an example each', async () => {
    const help = await runCli(['--help'], { cwd: root });
    const commands = new Set(
      help.stdout
        .slice(help.stdout.indexOf('Commands:'))
        .split('\n')
        .map((line) => /^ {2}([a-z][a-z-]*)\b/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined),
    );
    expect(commands).toContain('build');
    for (const file of ['vault/main/UPLOAD_PACKAGE.md', 'vault/INDEX.md']) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const named = [...text.matchAll(/`memvault ([a-z][a-z-]*)/g)].map((m) => m[1]!);
      for (const name of named) expect(commands, `${file} names \`memvault ${name}\``).toContain(name);
      for (const read of ['zoom', 'search', 'context']) expect(text, file).toMatch(new RegExp(`\`memvault ${read} [^\`]+\``));
    }
  });

  it('a forgotten memory is not pushed without a query, and a query that needs it still finds it', () => {
    // A year on, nothing used the convention (normal importance) for over 90 days: it is forgotten.
    const later = { budget: 4000, now: new Date('2027-03-20T12:00:00Z') };
    const isConvention = (source: string) => source.endsWith('2026-01-06-convention.md');
    const sources = (signals: { query?: string }) => assembleContext(vault, search, { ...later, signals }).items.map((i) => i.source);
    expect(warm({ budget: 4000 }).items.some((i) => isConvention(i.source))).toBe(true); // pushed while it is in use
    expect(sources({}).some(isConvention)).toBe(false);
    expect(sources({ query: 'branch names kind topic' }).some(isConvention)).toBe(true);
  });

  it('rejects an unknown activity', async () => {
    const result = await runCli(['context', '--activity', 'napping'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('activity must be one of debugging, feature, review, planning (got "napping")');
  });
});
