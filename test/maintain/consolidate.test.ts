import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, memory, readText, removeProject, runCliJson } from '../helpers/project.js';

const note =
  'The scheduler failed during the nightly job because the retry queue filled up. We raised the queue limit to 5000, ' +
  'added an alert on queue depth, and moved the heavy export to Sunday. Ana owns the follow-up on the export timings.';

describe('memvault consolidate', () => {
  let root: string;
  const files = {
    'vault/main/memories/2026-03-02-scheduler.md': memory({ date: '2026-03-02T09:00:00Z', title: 'Scheduler', body: note }),
    // The same note pasted again two days later, with a sentence added.
    'vault/main/memories/2026-03-04-scheduler-again.md': memory({
      date: '2026-03-04T09:00:00Z',
      body: `${note} Next check on Friday.`,
    }),
    'vault/main/memories/2026-03-03-billing.md': memory({
      date: '2026-03-03T09:00:00Z',
      body: 'Billing moved to Stripe webhooks; the old cron is gone.',
    }),
  };
  beforeAll(() => {
    root = createProject(files);
  });
  afterAll(() => removeProject(root));

  it('reports the copy, marks it duplicate_of on --apply, keeps every file, and does not report it again', async () => {
    const report = await runCliJson(['consolidate', '--json'], { cwd: root });
    expect(report.json.streams[0].groups).toEqual([
      {
        keep: { id: '2026-03-02-scheduler', path: 'main/memories/2026-03-02-scheduler.md' },
        duplicates: [
          { id: '2026-03-04-scheduler-again', path: 'main/memories/2026-03-04-scheduler-again.md', similarity: expect.any(Number) },
        ],
      },
    ]);
    expect(readText(root, 'vault/main/memories/2026-03-04-scheduler-again.md')).toBe(
      files['vault/main/memories/2026-03-04-scheduler-again.md'],
    );

    await runCliJson(['consolidate', '--apply', '--json'], { cwd: root });
    const marked = readText(root, 'vault/main/memories/2026-03-04-scheduler-again.md');
    expect(marked).toContain('duplicate_of: 2026-03-02-scheduler\n');
    expect(marked.endsWith(files['vault/main/memories/2026-03-04-scheduler-again.md'].split('---\n').pop()!)).toBe(true);
    expect(readText(root, 'vault/main/memories/2026-03-02-scheduler.md')).toBe(files['vault/main/memories/2026-03-02-scheduler.md']);

    const again = await runCliJson(['consolidate', '--json'], { cwd: root });
    expect(again.json.streams[0]).toMatchObject({ groups: [], already_marked: 1 });
  });
});
