import { rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLongTranscript } from '../../scripts/fixtures/long-transcript.js';
import { ingest as ingestHere } from '../../src/ingest/ingest.js';
import { copyProject, createProject, listFiles, removeProject } from '../helpers/project.js';
import { ingestedParts, spawnCli } from './spawn-cli.js';

/**
 * Ingest is a transaction: a transcript counts as ingested only once every
 * memory it yields is written. A run killed between two memories (Ctrl-C, a
 * hook Claude Code stops after 60 s) leaves the rest to the next run, which
 * writes only what is missing. Kills come from the test-only crash point
 * `MEMVAULT_TEST_CRASH_AFTER=ingest-write:<n>` (SIGKILL after the n-th memory
 * or transcript written) and, in the slow loop, from SIGKILL after a random
 * delay. The default run kills at the first, a middle and the last write (the
 * last: every memory written, the completion marker not yet); the 24-kill loop
 * is slow (MEMVAULT_SLOW=1).
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const DAYS = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06'];
const roots: string[] = [];
let base: string;

beforeAll(() => {
  base = createProject({});
  roots.push(base);
  // Five days of one session: five memories and the full transcript, six writes.
  writeLongTranscript(path.join(base, 'session.jsonl'), { bytes: 60_000, days: 5, resultBytes: 300 });
});
afterAll(() => {
  for (const root of roots) removeProject(root);
});

function project(): string {
  const root = copyProject(base);
  roots.push(root);
  return root;
}

const ingest = (root: string, env: Record<string, string> = {}, killAfterMs?: number) =>
  spawnCli(['ingest', 'session.jsonl'], { cwd: root, env, ...(killAfterMs === undefined ? {} : { killAfterMs }), timeoutMs: 60_000 });

/**
 * The next run completes the import (every day present exactly once), and counts the transcript as ingested: a further
 * run has nothing to do. That further run is `ingest()` in this process (what the command calls) but in the first
 * test, which shows the CLI's message once: a CLI start less each.
 */
async function expectComplete(root: string, further: 'cli' | 'in-process' = 'in-process'): Promise<void> {
  const rerun = await ingest(root);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(ingestedParts(root)).toEqual(DAYS);
  if (further === 'cli') {
    const again = await ingest(root);
    expect(again.stdout).toContain('already ingested, nothing to do');
  } else {
    const again = await ingestHere({ root, cwd: root, files: ['session.jsonl'] });
    expect(again.files.map((file) => file.status)).toEqual(['already-ingested']);
  }
  expect(ingestedParts(root)).toEqual(DAYS);
}

describe('ingest killed part-way', () => {
  it('counts a transcript as ingested only when all its days are written: the next run writes the missing ones', async () => {
    const root = project();
    const killed = await ingest(root, { MEMVAULT_TEST_CRASH_AFTER: 'ingest-write:2' });
    expect(killed.signal).toBe('SIGKILL');
    expect(ingestedParts(root)).toEqual(DAYS.slice(0, 2));
    const rerun = await ingest(root);
    expect(rerun.stdout).toMatch(/5 memories: 3 new, 2 unchanged/);
    await expectComplete(root, 'cli');
  });

  it('a partial set of memories from the same file (what a kill leaves) is never taken for a complete import', async () => {
    // The state an ingest killed after its first day leaves, made by hand: the first memory of a full run, no completion record.
    const root = project();
    expect((await ingest(root)).code).toBe(0);
    const memories = listFiles(root, 'vault').filter((file) => file.includes('/memories/'));
    for (const file of memories.filter((f) => !f.includes(DAYS[0]!))) unlinkSync(path.join(root, file));
    rmSync(path.join(root, '.memvault'), { recursive: true, force: true });
    expect(ingestedParts(root)).toEqual([DAYS[0]]);
    await expectComplete(root);
  });

  it('the pre-compact hook killed mid-way, then the session-end hook: every day once', async () => {
    const root = project();
    const input = JSON.stringify({ session_id: 'long-session-0001', transcript_path: path.join(root, 'session.jsonl'), cwd: root });
    const killed = await spawnCli(['hook', 'pre-compact'], {
      cwd: root,
      stdin: input,
      env: { MEMVAULT_TEST_CRASH_AFTER: 'ingest-write:3' },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(ingestedParts(root)).toEqual(DAYS.slice(0, 3));
    const end = await spawnCli(['hook', 'session-end'], { cwd: root, stdin: input });
    expect(end.stderr).toBe('');
    expect(end.stdout).toContain('3 unchanged');
    expect(ingestedParts(root)).toEqual(DAYS);
    await expectComplete(root);
  });

  it('killed at a write (first, middle, last), then run again: every day once', async () => {
    for (const n of [1, 4, 6]) {
      const root = project();
      const killed = await ingest(root, { MEMVAULT_TEST_CRASH_AFTER: `ingest-write:${n}` });
      expect(killed.signal).toBe('SIGKILL');
      expect(ingestedParts(root)).toHaveLength(Math.min(n, DAYS.length));
      await expectComplete(root);
    }
  });

  it.skipIf(!SLOW)(
    'a kill -9 loop: 24 kills at random writes and random times, each followed by a run; every day present exactly once',
    async () => {
      const clean = await ingest(project());
      let seed = 20_261_128;
      const random = (): number => {
        seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
        return seed / 2 ** 32;
      };
      // One project through every kill: each run picks up what the kills before it left.
      const root = project();
      let kills = 0;
      const byKind = { point: 0, time: 0 };
      for (let run = 0; kills < 24 && run < 100; run++) {
        const killed =
          run % 2 === 0
            ? await ingest(root, { MEMVAULT_TEST_CRASH_AFTER: `ingest-write:${1 + Math.floor(random() * 6)}` })
            : await ingest(root, {}, Math.floor(random() * clean.ms));
        if (killed.signal !== 'SIGKILL') continue;
        kills++;
        byKind[run % 2 === 0 ? 'point' : 'time']++;
        const parts = ingestedParts(root);
        // Never a day twice, whatever was killed where.
        expect(new Set(parts).size).toBe(parts.length);
        // Every fourth kill: the next run completes, and the vault starts empty again, so early writes are killed too.
        if (kills % 4 === 0) {
          await expectComplete(root);
          rmSync(path.join(root, 'vault'), { recursive: true, force: true });
          rmSync(path.join(root, '.memvault'), { recursive: true, force: true });
        }
      }
      expect(kills).toBe(24);
      console.log(`kill loop: ${byKind.point} kills at a crash point, ${byKind.time} after a random delay`);
      await expectComplete(root);
    },
    600_000,
  );
});
