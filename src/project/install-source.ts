import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the running memvault came from, as an npm install spec a workflow
 * can install the same memvault from: the release tarball's URL of a release
 * install, the git URL and commit of a checkout or of a git install, the
 * registry version of a registry install, the tarball of a tarball install.
 * `memvault init` writes it into the nightly workflow; `init --install-from
 * SPEC` overrides it.
 */

export type InstallKind = 'release' | 'checkout' | 'git' | 'registry' | 'tarball' | 'flag' | 'unknown';

export interface InstallSource {
  /** What `npm install` / `npm pack` takes: a release tarball URL, `github:owner/memvault#<sha>`, `git+https://…#<sha>`, `memvault@0.1.0`, a tarball path. */
  spec: string;
  kind: InstallKind;
  /** Something the person should know about the spec (only this machine can install it, uncommitted changes left out…). */
  note?: string;
}

/** The sources a GitHub-hosted runner can install memvault from, as `init` suggests them (docs/install.md). */
export const REACHABLE_SOURCES =
  'the release tarball URL (https://github.com/OWNER/memvault/releases/download/vX.Y.Z/memvault-X.Y.Z.tgz: installs in seconds) ' +
  'or a pushed commit (github:OWNER/memvault#<commit>: built from source on the first night, then cached)';

/**
 * Why a GitHub-hosted runner cannot install `spec` (what it names: `a path on
 * this machine`), or undefined when it
 * can (as far as the spec tells): a `git+file:` or `file:` URL or a path
 * names a folder or file on this machine, a loopback URL this machine's
 * network. A self-hosted runner that has the same path can still use it.
 */
export function unreachableFromGitHub(spec: string): string | undefined {
  if (/^git\+file:/i.test(spec)) return 'a git repository on this machine';
  if (/^file:/i.test(spec)) return 'a file on this machine';
  if (/^(https?|git\+https?|git\+ssh|ssh):\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])([:/]|$)/i.test(spec))
    return 'a loopback address, on this machine';
  // npm reads a spec that starts like a path, or ends in .tgz / .tar.gz without a URL scheme, as a local file or folder.
  if (/^(\/|\.{1,2}[\\/]|~[\\/]|[A-Za-z]:[\\/])/.test(spec) || (!/^[a-z+]+:/i.test(spec) && /\.(tgz|tar\.gz)$/i.test(spec)))
    return 'a path on this machine';
  return undefined;
}

/** The folder of the running memvault package: the nearest `package.json` upwards named `memvault` (works from `dist/` and `src/`). */
export function packageDir(from: string = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (;;) {
    const manifest = readJson(path.join(dir, 'package.json'));
    if (manifest?.name === 'memvault') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The install spec of the memvault in `dir` (default: the running one).
 * A checkout (a `.git` in the package folder) gives its `origin` URL and
 * HEAD commit; an installed package gives what npm resolved it from (the
 * hidden lockfile `node_modules/.package-lock.json` next to it, or the
 * `_resolved` field older npm versions wrote into its package.json).
 *
 * @example
 *   detectInstallSource(); // { spec: 'github:ana/memvault#3f2a9c1…', kind: 'checkout' }
 */
export function detectInstallSource(dir: string | undefined = packageDir()): InstallSource {
  const manifest = dir ? readJson(path.join(dir, 'package.json')) : undefined;
  const version = typeof manifest?.version === 'string' ? manifest.version : undefined;
  const fallback: InstallSource = {
    spec: version ? `memvault@${version}` : 'memvault',
    kind: 'unknown',
    note: 'where this memvault came from is unknown: the workflow installs it from the npm registry; pass --install-from SPEC otherwise',
  };
  if (!dir) return fallback;
  if (existsSync(path.join(dir, '.git'))) return checkoutSource(dir) ?? fallback;
  const resolved = resolvedByNpm(dir, manifest);
  const fromNpm = resolved ? sourceFromResolved(resolved, version) : undefined;
  if (fromNpm && fromNpm.kind !== 'tarball') return fromNpm;
  return stampedSource(dir) ?? fromNpm ?? fallback;
}

/**
 * The source `prepare` stamped into the package when it was packed from a
 * git checkout (scripts/stamp-source.mjs): a tarball install, which npm
 * records nowhere, still knows its git URL and commit.
 */
function stampedSource(dir: string): InstallSource | undefined {
  const stamp = readJson(path.join(dir, 'dist', 'install-source.json'));
  // A release tarball (scripts/pack-release.mjs --release-url): its own URL, what installs fastest.
  if (typeof stamp?.release === 'string' && /^https:\/\//.test(stamp.release))
    return { spec: stamp.release, kind: 'release', note: `the release tarball this memvault was installed from` };
  if (typeof stamp?.url !== 'string' || typeof stamp.commit !== 'string' || !/^[0-9a-f]{40,64}$/.test(stamp.commit)) return undefined;
  const notes = [`packed from commit ${stamp.commit.slice(0, 12)} of ${stamp.url}`];
  if (stamp.dirty === true) notes.push('the checkout it was packed from had uncommitted changes, which that commit lacks');
  return { spec: `${gitUrlSpec(stamp.url)}#${stamp.commit}`, kind: 'git', note: notes.join('; ') };
}

/** A checkout: its remote and HEAD commit (uncommitted changes cannot be installed from git, so they are named). */
function checkoutSource(dir: string): InstallSource | undefined {
  const git = (...args: string[]): string | undefined => {
    try {
      return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const commit = git('rev-parse', '--verify', 'HEAD');
  if (!commit) return undefined;
  const first = git('remote')?.split('\n')[0];
  const url = git('remote', 'get-url', 'origin') ?? (first ? git('remote', 'get-url', first) : undefined);
  const notes: string[] = [];
  let spec: string;
  if (url) {
    spec = `${gitUrlSpec(url, dir)}#${commit}`;
    notes.push(`the workflow installs commit ${commit.slice(0, 12)} of ${url}: push it there first`);
  } else {
    spec = `git+file://${dir}#${commit}`;
    notes.push(`this checkout has no remote: the workflow would install from ${dir}, which only this machine has`);
  }
  if (git('status', '--porcelain', '--untracked-files=no')) notes.push('uncommitted changes in the checkout are not part of that commit');
  return { spec, kind: 'checkout', note: notes.join('; ') };
}

/** A git remote as an npm spec: `github:owner/repo` for GitHub, `git+<url>` for the rest, `git+file://` for a folder. */
export function gitUrlSpec(url: string, base = process.cwd()): string {
  const github = /^(?:git\+)?(?:https:\/\/|ssh:\/\/git@|git:\/\/|git@)github\.com[:/]([^/]+)\/([^/#]+?)(?:\.git)?\/?$/.exec(url);
  if (github) return `github:${github[1]}/${github[2]}`;
  if (url.startsWith('git+')) return url;
  if (/^(https?|ssh|git|file):\/\//.test(url)) return `git+${url}`;
  const scp = /^([^@/]+@)?([^:/]+):(.+)$/.exec(url);
  if (scp && !/^[A-Za-z]$/.test(scp[2]!)) return `git+ssh://${scp[1] ?? ''}${scp[2]}/${scp[3]!.replace(/^\//, '')}`;
  return `git+file://${path.resolve(base, url)}`;
}

/** What npm resolved an installed package from, if it recorded it. */
function resolvedByNpm(dir: string, manifest: Record<string, unknown> | undefined): string | undefined {
  if (typeof manifest?._resolved === 'string') return manifest._resolved;
  // npm 7+: `<node_modules>/.package-lock.json` lists every installed package with `resolved`.
  const modules = path.dirname(dir);
  const lock = readJson(path.join(modules, '.package-lock.json'));
  const packages = lock?.packages;
  if (!isRecord(packages)) return undefined;
  for (const [key, entry] of Object.entries(packages)) {
    if (
      (key === 'node_modules/memvault' || key.endsWith('/node_modules/memvault')) &&
      isRecord(entry) &&
      typeof entry.resolved === 'string'
    )
      return entry.resolved;
  }
  return undefined;
}

/** An npm `resolved` value as an install spec. */
export function sourceFromResolved(resolved: string, version: string | undefined): InstallSource {
  if (/^git\+|^github:/.test(resolved)) {
    const [url, commit] = resolved.split('#') as [string, string | undefined];
    const spec = `${url.startsWith('github:') ? url : gitUrlSpec(url)}${commit ? `#${commit}` : ''}`;
    return { spec, kind: 'git' };
  }
  if (resolved.startsWith('file:')) {
    const file = resolved.slice('file:'.length);
    return {
      spec: file,
      kind: 'tarball',
      note: `installed from the local file ${file}: a runner cannot install it from there; pass --install-from SPEC (a git URL, or a tarball URL)`,
    };
  }
  if (/^https?:\/\//.test(resolved) && /\/-\/memvault-[^/]+\.tgz$/.test(resolved) && version)
    return { spec: `memvault@${version}`, kind: 'registry' };
  return { spec: resolved, kind: 'tarball' };
}

/** A JSON object file (package.json, npm's lock, the install stamp); anything else reads as none. Callers check each field they use. */
function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
