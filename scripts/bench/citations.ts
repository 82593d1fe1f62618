import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findCitations } from '../../src/vault/citation-find.js';
import { editOneMemory } from '../fixtures/synthetic-vault.js';
import { CLI, formatSeconds, log, median, NOW, runNode } from './run.js';

/**
 * What verifying citations costs a build (src/citations/): on a copy of the
 * committed vault (`<dir>-git`, made by the edit + commit scenario), whose
 * synthetic memories already cite paths (`src/queue/worker.ts`, `infra/main.tf`,
 * … ~44,000 citations of ~90 paths at 20,000 memories), with two of every three
 * cited paths created and committed (the rest stay absent: another
 * repository's files). Each build reports the citation step's own time
 * (`citations.ms` of `build --json`): the no-change rebuild's share of it, and
 * the edit + commit rebuild after a code commit that edits a cited file (the
 * diff since the recorded commit names it: its citations are asked about
 * again, no other). No memory is changed to add citations, so the copy's first
 * build summarizes nothing again.
 */

const RUNS = 5;

export interface CitationBenchResult {
  citing: number;
  paths: number;
  noChange: { medianSeconds: number; medianCitationMs: number; sharePercent: number };
  editCommit: { medianSeconds: number; medianCitationMs: number; recheckedPaths: number[] };
}

/**
 * `reuse`: keep the copy an earlier run left (`<dir>-cited`) rather than copy the vault again (its first build, which
 * checks every citation and may rebuild what the copy's stale caches miss, took minutes on the busy machine).
 */
export async function benchCitations(gitRepo: string, options: { reuse?: boolean } = {}): Promise<CitationBenchResult> {
  const repo = `${gitRepo}-cited`;
  if (!options.reuse || !existsSync(repo)) {
    rmSync(repo, { recursive: true, force: true });
    cpSync(gitRepo, repo, { recursive: true, preserveTimestamps: true });
  }
  const git = (...args: string[]): string => {
    const result = spawnSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${repo}: ${result.stderr}`);
    return result.stdout;
  };
  const cited = new Set<string>();
  let citing = 0;
  for (const file of listFiles(path.join(repo, 'vault', 'main', 'memories'))) {
    const paths = findCitations(readFileSync(file, 'utf8')).filter((c) => c.kind === 'path');
    if (paths.length > 0) citing++;
    for (const c of paths) cited.add(c.target);
  }
  const created = [...cited].sort().filter((p, i) => i % 3 !== 2 && !p.endsWith('/') && !p.startsWith('vault/'));
  for (const file of created) {
    mkdirSync(path.join(repo, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(repo, file), `// ${file}\n`.repeat(40));
  }
  git('add', '-A');
  // A copy that has them already (a warmed copy of an earlier run's): nothing to commit.
  if (git('status', '--porcelain') !== '') git('commit', '-q', '--no-verify', '-m', 'the sources the memories cite');
  const started = performance.now();
  runNode([CLI, 'build', '--now', NOW, '--json'], repo);
  log(
    `  citations: ${citing} memories cite ${cited.size} paths, ${created.length} of them created; first build ${formatSeconds((performance.now() - started) / 1000)}`,
  );

  const timed = () => {
    const { sample, stdout } = runNode([CLI, 'build', '--now', NOW, '--json'], repo);
    const citations = (JSON.parse(stdout) as { citations?: { ms: number; rechecked_paths: number } }).citations;
    if (!citations) throw new Error(`the build in ${repo} reported no citation step`);
    return { seconds: sample.seconds, ms: citations.ms, rechecked: citations.rechecked_paths };
  };
  const idle = Array.from({ length: RUNS }, timed);
  const edits = [];
  for (let i = 1; i <= RUNS; i++) {
    const source = created[(i * 7) % created.length]!;
    appendFileSync(path.join(repo, source), `// edit ${i}\n`);
    git('commit', '-q', '--no-verify', '-am', `edit ${source}`);
    await editOneMemory(repo);
    edits.push(timed());
    log(`  citations, edit + commit ${i}/${RUNS}: build ${formatSeconds(edits.at(-1)!.seconds)}, citation step ${edits.at(-1)!.ms} ms`);
  }
  const idleSeconds = median(idle.map((s) => s.seconds));
  const idleMs = median(idle.map((s) => s.ms));
  return {
    citing,
    paths: cited.size,
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

// On its own: `node dist/scripts/bench/citations.js <committed vault repo> [--reuse]` (e.g. a copy of
// /tmp/memvault-bench/20000-git; `--reuse`: the `-cited` copy of an earlier run, if there is one).
if (process.argv[1] && /bench[/\\]citations\.js$/.test(process.argv[1]) && process.argv[2]) {
  const result = await benchCitations(path.resolve(process.argv[2]), { reuse: process.argv.includes('--reuse') });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
