#!/usr/bin/env node
/**
 * `npm run bench:install`: how long `npm install -g <release tarball>` takes
 * and how much it puts on disk, the numbers in the README's Install section.
 *
 *   node scripts/bench-install.mjs [--runs N] [--compile]
 *
 * Packs the release tarball (scripts/pack-release.mjs; run `npm run build`
 * first), then installs it into a new temporary prefix N times each way:
 *
 * - cold: an empty npm cache, so every dependency is downloaded;
 * - warm: the npm cache the cold runs filled (`--prefer-offline`);
 * - restored: what a warm nightly does (actions/cache): the installed prefix
 *   unpacked from a tar.gz, then `memvault --version`.
 *
 * better-sqlite3's native addon: its install script (prebuild-install)
 * downloads a prebuilt addon from GitHub, which this machine cannot reach;
 * a `local-prebuilds` folder made from the addon in node_modules (the same
 * version) stands in for that download, so the native compile is not timed.
 * `--compile` times one install that compiles it from source instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packRelease } from './pack-release.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, compile: { type: 'boolean' } } });
const runs = Number(values.runs);

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const duBytes = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

function localPrebuilds(dir) {
  const addon = path.join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(path.join(addon, 'package.json'), 'utf8'));
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-czf', path.join(dir, asset), '-C', addon, 'build/Release/better_sqlite3.node']);
  return dir;
}

/** One `npm install -g` of the tarball into a new prefix; returns { ms, prefix }. */
function install(tarball, work, cache, env, label) {
  const prefix = mkdtempSync(path.join(work, `${label}-`));
  const started = performance.now();
  const result = spawnSync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--cache',
      cache,
      '--prefer-offline',
      '--allow-scripts=better-sqlite3',
      '--no-audit',
      '--no-fund',
      tarball,
    ],
    { env, encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`npm install failed:\n${result.stderr}`);
  execFileSync(path.join(prefix, 'bin', 'memvault'), ['--version']);
  return { ms, prefix };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'memvault-bench-install-'));
try {
  const release = packRelease({ out: work });
  const env = { ...process.env, npm_config_better_sqlite3_local_prebuilds: localPrebuilds(path.join(work, 'prebuilds')) };
  for (const key of Object.keys(env)) if (/^npm_config_(prefix|global|cache)$/i.test(key)) delete env[key];
  const cold = [];
  const warm = [];
  let installed = 0;
  for (let i = 0; i < runs; i++) {
    const run = install(release.file, work, path.join(work, `cache-cold-${i}`), env, 'cold');
    cold.push(run.ms);
    installed = duBytes(run.prefix);
  }
  const warmCache = path.join(work, 'cache-cold-0');
  let kept;
  for (let i = 0; i < runs; i++) {
    const run = install(release.file, work, warmCache, env, 'warm');
    warm.push(run.ms);
    kept = run.prefix;
  }
  // A warm nightly: actions/cache restores the installed prefix (a tar.gz), nothing else runs.
  const archive = path.join(work, 'prefix.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', kept, '.']);
  const restored = [];
  for (let i = 0; i < runs; i++) {
    const target = mkdtempSync(path.join(work, 'restored-'));
    const started = performance.now();
    execFileSync('tar', ['-xzf', archive, '-C', target]);
    execFileSync(path.join(target, 'bin', 'memvault'), ['--version']);
    restored.push(performance.now() - started);
  }
  const load = os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(', ');
  console.log(
    `release tarball ${path.basename(release.file)}: ${megabytes(release.bytes)}; installed: ${megabytes(duBytes(kept))} (${megabytes(installed)} cold)`,
  );
  console.log(`npm install -g, cold npm cache: median ${seconds(median(cold))} of ${cold.map(seconds).join(', ')}`);
  console.log(`npm install -g, warm npm cache: median ${seconds(median(warm))} of ${warm.map(seconds).join(', ')}`);
  console.log(`restored from the cache (${megabytes(duBytes(archive))} tar.gz): median ${seconds(median(restored))}`);
  if (values.compile) {
    const compileEnv = { ...env, npm_config_build_from_source: 'true', npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' };
    delete compileEnv.npm_config_better_sqlite3_local_prebuilds;
    const run = install(release.file, work, warmCache, compileEnv, 'compile');
    console.log(`npm install -g with better-sqlite3 compiled from source (warm npm cache): ${seconds(run.ms)}`);
  }
  console.log(`load average ${load} on ${os.cpus().length} cores`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
