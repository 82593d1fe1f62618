#!/usr/bin/env node
/**
 * `npm run pack:release` (after `npm run build`): the release tarball, the
 * one file `npm install -g` installs memvault from in seconds
 * (docs/install.md). The release workflow (.github/workflows/release.yml)
 * runs it on each tag and attaches the tarball to the GitHub release.
 *
 *   node scripts/pack-release.mjs [--out DIR] [--release-url URL]
 *
 * What the tarball holds: the bundle (dist/bin, every pure-JavaScript
 * dependency inside it, scripts/bundle.mjs), the prompts, the README, the
 * third-party licences of what the bundle holds, `dist/install-source.json`
 * (git URL, commit and, with --release-url, the tarball's own URL, so an
 * installed memvault's `init` writes a workflow that installs this same
 * release), and a package.json written here: no scripts (no `prepare`: an
 * install compiles nothing), no devDependencies, and as dependencies only what
 * the bundle leaves external (better-sqlite3, a native addon, and tinypool,
 * which starts its own worker file), at the versions of package-lock.json,
 * pinned for the whole tree by an npm-shrinkwrap.json so an install resolves
 * nothing.
 *
 * Prints the tarball's path, size and SHA-256; `--json` prints them as JSON.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { EXTERNAL } from './bundle.mjs';
import { stampSource } from './stamp-source.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The release's package.json: what an install needs, nothing it would run or build. */
export function releaseManifest(manifest, lock) {
  const dependencies = {};
  for (const name of EXTERNAL) {
    const locked = lock.packages?.[`node_modules/${name}`]?.version;
    if (!locked) throw new Error(`package-lock.json has no ${name}: run npm install`);
    dependencies[name] = locked;
  }
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    type: manifest.type,
    license: manifest.license,
    engines: manifest.engines,
    bin: manifest.bin,
    files: ['dist/bin', 'dist/install-source.json', 'prompts', 'README.md', 'THIRD_PARTY_LICENSES.md', 'npm-shrinkwrap.json'],
    dependencies,
  };
}

/**
 * The lock file's entries for the packages reachable from `dependencies`
 * (nested copies first, as npm resolves them), as an npm-shrinkwrap.json:
 * the same versions the tests ran with, and no resolution at install time.
 */
export function releaseShrinkwrap(release, lock) {
  const packages = { '': { name: release.name, version: release.version, license: release.license, dependencies: release.dependencies } };
  const visit = (name, from) => {
    // node_modules/a/node_modules/b, then node_modules/b: the nearest copy upwards, as Node and npm resolve.
    for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      const entry = lock.packages[key];
      if (entry) {
        if (!packages[key]) {
          packages[key] = entry;
          for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(dep, key);
        }
        return;
      }
      if (!dir) throw new Error(`package-lock.json has no ${name} (needed by ${from || 'memvault'})`);
    }
  };
  for (const name of Object.keys(release.dependencies)) visit(name, '');
  return { name: release.name, version: release.version, lockfileVersion: 3, requires: true, packages };
}

/**
 * The licences of the packages the bundle holds (esbuild's metafile lists
 * their files): a bundled copy is a copy, and their licences ask for the
 * notice to travel with it.
 */
export function thirdPartyLicenses(dir) {
  const folders = JSON.parse(readFileSync(path.join(dir, 'dist', 'bin', 'bundle-meta.json'), 'utf8')).bundled;
  const sections = new Map();
  for (const folder of folders) {
    const pkgDir = path.resolve(dir, folder);
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    const file = readdirSync(pkgDir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text = file ? readFileSync(path.join(pkgDir, file), 'utf8').trim() : `License: ${manifest.license ?? 'see the package'}`;
    sections.set(`${manifest.name}@${manifest.version}`, text);
  }
  const body = [...sections.keys()].sort().map((id) => `## ${id}\n\n${sections.get(id)}\n`);
  return `# Third-party licences\n\nThe bundle in dist/bin holds these packages.\n\n${body.join('\n')}`;
}

/** Builds the tarball into `out`; returns { file, bytes, sha256 }. */
export function packRelease({ dir = root, out = path.join(dir, 'dist', 'release'), releaseUrl } = {}) {
  if (!existsSync(path.join(dir, 'dist', 'bin', 'memvault.js'))) throw new Error('dist/bin is missing: run `npm run build` first');
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  const release = releaseManifest(manifest, lock);
  const stage = mkdtempSync(path.join(os.tmpdir(), 'memvault-release-'));
  try {
    cpSync(path.join(dir, 'dist', 'bin'), path.join(stage, 'dist', 'bin'), { recursive: true });
    rmSync(path.join(stage, 'dist', 'bin', 'bundle-meta.json'), { force: true });
    cpSync(path.join(dir, 'prompts'), path.join(stage, 'prompts'), { recursive: true });
    cpSync(path.join(dir, 'README.md'), path.join(stage, 'README.md'));
    writeFileSync(path.join(stage, 'THIRD_PARTY_LICENSES.md'), thirdPartyLicenses(dir));
    const source = { ...(stampSource() ?? {}), ...(releaseUrl ? { release: releaseUrl } : {}) };
    writeFileSync(path.join(stage, 'dist', 'install-source.json'), `${JSON.stringify(source, null, 2)}\n`);
    writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(release, null, 2)}\n`);
    writeFileSync(path.join(stage, 'npm-shrinkwrap.json'), `${JSON.stringify(releaseShrinkwrap(release, lock), null, 2)}\n`);
    mkdirSync(out, { recursive: true });
    const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
      cwd: stage,
      encoding: 'utf8',
    });
    const file = path.join(out, packed.trim().split('\n').pop());
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    return { file, bytes: statSync(file).size, sha256 };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'release-url': { type: 'string' }, json: { type: 'boolean' } } });
  const result = packRelease({
    out: values.out ? path.resolve(values.out) : undefined,
    releaseUrl: values['release-url'] || process.env.MEMVAULT_RELEASE_URL || undefined,
  });
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${result.file}\n  ${(result.bytes / 1e6).toFixed(2)} MB, sha256 ${result.sha256}\n`);
}
