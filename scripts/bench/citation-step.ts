import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCitationStep } from '../../src/citations/build-step.js';
import type { Citation } from '../../src/vault/citation-model.js';
import type { Memory, StreamState } from '../../src/vault/model.js';
import { median } from './run.js';

/**
 * The citation step alone, in this process (no vault load, no build): what a
 * profile of it needs (`node --cpu-prof dist/scripts/bench/citation-step.js`).
 * A repository of 90 source files (60 committed, 30 another repository's; `--paths N`: N) and
 * N memories (default 20,000, nine in ten citing 2-3 of them, some with a line
 * range and a quoted span); then no-change runs and edit + commit runs (one
 * source file edited and committed, one memory's content changed), each the
 * citation step's own time. `--stale`: every committed file edited five times
 * after the memories' dates first (every citing memory stale).
 */

const RUNS = 7;

const args = process.argv.slice(2);
const pathsAt = args.indexOf('--paths');
// `--paths 9`: as `npm run bench`'s vault cites them (9 paths, a file cited by ~4,500 memories); default 90.
const pathCount = pathsAt >= 0 ? Number(args[pathsAt + 1]) : 90;
const count = Number(args.find((a, i) => /^\d+$/.test(a) && i !== pathsAt + 1) ?? 20_000);
const stale = args.includes('--stale');
if (!(pathCount > 0)) throw new Error('--paths takes a number of source files, e.g. --paths 9');
const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-citation-step-'));
const git = (...args: string[]): string =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' },
  });
const sources = Array.from({ length: pathCount }, (_, i) => `src/area${i % 9}/file${i}.ts`);
const committed = sources.filter((_, i) => i % 3 !== 2);
const fileText = (file: string, edits: number): string =>
  [
    `// ${file}`,
    ...Array.from({ length: 60 }, (_, i) => `export const value${i} = ${i};`),
    ...Array.from({ length: edits }, (_, i) => `// edit ${i}`),
    '',
  ].join('\n');
git('init', '-q', '-b', 'main');
for (const file of committed) {
  mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
  writeFileSync(path.join(root, file), fileText(file, 0));
}
mkdirSync(path.join(root, 'vault/main/memories'), { recursive: true });
git('add', '-A');
git('commit', '-qm', 'sources', '--date', '2026-01-01T00:00:00Z');
if (stale)
  for (let round = 1; round <= 5; round++) {
    for (const file of committed) writeFileSync(path.join(root, file), fileText(file, round));
    git('commit', '-qam', `round ${round}`);
  }

const memories: Memory[] = Array.from({ length: count }, (_, i) => {
  const cites: Citation[] = [];
  if (i % 10 !== 0)
    for (let k = 0; k < 2 + (i % 2); k++) {
      const target = sources[(i * 7 + k * 13) % sources.length]!;
      const line = 1 + ((i + k) % 50);
      cites.push(
        k === 0 && i % 4 === 0
          ? {
              kind: 'path',
              target,
              line: 3,
              lines: [line + 1, line + 1],
              quote: { kind: 'spans', text: [`value${line} = ${line}`], height: 1 },
            }
          : { kind: 'path', target, line: 3 + k },
      );
    }
  const day = `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
  return {
    id: `m-${i}`,
    stream: 'main',
    path: `main/memories/m-${i}.md`,
    location: 'memories',
    date: `${day}T10:00:00Z`,
    day,
    minute: 600,
    title: `Memory ${i}`,
    kind: 'note',
    tags: [],
    importance: 'normal',
    sha256: `${i}`.padStart(64, '0'),
    citations: cites,
  } as Memory;
});
const streams = (): StreamState[] => [{ name: 'main', memories, summaries: new Map() }];
const step = async () => {
  const result = await runCitationStep({
    root,
    vaultDir: path.join(root, 'vault'),
    streams: streams(),
    now: new Date('2026-02-01T00:00:00Z'),
  });
  return result.report!;
};

const first = await step();
process.stderr.write(`first: ${first.ms} ms, ${first.citations} citations of ${first.paths} paths, ${first.stale} stale\n`);
const idle: number[] = [];
for (let i = 0; i < RUNS; i++) idle.push((await step()).ms);
const edit: number[] = [];
// This process's CPU time in each edit + commit step (git's processes not counted): steadier than the wall time on a busy machine.
const editCpu: number[] = [];
for (let i = 1; i <= RUNS; i++) {
  const file = committed[(i * 7) % committed.length]!;
  writeFileSync(path.join(root, file), fileText(file, 10 + i));
  git('commit', '-qam', `edit ${file}`);
  memories[i] = { ...memories[i]!, sha256: `edited-${i}`.padStart(64, '0') };
  const cpu = process.cpuUsage();
  const report = await step();
  const used = process.cpuUsage(cpu);
  edit.push(report.ms);
  editCpu.push(Math.round((used.user + used.system) / 1000));
  process.stderr.write(`edit ${i}: ${report.ms} ms, ${report.recheckedPaths} path(s), ${report.recheckedQuotes} quote(s) asked again\n`);
}
process.stdout.write(
  `${JSON.stringify({ memories: count, paths: pathCount, stale, noChangeMs: median(idle), editCommitMs: median(edit), editCommitCpuMs: median(editCpu), idle, edit })}\n`,
);
rmSync(root, { recursive: true, force: true });
