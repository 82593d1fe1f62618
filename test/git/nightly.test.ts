import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { createProject, readJsonFile, removeProject, writeFiles } from '../helpers/project.js';
import { addDays, commitAll, filesAt, gitConfig, gitStatus, initRepo, memoryNames, porcelain, shortMemories } from './helpers.js';

/**
 * Nightly builds, one per simulated day (in process, `now` the next
 * morning): 2–3 memories a day, each night's build commits. After every
 * night, every memory ever written is in HEAD — under memories/ or, once
 * past retention, under archive/ — and git is clean. Three weeks across a
 * month's end with retention windows of days run by default: January's
 * memories, dailies and weeklies move to archive/ over several nights, as
 * six weeks of week-long windows did, in half the builds. A year with the
 * default windows runs with MEMVAULT_SLOW=1 (`npm run test:slow`).
 */

async function simulateNights(options: {
  from: string;
  nights: number;
  config: string;
}): Promise<{ root: string; archivedFiles: number; commits: number }> {
  const root = createProject({ '.gitignore': '.memvault/\n' }, options.config);
  initRepo(root);
  commitAll(root, 'project setup');
  const written: string[] = [];
  let commits = 0;
  for (let n = 0; n < options.nights; n++) {
    const day = addDays(options.from, n);
    const files = shortMemories(day, n);
    writeFiles(root, files);
    written.push(...Object.keys(files));
    const report = await build({ root, now: new Date(`${addDays(day, 1)}T06:00:00Z`) });
    if (report.commit?.status === 'committed') commits++;
    // Nothing ever disappears from HEAD, and the build leaves git clean.
    const inHead = memoryNames(filesAt(root));
    expect(inHead, `night ${n} (${day})`).toEqual(memoryNames(written));
    expect(porcelain(root), `night ${n} (${day})`).toEqual([]);
  }
  const archivedFiles = filesAt(root).filter((file) => file.includes('/archive/')).length;
  return { root, archivedFiles, commits };
}

describe('nightly builds over weeks', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach(removeProject));

  it('three weeks with short retention: every memory stays in HEAD through the archive moves', async () => {
    const { root, archivedFiles, commits } = await simulateNights({
      from: '2026-01-19',
      nights: 21,
      config: gitConfig('calendar:\n  retention: { memories_days: 3, daily_days: 7, weekly_weeks: 1 }\n'),
    });
    roots.push(root);
    expect(commits).toBe(21);
    // January's monthly exists from 02-02 on: its memories, dailies and weeklies have moved.
    expect(archivedFiles).toBeGreaterThan(40);
    expect(filesAt(root)).toContain('vault/main/archive/2026-Q1/2026-01/2026-01-31-3-billing.md');
    expect(filesAt(root)).toContain('vault/main/archive/2026-Q1/daily/2026-01-19.md');
    expect(filesAt(root)).toContain('vault/main/archive/2026-Q1/weekly/2026-W04.md');
    expect(gitStatus(root, 'fsck', '--strict', '--no-dangling').code).toBe(0);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(manifest.coverage.days_covered).toBe(manifest.coverage.days_with_memories);
    // One more build of the last night changes nothing.
    const again = await build({ root, now: new Date('2026-02-09T06:00:00Z') });
    expect(again.written).toEqual([]);
    expect(again.archived).toEqual([]);
    expect(again.commit?.status).toBe('unchanged');
  });

  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'a year with the default retention: every memory stays in HEAD, old ones under archive/',
    async () => {
      const { root, archivedFiles, commits } = await simulateNights({ from: '2025-01-06', nights: 365, config: gitConfig() });
      roots.push(root);
      expect(commits).toBe(365);
      expect(archivedFiles).toBeGreaterThan(600);
      expect(gitStatus(root, 'fsck', '--strict', '--no-dangling').code).toBe(0);
      const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
      expect(manifest.coverage.days_covered).toBe(manifest.coverage.days_with_memories);
      expect(manifest.tokens).toBeLessThanOrEqual(8750);
    },
    900_000,
  );
});
