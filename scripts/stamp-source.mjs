#!/usr/bin/env node
/**
 * Writes `dist/install-source.json`: the git URL and commit memvault is
 * being packed from, so a memvault installed from the tarball (`npm pack`,
 * or npm's own packing of a git URL) knows where it came from, and
 * `memvault init` writes a workflow that installs that same commit. Run by
 * `prepare` (scripts/prepare.mjs); writes nothing outside a git checkout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Stamps the source; returns it, or undefined outside a git checkout. */
export function stampSource() {
  const commit = git('rev-parse', '--verify', 'HEAD');
  if (!commit || !existsSync(path.join(root, '.git'))) return undefined;
  const first = git('remote')?.split('\n')[0];
  const url = git('remote', 'get-url', 'origin') ?? (first ? git('remote', 'get-url', first) : undefined) ?? root;
  const dirty = Boolean(git('status', '--porcelain', '--untracked-files=no'));
  const source = { url, commit, dirty };
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  writeFileSync(path.join(root, 'dist', 'install-source.json'), `${JSON.stringify(source, null, 2)}\n`);
  return source;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) stampSource();
