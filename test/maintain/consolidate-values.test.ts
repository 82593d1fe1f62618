import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, memory, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * `memvault consolidate --apply` (the real CLI in a child process) never marks
 * a memory `duplicate_of` another that states other values: a later decision
 * that changes a number, a date, a version, an identifier or a code span is
 * a new decision, not a copy. Copies that repeat the values are still marked.
 */

const decision = (size: string, extra = '') =>
  `We decided to set the database connection pool size to ${size} for the billing service after the load test ` +
  `showed the workers waiting on connections during the nightly export. Ana reviews the setting again after the release.${extra}`;

const cases: Record<string, [string, string]> = {
  // The finding: Jaccard 1.0 in words, only the number differs.
  number: [decision('20'), decision('80')],
  date: [
    'The billing export moves to the new warehouse on 2026-04-01 and the old cron job is switched off that morning by the ops team.',
    'The billing export moves to the new warehouse on 2026-05-01 and the old cron job is switched off that morning by the ops team.',
  ],
  version: [
    'Upgrade the payment gateway client to v2.3.1 before the release freeze so the retry fix reaches production this quarter.',
    'Upgrade the payment gateway client to v2.4.0 before the release freeze so the retry fix reaches production this quarter.',
  ],
  identifier: [
    'The retry limit for the webhook worker now lives in `MAX_RETRIES` of the worker settings file, reviewed by the payments team.',
    'The retry limit for the webhook worker now lives in `max_attempts` of the worker settings file, reviewed by the payments team.',
  ],
};

describe('memvault consolidate --apply and values', () => {
  let root: string;
  const files: Record<string, string> = {};
  for (const [name, [older, newer]] of Object.entries(cases)) {
    files[`vault/main/memories/2026-03-02-${name}.md`] = memory({ date: '2026-03-02T09:00:00Z', kind: 'decision', body: older });
    files[`vault/main/memories/2026-03-09-${name}-changed.md`] = memory({ date: '2026-03-09T09:00:00Z', kind: 'decision', body: newer });
  }
  // A true copy: the same decision pasted again a day later with a sentence added, the same value.
  files['vault/main/memories/2026-03-10-pool-again.md'] = memory({
    date: '2026-03-10T09:00:00Z',
    kind: 'decision',
    body: decision('80', ' Pasted again from the meeting notes.'),
  });
  beforeAll(() => {
    root = createProject(files);
  });
  afterAll(() => removeProject(root));

  it('marks only the copy that repeats the value; decisions with other values stay unmarked', async () => {
    const { json } = await runCliJson(['consolidate', '--apply', '--json'], { cwd: root });
    const groups = json.streams[0].groups as { keep: { id: string }; duplicates: { id: string }[] }[];
    expect(groups.map((g) => [g.keep.id, g.duplicates.map((d) => d.id)])).toEqual([
      ['2026-03-09-number-changed', ['2026-03-10-pool-again']],
    ]);
    for (const name of Object.keys(cases)) {
      expect(readText(root, `vault/main/memories/2026-03-02-${name}.md`)).not.toContain('duplicate_of');
      expect(readText(root, `vault/main/memories/2026-03-09-${name}-changed.md`)).not.toContain('duplicate_of');
    }
    expect(readText(root, 'vault/main/memories/2026-03-10-pool-again.md')).toContain('duplicate_of: 2026-03-09-number-changed\n');
  });
});

describe('memvault consolidate and a mark that hides a value', () => {
  let root: string;
  beforeAll(() => {
    // A vault consolidated by a version that compared words only: the newer decision marked a copy of the older one.
    const newer = memory({ date: '2026-03-09T09:00:00Z', kind: 'decision', body: decision('80') }).replace(
      'kind: decision\n',
      'kind: decision\nduplicate_of: 2026-03-02-pool\n',
    );
    root = createProject({
      'vault/main/memories/2026-03-02-pool.md': memory({ date: '2026-03-02T09:00:00Z', kind: 'decision', body: decision('20') }),
      'vault/main/memories/2026-03-09-pool.md': newer,
      // A right mark: the same value.
      'vault/main/memories/2026-03-10-pool.md': memory({
        date: '2026-03-10T09:00:00Z',
        kind: 'decision',
        body: decision('20', ' Again.'),
      }).replace('kind: decision\n', 'kind: decision\nduplicate_of: 2026-03-02-pool\n'),
    });
  });
  afterAll(() => removeProject(root));

  it('names the marked memory and the value only it states, in JSON and text', async () => {
    const { json } = await runCliJson(['consolidate', '--json'], { cwd: root });
    expect(json.streams[0]).toMatchObject({
      groups: [],
      already_marked: 2,
      hiding_values: [{ id: '2026-03-09-pool', path: 'main/memories/2026-03-09-pool.md', duplicate_of: '2026-03-02-pool', values: ['80'] }],
    });
    const text = await runCli(['consolidate'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'main/memories/2026-03-09-pool.md is marked duplicate_of 2026-03-02-pool but states 80 that it does not: summaries leave it out',
    );
    expect(text.stdout).not.toContain('2026-03-10-pool.md is marked');
  });
});
