import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, memory, removeProject, runCli, runCliJson } from '../helpers/project.js';

/** `memvault context` through the real CLI on one fixture vault, built once. */

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

beforeAll(async () => {
  root = createProject(files);
  const built = await runCli(['build', '--no-commit', '--now', NOW], { cwd: root });
  expect(built.code, built.stderr).toBe(0);
}, 90_000);
afterAll(() => removeProject(root));

describe('memvault context', () => {
  it('stays within budget from 300 to 16,000 tokens, pinned always in, every item with a source that exists', async () => {
    for (const budget of [300, 600, 1000, 2000, 4000, 8000, 16000]) {
      const json = await context(['--budget', String(budget), '--query', 'auth sessions']);
      expect(json.token_count, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(json.token_count, `budget ${budget}`).toBeGreaterThan(Math.min(budget * 0.6, 1500));
      expect(json.items.map((i: any) => i.source)).toContain(PINNED);
      expect(json.context).toContain('Production deploys need two approvals');
      for (const item of json.items) {
        expect(['critical', 'relevant', 'background', 'index']).toContain(item.tier);
        expect(existsSync(path.join(root, 'vault', item.source)), item.source).toBe(true);
        if (item.tier !== 'index') expect(json.context).toContain(`source: \`${item.source}\``);
      }
      expect(Object.values(json.tiers).reduce((a: number, b: any) => a + b, 0)).toBeLessThanOrEqual(budget);
    }
  });

  it('puts decisions relevant to the signals, recent errors and their fix in critical, conventions in background', async () => {
    const json = await context(['--budget', '8000', '--query', 'auth sessions']);
    const critical = json.items.filter((i: any) => i.tier === 'critical').map((i: any) => i.source);
    // February's memories are archived by the build (30 days as of 2026-03-20); the pinned one is older but stays.
    expect(critical).toEqual([
      'main/memories/2026-01-05-pinned.md',
      'main/archive/2026-Q1/2026-02-10-auth-decision.md',
      'main/memories/2026-03-19-error.md',
      'main/memories/2026-03-19-fix.md',
    ]);
    expect(critical.some((p: string) => p.endsWith('2026-03-01-old-error.md'))).toBe(false);
    const background = json.items.filter((i: any) => i.tier === 'background').map((i: any) => i.source);
    expect(background[0]).toMatch(/2026-01-06-convention\.md$/);
    // The latest monthly is background unless the search already brought it in as relevant.
    expect(json.items.filter((i: any) => i.tier !== 'index' && i.source === 'main/monthly/2026-02.md')).toHaveLength(1);
    expect(json.context).toMatch(/Ask me about: .*\(2026-/);
  });

  it('searches the file, error and branch signals; an item too large for its tier comes as its daily summary', async () => {
    const json = await context(['--budget', '1200', '--file', 'src/importer/quasar.ts']);
    const relevant = json.items.filter((i: any) => i.tier === 'relevant');
    expect(relevant[0]).toMatchObject({ source: 'main/daily/2026-02-20.md', level: 'coarser' });
    const wide = await context(['--budget', '16000', '--file', 'src/importer/quasar.ts']);
    expect(wide.items.find((i: any) => i.tier === 'relevant')).toMatchObject({
      source: 'main/memories/2026-02-20-quasar.md',
      level: 'full',
    });
    const branch = await context(['--budget', '4000', '--branch', 'feature/quasar-importer']);
    expect(branch.items.filter((i: any) => i.tier === 'relevant').map((i: any) => i.source)).toContain(
      'main/memories/2026-02-20-quasar.md',
    );
  });

  it('rebalances: without signals relevant gives its room away; debugging widens critical', async () => {
    const none = await context(['--budget', '1000']);
    expect(none.allowance.relevant).toBe(0);
    expect(none.tiers.relevant).toBe(0);
    expect(none.allowance.background).toBeGreaterThan(1000 * 0.25);
    const asked = await context(['--budget', '1000', '--query', 'payments queue']);
    expect(asked.allowance.relevant).toBeGreaterThan(0);
    expect(asked.allowance.background).toBeLessThan(none.allowance.background);
    // At 400 tokens every tier wants more than its share: the shares decide.
    const feature = await context(['--budget', '400', '--query', 'payments queue', '--activity', 'feature']);
    const debugging = await context(['--budget', '400', '--query', 'payments queue', '--activity', 'debugging']);
    expect(debugging.allowance.critical).toBeGreaterThan(feature.allowance.critical);
    expect(debugging.token_count).toBeLessThanOrEqual(400);
  });

  it('prints the same text on a second run', async () => {
    const args = ['context', '--budget', '3000', '--query', 'checkout coupon', '--error', 'TypeError: cart total undefined', '--now', NOW];
    const first = await runCli(args, { cwd: root });
    const second = await runCli(args, { cwd: root });
    expect(first.code).toBe(0);
    expect(first.stdout.length).toBeGreaterThan(500);
    expect(second.stdout).toBe(first.stdout);
  });

  it('rejects an unknown activity', async () => {
    const result = await runCli(['context', '--activity', 'napping'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--activity `napping` is not one of debugging, feature, review, planning');
  });
});
