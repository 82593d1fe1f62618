import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { copyProject, createProject, memory, removeProject } from '../helpers/project.js';

const NOW = new Date('2026-03-12T06:00:00Z');
const MARKER = 'Follow-up: the zebra-crossing flag stays on for Acme';

const projects: string[] = [];
afterEach(() => {
  for (const root of projects.splice(0)) removeProject(root);
});

/** Three days of memories, built once as of NOW; then yesterday's memory gets a new line. */
async function editedYesterday(): Promise<string> {
  const root = createProject({
    'vault/main/memories/2026-03-09-a.md': memory({
      date: '2026-03-09T10:00:00Z',
      title: 'Auth',
      body: 'Replaced the session cookie with a JWT. Decided to keep refresh tokens server-side.',
    }),
    'vault/main/memories/2026-03-10-b.md': memory({
      date: '2026-03-10T10:00:00Z',
      title: 'Billing',
      body: 'Fixed the rounding bug in invoices (#412).',
    }),
    'vault/main/memories/2026-03-11-c.md': memory({
      date: '2026-03-11T15:00:00Z',
      title: 'Export',
      body: 'The CSV export streams rows now.',
    }),
  });
  projects.push(root);
  await build({ root, now: NOW, commit: false });
  appendFileSync(path.join(root, 'vault/main/memories/2026-03-11-c.md'), `\n${MARKER}.\n`);
  return root;
}

/** Builds and reports whether UPLOAD_PACKAGE.md already held the edit when the daily tier started. */
async function packageWhenDailiesStart(root: string, packageFirst: boolean): Promise<{ early: boolean; written: string[] }> {
  const packagePath = path.join(root, 'vault/main/UPLOAD_PACKAGE.md');
  let early: boolean | undefined;
  const report = await build({
    root,
    now: NOW,
    commit: false,
    packageFirst,
    onProgress: (event) => {
      if (event.tier === 'daily' && event.done === 0) early = readFileSync(packagePath, 'utf8').includes(MARKER);
    },
  });
  expect(readFileSync(packagePath, 'utf8')).toContain(MARKER);
  return { early: early ?? false, written: report.written };
}

describe('packageFirst (watch mode)', () => {
  it('writes the package with an edit to a full-detail day before that day is summarized again', async () => {
    const root = await editedYesterday();
    const other = copyProject(root);
    projects.push(other);

    const first = await packageWhenDailiesStart(root, true);
    expect(first.early).toBe(true);
    expect(first.written).toContain('main/daily/2026-03-11.md');
    expect(first.written.filter((p) => p === 'main/UPLOAD_PACKAGE.md')).toHaveLength(1);

    const usual = await packageWhenDailiesStart(other, false);
    expect(usual.early).toBe(false);
    // Same outputs either way.
    for (const file of ['vault/main/UPLOAD_PACKAGE.md', 'vault/main/daily/2026-03-11.md', 'vault/index.json']) {
      expect(readFileSync(path.join(root, file), 'utf8'), file).toBe(readFileSync(path.join(other, file), 'utf8'));
    }
  });
});
