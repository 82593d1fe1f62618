import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bands } from '../../../src/pipeline/package/bands.js';
import { build } from '../../../src/pipeline/build.js';
import type { Item, PackageInput } from '../../../src/pipeline/package/model.js';
import { renderPackage } from '../../../src/pipeline/package/render.js';
import type { Memory } from '../../../src/vault/model.js';
import { writeMemoryFile } from '../../../src/vault/memory-file.js';
import { createProject, removeProject } from '../../helpers/project.js';

/**
 * Text faults of a small vault's package (issue 30, item 5): the pinned
 * memory shown twice (in the critical section and in its day's merged daily),
 * `Memories in full detail` twice, and a zoom example (`2026-W07`) that names
 * a week the vault has nothing in.
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeProject(root);
});

function memory(date: string, body: string, extra: { title?: string; importance?: 'pinned' } = {}): string {
  return writeMemoryFile({ date, body, ...extra });
}

describe('a small vault', () => {
  it('shows its pinned memory once and a zoom example from its own dates', async () => {
    const root = createProject({
      'vault/main/memories/2026-03-02-rule.md': memory(
        '2026-03-02T09:00:00Z',
        'Decided to use Postgres 16 for the ledger. We always deploy on Tuesdays.',
        { title: 'Postgres 16 for the ledger', importance: 'pinned' },
      ),
      'vault/main/memories/2026-03-02-farah.md': memory(
        '2026-03-02T14:00:00Z',
        'Met Farah about invoicing. She wants CSV export by April.',
      ),
      'vault/main/memories/2026-03-04-flake.md': memory('2026-03-04T10:00:00Z', 'Fixed the flaky totals test by summing in cents.'),
      'vault/main/memories/2026-03-05-review.md': memory('2026-03-05T10:00:00Z', 'Reviewed PR #12 for the export.'),
    });
    roots.push(root);
    await build({ root, now: new Date('2026-03-05T18:00:00Z'), commit: false });
    const text = readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.md'), 'utf8');
    expect(text.match(/Postgres 16 for the ledger/g)).toHaveLength(2); // the critical section's heading and its text
    expect(text.match(/We always deploy on Tuesdays/g)).toHaveLength(1);
    expect(text).toContain('Met Farah about invoicing');
    expect(text).toContain('`memvault zoom 2026-W10`');
    expect(text).not.toContain('2026-W07');
  });
});

describe('memories in full detail between summaries', () => {
  const bands: Bands = {
    today: '2026-10-24',
    rawFrom: '2026-10-23',
    dailyFrom: '2026-10-17',
    weeklyFrom: '2026-09-26',
    monthlyFrom: '2026-08-01',
    longtermThrough: '2026-07',
  };
  const fakeMemory = (day: string): Memory =>
    ({ id: day, day, minute: 600, date: `${day}T10:00:00Z`, tags: [], kind: 'note', title: `On ${day}` }) as unknown as Memory;
  const memoryItem = (day: string): Item => ({
    type: 'memory',
    tier: 'raw',
    id: day,
    path: `memories/${day}.md`,
    start: day,
    end: day,
    status: 'included',
    memory: fakeMemory(day),
    render: () => `### ${day}\n\nWhat happened on ${day}.`,
  });
  const dailyItem = (day: string): Item => ({
    type: 'summary',
    tier: 'daily',
    id: day,
    path: `daily/${day}.md`,
    start: day,
    end: day,
    status: 'included',
    render: () => `## Day ${day}\n\n- A summary of ${day}.`,
  });
  const input = {
    stream: 'main',
    vaultLabel: 'vault',
    bands,
    memories: [fakeMemory('2026-10-10'), fakeMemory('2026-10-23')],
  } as unknown as PackageInput;

  it('gives each run of memories its own heading, named by its days', () => {
    const history = [memoryItem('2026-10-10'), dailyItem('2026-10-20'), memoryItem('2026-10-22'), memoryItem('2026-10-23')];
    const text = renderPackage(input, '2026-10-10', [], history);
    const headings = text.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual([
      '## Memories in full detail, 2026-10-10',
      '## Day 2026-10-20',
      '## Memories in full detail, 2026-10-22 to 2026-10-23',
    ]);
    expect(text).toContain('`memvault zoom 2026-W43`');
  });

  it('keeps the plain heading when there is one run', () => {
    const text = renderPackage(input, '2026-10-10', [], [dailyItem('2026-10-20'), memoryItem('2026-10-23')]);
    expect(text.split('\n').filter((line) => line.startsWith('## '))).toEqual(['## Day 2026-10-20', '## Memories in full detail']);
  });
});
