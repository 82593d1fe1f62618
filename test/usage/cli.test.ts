import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUsageFile, usageTotals } from '../../src/usage/codec.js';
import { git, gitConfig, initRepo } from '../git/helpers.js';
import { createProject, memory, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * Usage counts end to end: the CLI's search, context and zoom are counted, status ranks them, the build commits usage.json
 * (that a fold with nothing new writes nothing is tested in-process, usage.test.ts).
 */

const NOW = '2026-03-20T12:00:00Z';

describe('usage counts through the CLI', () => {
  let root: string;
  beforeAll(async () => {
    root = createProject(
      {
        '.gitignore': '.memvault/\n',
        'vault/main/memories/2026-03-16-pinned.md': memory({
          date: '2026-03-16T09:00:00Z',
          importance: 'pinned',
          body: 'Deploys need two approvals.',
        }),
        'vault/main/memories/2026-03-17-otter.md': memory({
          date: '2026-03-17T09:00:00Z',
          title: 'Otter',
          body: 'The otter service caches invoices.',
        }),
        'vault/main/memories/2026-03-18-heron.md': memory({
          date: '2026-03-18T09:00:00Z',
          title: 'Heron',
          body: 'The heron job exports ledgers.',
        }),
        'vault/main/memories/2026-03-19-lynx.md': memory({
          date: '2026-03-19T09:00:00Z',
          title: 'Lynx',
          body: 'Lynx was never asked about.',
        }),
      },
      gitConfig(),
    );
    initRepo(root);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'memories');
    const built = await runCli(['build', '--now', NOW], { cwd: root });
    expect(built.code, built.stderr).toBe(0);
  }, 60_000);
  afterAll(() => removeProject(root));

  it('counts what search, context and zoom served; status ranks it; the build commits usage.json', async () => {
    for (const args of [
      ['search', 'otter', '--now', NOW],
      ['search', 'otter invoices', '--tier', 'memories', '--now', NOW],
      ['context', '--query', 'heron ledgers', '--budget', '2000', '--now', NOW],
      ['zoom', '2026-03-17', '--now', NOW],
    ]) {
      const result = await runCli(args, { cwd: root });
      expect(result.code, result.stderr).toBe(0);
    }
    const { json: status } = await runCliJson(['status', '--json', '--now', NOW], { cwd: root });
    const usage = status.streams[0].usage;
    expect(usage.most_used[0]).toMatchObject({ id: '2026-03-17-otter', count: 3 });
    expect(usage.least_used.map((u: any) => u.id)).toContain('2026-03-19-lynx');
    expect(usage.least_used.find((u: any) => u.id === '2026-03-19-lynx').count).toBe(0);

    const { json: report } = await runCliJson(['build', '--now', NOW, '--json'], { cwd: root });
    expect(report.written).toContain('main/usage.json');
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').split('\n')).toContain('vault/main/usage.json');
    const counts = usageTotals(parseUsageFile(readText(root, 'vault/main/usage.json')));
    expect(counts.get('2026-03-17-otter')?.count).toBe(3);
    expect(counts.get('2026-03-18-heron')?.count).toBeGreaterThanOrEqual(1);
    expect(counts.get('2026-03-16-pinned')?.count).toBe(1);
    expect(counts.has('2026-03-19-lynx')).toBe(false);
  });
});
