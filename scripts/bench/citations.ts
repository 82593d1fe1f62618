import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { editOneMemory } from '../fixtures/synthetic-vault.js';
import { CLI, formatSeconds, log, median, NOW, runNode } from './run.js';

/**
 * What verifying citations costs a build (src/citations/): on a copy of the
 * committed vault (`<dir>-git`, made by the edit + commit scenario) with a
 * source tree of `SOURCE_FILES` files, a quarter of the memories citing one of
 * them (`path:line`), every 40th a folder too. Each build reports the
 * citation step's own time (`citations.ms` of `build --json`): the no-change
 * rebuild's share of it, and the edit + commit rebuild after a code commit
 * that edits a cited file (the diff since the recorded commit names it: its
 * citations are asked about again, no other).
 */

const SOURCE_FILES = 300;
const RUNS = 5;

export interface CitationBenchResult {
  citing: number;
  noChange: { medianSeconds: number; medianCitationMs: number; sharePercent: number };
  editCommit: { medianSeconds: number; medianCitationMs: number; recheckedPaths: number[] };
}

export async function benchCitations(gitRepo: string, options: { reuse?: boolean } = {}): Promise<CitationBenchResult> {
  const repo = `${gitRepo}-cited`;
  const marker = path.join(repo, '.memvault', 'bench-cited.json');
  // --reuse: the copy made and built by an earlier run (its first build re-summarizes every day a citing memory is on).
  const reuse = options.reuse === true && existsSync(marker);
  if (!reuse) {
    rmSync(repo, { recursive: true, force: true });
    cpSync(gitRepo, repo, { recursive: true, preserveTimestamps: true });
  }
  const git = (...args: string[]): string => {
    const result = spawnSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${repo}: ${result.stderr}`);
    return result.stdout;
  };
  const source = (i: number): string => `src/mod-${i % 30}/file-${i}.ts`;
  const memories = listFiles(path.join(repo, 'vault', 'main', 'memories'));
  let citing = reuse ? (JSON.parse(readFileSync(marker, 'utf8')) as { citing: number }).citing : 0;
  if (!reuse) prepare();
  function prepare(): void {
    for (let i = 0; i < SOURCE_FILES; i++) {
      mkdirSync(path.join(repo, path.dirname(source(i))), { recursive: true });
      writeFileSync(path.join(repo, source(i)), `export const value${i} = ${i};\n`.repeat(40));
    }
    memories.forEach((file, i) => {
      if (i % 4 !== 0) return;
      const folder = i % 40 === 0 ? ` and everything under \`src/mod-${i % 30}/\`` : '';
      appendFileSync(file, `\nThe code is in \`${source(i % SOURCE_FILES)}:${(i % 30) + 1}\`${folder}.\n`);
      citing++;
    });
    git('add', '-A');
    git('commit', '-q', '--no-verify', '-m', 'sources, and memories citing them');
    const started = performance.now();
    runNode([CLI, 'build', '--now', NOW, '--json'], repo);
    log(
      `  citations: ${citing} of ${memories.length} memories cite ${SOURCE_FILES} files; first build ${formatSeconds((performance.now() - started) / 1000)}`,
    );
    writeFileSync(marker, JSON.stringify({ citing }));
  }

  const timed = () => {
    const { sample, stdout } = runNode([CLI, 'build', '--now', NOW, '--json'], repo);
    const citations = (JSON.parse(stdout) as { citations?: { ms: number; recheckedPaths: number } }).citations;
    if (!citations) throw new Error(`the build in ${repo} reported no citation step`);
    return { seconds: sample.seconds, ms: citations.ms, rechecked: citations.recheckedPaths };
  };
  const idle = Array.from({ length: RUNS }, timed);
  const edits = [];
  for (let i = 1; i <= RUNS; i++) {
    appendFileSync(path.join(repo, source(i * 4)), `// edit ${i}\n`);
    git('commit', '-q', '--no-verify', '-am', `edit ${source(i * 4)}`);
    await editOneMemory(repo);
    edits.push(timed());
    log(`  citations, edit + commit ${i}/${RUNS}: build ${formatSeconds(edits.at(-1)!.seconds)}, citation step ${edits.at(-1)!.ms} ms`);
  }
  const idleSeconds = median(idle.map((s) => s.seconds));
  const idleMs = median(idle.map((s) => s.ms));
  return {
    citing,
    noChange: {
      medianSeconds: idleSeconds,
      medianCitationMs: idleMs,
      sharePercent: Math.round((idleMs / (idleSeconds * 1000 - idleMs)) * 1000) / 10,
    },
    editCommit: {
      medianSeconds: median(edits.map((s) => s.seconds)),
      medianCitationMs: median(edits.map((s) => s.ms)),
      recheckedPaths: edits.map((s) => s.rechecked),
    },
  };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
