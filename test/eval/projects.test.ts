import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertSample, type LocomoSample } from '../../scripts/eval/locomo.js';
import { buildOrReuse } from '../../scripts/eval/project.js';

/**
 * `npm run eval -- --per-question --projects DIR`: each conversation's build kept in DIR and reused by the next run,
 * unless its config changed. Two real CLI builds of the tiny fixture: tagged slow.
 */

const samples = JSON.parse(readFileSync(new URL('../fixtures/locomo-sample.json', import.meta.url), 'utf8')) as LocomoSample[];
const conversation = convertSample(samples[0]!, 1);

describe('eval --projects', () => {
  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'builds once into the folder, reuses the build, builds again for another config',
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-eval-projects-'));
      try {
        const folder = path.join(dir, 'conv-1');
        const first = await buildOrReuse(conversation, '', folder);
        expect(first.root).toBe(folder);
        expect(first.build.ms).toBeGreaterThan(0);
        expect(existsSync(path.join(folder, 'vault', conversation.stream))).toBe(true);
        const again = await buildOrReuse(conversation, '', folder);
        expect(again).toEqual({ root: folder, build: { ...first.build, ms: 0 } });
        const other = await buildOrReuse(conversation, 'upload:\n  max_tokens: 4000\n', folder);
        expect(other.build.ms).toBeGreaterThan(0);
        expect(readFileSync(path.join(folder, 'memory.config.yaml'), 'utf8')).toContain('max_tokens: 4000');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
