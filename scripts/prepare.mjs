#!/usr/bin/env node
/**
 * `npm run prepare`: compiles memvault (tsc -p tsconfig.build.json) and bundles
 * the CLI into dist/bin (scripts/bundle.mjs, what `bin` runs). npm runs
 * it after `npm ci` / `npm install` in a checkout, before `npm pack` and
 * `npm publish` (so the tarball ships `dist/`), and in a temporary clone when
 * memvault is installed from a git URL (`npm install -g github:owner/memvault#ref`).
 *
 * Plain JavaScript, not TypeScript: it runs before anything is compiled.
 *
 * Why more than `tsc`: when npm installs a git dependency *globally*, the
 * `npm install` it runs in the clone inherits `global=true` from the outer
 * command: it installs nothing into the clone (so `tsc` is not found) and
 * links the clone into the global folder while the outer command fills that
 * folder (npm 7 to 11). So when TypeScript is not installed here, the sources
 * are compiled in a private copy with its own `npm ci`, and only `dist/` is
 * copied back. In a checkout after `npm ci`, this is exactly `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle } from './bundle.mjs';
import { stampSource } from './stamp-source.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tscIn = (dir) => path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs a command, passing its output through; exits with its code when it fails. */
function run(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** `npm <args>` in `cwd`, with the npm that runs this script when there is one. */
function npm(args, cwd, env) {
  const cli = process.env.npm_execpath;
  if (cli && /\.c?js$/.test(cli)) run(process.execPath, [cli, ...args], { cwd, env });
  else run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, env, shell: process.platform === 'win32' });
}

if (existsSync(tscIn(root))) {
  run(process.execPath, [tscIn(root), '-p', 'tsconfig.build.json'], { cwd: root });
  await bundle(root);
} else {
  process.stderr.write('memvault prepare: TypeScript is not installed here; compiling in a private copy with its own `npm ci`\n');
  const work = mkdtempSync(path.join(os.tmpdir(), 'memvault-prepare-'));
  try {
    for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts']) {
      cpSync(path.join(root, name), path.join(work, name), { recursive: true });
    }
    const env = { ...process.env };
    // npm passes its settings down as npm_config_* variables: these would send the install elsewhere or skip TypeScript.
    for (const key of Object.keys(env))
      if (/^npm_config_(global|prefix|location|omit|include|only|production)$/i.test(key)) delete env[key];
    delete env.NODE_ENV;
    npm(['ci', '--ignore-scripts', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'], work, env);
    run(process.execPath, [tscIn(work), '-p', 'tsconfig.build.json'], { cwd: work });
    // The copy's bundle.mjs imports esbuild from the copy's node_modules, which its `npm ci` just filled.
    await (await import(pathToFileURL(path.join(work, 'scripts', 'bundle.mjs')).href)).bundle(work);
    rmSync(path.join(root, 'dist'), { recursive: true, force: true });
    cpSync(path.join(work, 'dist'), path.join(root, 'dist'), { recursive: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Where this build comes from (git URL and commit), for `memvault init` in an install made from the packed tarball.
stampSource();
