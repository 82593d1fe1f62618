import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marker, writeLongTranscript } from '../../scripts/fixtures/long-transcript.js';
import { CLI, createProject, listFiles, removeProject } from '../helpers/project.js';
import { spawnCli } from './spawn-cli.js';

/**
 * Size and kind of what ingest reads and writes. A session-day longer than
 * one memory file may be (the build reads at most 1 MiB per file,
 * `memory/too-large`) becomes several memories, each built and searchable:
 * by default a ~2 MB day of one session (three parts, over 1 MiB in all), and (MEMVAULT_SLOW=1) a 200 MB
 * session ingested in at most 500 MB of memory. Inputs are read only from
 * regular files within a size limit, hook input within 1 MiB, and errors name
 * the file, never its content. A run that hangs (a FIFO) or reads forever
 * (`/dev/zero`) is killed by `timeoutMs` and fails its test.
 */

const SLOW = process.env.MEMVAULT_SLOW === '1';
const NOW = { MEMVAULT_NOW: '2026-03-10T12:00:00Z' };
const LIMIT = 1024 * 1024;
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) removeProject(root);
});

function project(): string {
  const root = createProject({});
  roots.push(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

/** Ingests, builds and searches a long session; returns the memory files' sizes. */
async function ingestBuildSearch(root: string, exchanges: number): Promise<number[]> {
  const build = await spawnCli(['build', '--no-commit', '--json'], { cwd: root, env: NOW, timeoutMs: 1_800_000 });
  expect(build.code, build.stderr).toBe(0);
  const report = JSON.parse(build.stdout) as { diagnostics: { rule?: string }[] };
  expect(report.diagnostics.filter((d) => d.rule === 'memory/too-large')).toEqual([]);
  // The first, a middle and the last exchange: every part of the session was built and indexed.
  for (const k of [0, Math.floor(exchanges / 2), exchanges - 1]) {
    const search = await spawnCli(['search', marker(k), '--tier', 'memories', '--json'], { cwd: root, env: NOW, timeoutMs: 300_000 });
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout, `exchange ${k}`).toContain(marker(k));
  }
  return listFiles(root, 'vault')
    .filter((file) => file.includes('/memories/'))
    .map((file) => statSync(path.join(root, file)).size);
}

describe('a session-day longer than a memory file', () => {
  it('becomes several memories within the build limit, all built and searchable (a ~2 MB day)', async () => {
    const root = project();
    const { exchanges } = writeLongTranscript(path.join(root, 'day.jsonl'), { bytes: 2_300_000, days: 1, resultBytes: 100 });
    const ingest = await spawnCli(['ingest', 'day.jsonl'], { cwd: root, env: NOW, timeoutMs: 120_000 });
    expect(ingest.code, ingest.stderr).toBe(0);
    const sizes = await ingestBuildSearch(root, exchanges);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(LIMIT);
    // More than one memory file may hold: the split was needed.
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(LIMIT);
    expect(ingest.stdout).toMatch(/\(part 2\)|part-2/);
  }, 300_000);

  it.skipIf(!SLOW || !existsSync('/usr/bin/time'))(
    'a 200 MB session: ingested in at most 500 MB of memory, every part built and searchable',
    async () => {
      const root = project();
      const { exchanges, bytes } = writeLongTranscript(path.join(root, 'long.jsonl'), { bytes: 200_000_000, days: 3 });
      expect(bytes).toBeGreaterThan(200_000_000);
      const timed = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M seconds=%e', process.execPath, CLI, 'ingest', 'long.jsonl'], {
        cwd: root,
        env: { ...process.env, ...NOW, NO_COLOR: '1' },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(timed.status, timed.stderr).toBe(0);
      const rss = Number(/maxrss_kb=(\d+)/.exec(timed.stderr)?.[1]);
      console.log(`200 MB ingest: ${timed.stderr.trim().split('\n').pop()}`);
      expect(rss).toBeLessThanOrEqual(500 * 1024);
      const sizes = await ingestBuildSearch(root, exchanges);
      for (const size of sizes) expect(size).toBeLessThanOrEqual(LIMIT);
    },
    3_600_000,
  );
});

describe('reads are bounded', () => {
  let root: string;
  beforeAll(() => {
    root = project();
    writeFileSync(path.join(root, 'shadow'), 'root:*:20255:0:99999:7:::\ndaemon:*:20255:0:99999:7:::\n');
  });

  it('refuses a device and a FIFO before reading, naming the file', async () => {
    const fifo = path.join(root, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const result = await spawnCli(['ingest', '/dev/zero', 'pipe.jsonl', '--format', 'claude-code'], { cwd: root, timeoutMs: 30_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/dev/zero:1:1 error is a device, not a regular file');
    expect(result.stderr).toContain('pipe.jsonl:1:1 error is a FIFO (named pipe), not a regular file');
  }, 60_000);

  it('refuses a file over the size limit before reading it', async () => {
    // Sparse files: the size is checked on the descriptor, nothing is read.
    const big = path.join(root, 'big.json');
    closeSync(openSync(big, 'w'));
    truncateSync(big, 64 * 1024 * 1024 + 1);
    const huge = path.join(root, 'huge.jsonl');
    closeSync(openSync(huge, 'w'));
    truncateSync(huge, 2 * 1024 * 1024 * 1024 + 1);
    const result = await spawnCli(['ingest', 'big.json', 'huge.jsonl'], { cwd: root, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('big.json:1:1 error file too large: 67,108,865 bytes (limit 64 MiB)');
    expect(result.stderr).toContain('huge.jsonl:1:1 error file too large: 2,147,483,649 bytes (limit 2,048 MiB)');
  }, 60_000);

  it('a hook reads at most 1 MiB of input, and never repeats a byte of a file it was given', async () => {
    const zero = openSync('/dev/zero', 'r');
    try {
      const flood = await spawnCli(['hook', 'pre-compact'], { cwd: root, stdin: zero, timeoutMs: 30_000 });
      expect(flood.signal).toBeNull();
      expect(flood.code).toBe(0);
      expect(flood.stderr).toContain('hook input is larger than 1 MiB');
    } finally {
      closeSync(zero);
    }
    const named = JSON.stringify({ transcript_path: path.join(root, 'shadow'), cwd: root });
    const transcript = await spawnCli(['hook', 'session-end'], { cwd: root, stdin: named, timeoutMs: 30_000 });
    expect(transcript.stderr).toContain(`${path.join(root, 'shadow')}: not ingested: 1:`);
    expect(transcript.stderr).toMatch(/not ingested: 1:\d+ not valid JSON: Unexpected character\n/);
    const piped = await spawnCli(['hook', 'session-end'], { cwd: root, stdin: 'root:*:20255:0:99999:7:::\n', timeoutMs: 30_000 });
    expect(piped.stderr).toMatch(/hook input is not JSON \(line \d+, column \d+: Unexpected character\)/);
    for (const result of [transcript, piped]) {
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/root:|:\*:|20255/);
    }
    // And nothing was written.
    expect(listFiles(root, 'vault')).toEqual([]);
  }, 60_000);
});
