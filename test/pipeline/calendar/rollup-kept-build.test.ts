import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SUMMARIZED_SOURCES } from '../../../src/pipeline/calendar/rollup-sources.js';
import { createProject, memory, removeProject, runCliJson, writeFiles } from '../../helpers/project.js';

/**
 * The first build of a very busy day makes its daily on the build threads and keeps it (rollup-kept.ts,
 * `keepSampled`); a memory added at the end of the day leaves the sample as it was, and the next build writes the
 * daily without summarizing (no `summarize.*` stage), the same bytes as a cold build of the same memories.
 */

const DAY = '2026-03-09';
const NOW = '2026-03-10T06:00:00Z';

function step(n: number): Record<string, string> {
  const second = n * 40;
  const time = [Math.floor(second / 3600), Math.floor(second / 60) % 60, second % 60].map((x) => String(x).padStart(2, '0')).join(':');
  return {
    [`vault/main/memories/2026/03/${DAY}-step-${String(n).padStart(5, '0')}.md`]: memory({
      date: `${DAY}T${time}Z`,
      title: `Step ${n}`,
      body: `Moved batch ${n} to the queue worker and closed #${700 + (n % 300)}.`,
    }),
  };
}

const build = async (root: string) => (await runCliJson(['build', '--now', NOW, '--json', '--no-commit'], { cwd: root })).json;

describe('a very busy day built once more', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) removeProject(root);
  });

  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'uses the daily the first build made on its threads',
    async () => {
      const count = MAX_SUMMARIZED_SOURCES + 1; // a stride of 2; the next memory (index 2,001) is off it
      const files: Record<string, string> = {};
      for (let n = 0; n < count; n++) Object.assign(files, step(n));
      const root = createProject(files);
      roots.push(root);
      const first = await build(root);
      expect(first.stats.stages['summarize.select']).toBeGreaterThan(0);
      writeFiles(root, step(count));
      const more = await build(root);
      expect(more.stats.read).toBe(1);
      expect(more.stats.stages['summarize.select']).toBeUndefined();
      const daily = readFileSync(path.join(root, `vault/main/daily/${DAY}.md`), 'utf8');
      expect(daily).toContain(`memories: ${count + 1}`);

      const cold = createProject({ ...files, ...step(count) });
      roots.push(cold);
      await build(cold);
      expect(readFileSync(path.join(cold, `vault/main/daily/${DAY}.md`), 'utf8')).toBe(daily);
    },
    600_000,
  );
});
