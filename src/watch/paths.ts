import { UserError } from '../util/errors.js';
import { tierOfFolder, tierOfStreamFile } from '../time/tiers.js';
import { classifyPath } from '../vault/paths.js';

/**
 * Pure helpers of `memvault watch`: which paths matter, how a batch of
 * changes and a build's writes read in one line, and `--commit-every`.
 */

/**
 * Names editors and tools write beside the file being saved and then delete
 * or rename: vim (`.x.swp`, `x~`, `4913`), emacs (`#x#`, `.#x`), JetBrains
 * (`x___jb_tmp___`), Chrome-based editors (`.crswap`), `*.tmp` files, and our
 * own atomic writes (`.x.<pid>.<n>.tmp`).
 */
export function isEditorTempName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.endsWith('~') ||
    name === '4913' ||
    /^#.*#$/.test(name) ||
    /\.(swp|swx|swo|tmp|temp|bak|orig|crswap)$/i.test(name) ||
    /___jb_(tmp|old|bak)___$/.test(name) ||
    /\.sb-[0-9a-f]+-[A-Za-z0-9]+$/.test(name)
  );
}

/**
 * True when a vault-relative path can never matter to a build, so the
 * watcher does not even descend into it: dot folders (`.memvault`, `.git`),
 * a stream's `history/` and `waterfall/history/` (copies the build keeps),
 * editor temp files.
 * `isFile` says whether the path is known to be a file (then only memory and
 * summary `.md` files pass).
 */
export function isIgnoredVaultPath(vaultPath: string, isFile: boolean | undefined): boolean {
  if (vaultPath === '') return false;
  const parts = vaultPath.split('/');
  if (parts.some((part) => part.startsWith('.'))) return true;
  // History copies are build output: never an input.
  if (parts[1] === 'history' || (parts[1] === 'waterfall' && parts[2] === 'history')) return true;
  const name = parts[parts.length - 1]!;
  if (isEditorTempName(name)) return true;
  if (isFile === true) return !name.toLowerCase().endsWith('.md') || classifyPath(vaultPath).role === 'ignored';
  return false;
}

/** How a file changed between two rebuilds. */
export type Change = 'added' | 'changed' | 'deleted';

/** `main/memories/x.md changed`, or `3 files changed (a.md, b.md deleted, …)` for a batch. */
export function describeChanges(changes: ReadonlyMap<string, Change>, configChanged: boolean): string {
  const parts: string[] = [];
  if (configChanged) parts.push('memory.config.yaml changed');
  const entries = [...changes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 1) {
    const [file, change] = entries[0]!;
    parts.push(`${file} ${change}`);
  } else if (entries.length > 1) {
    const shown = entries.slice(0, 3).map(([file, change]) => `${file.split('/').pop()}${change === 'changed' ? '' : ` ${change}`}`);
    parts.push(`${entries.length} files changed (${shown.join(', ')}${entries.length > 3 ? ', …' : ''})`);
  }
  return parts.join(', ') || 'start';
}

/**
 * What a build wrote, named the way people think of it: `daily 2026-02-13`,
 * `weekly 2026-W07`, `package main`, `index`. History copies and manifests go
 * with the file they belong to and are not listed.
 */
export function describeWritten(written: readonly string[]): string[] {
  const out: string[] = [];
  // Packages after the summaries they are built from (a package written first, by `packageFirst`, reads the same).
  const packages: string[] = [];
  let index = false;
  for (const file of written) {
    const parts = file.split('/');
    if (file === 'INDEX.md' || file === 'index.json') {
      index = true;
      continue;
    }
    const [stream, folder, name] = parts;
    if (folder === 'UPLOAD_PACKAGE.md') packages.push(`package ${stream}`);
    else if (folder === 'CONTEXT.md') packages.push(`context ${stream}`);
    else if (folder && tierOfStreamFile(folder)) out.push(`${tierOfStreamFile(folder)} ${stream}`);
    else if (folder && name && tierOfFolder(folder)) out.push(`${folder} ${name.replace(/\.md$/, '')}`);
    else if (folder === 'waterfall' && name) out.push(`waterfall ${name.replace(/\.md$/, '')}`);
    else if (folder === 'archive') out.push(`archived ${parts.slice(3).join('/')}`);
  }
  out.push(...packages);
  if (index) out.push('index');
  return [...new Set(out)];
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `10m`, `90s`, `1h`, `1.5h`, `500ms` → milliseconds (a bare number is seconds).
 * Throws a `UserError` for anything else.
 */
export function parseDuration(text: string, flag: string): number {
  const match = DURATION.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? 's']! : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new UserError('cli/duration', `${flag} \`${text}\` is not a duration`, { flag });
  return Math.round(ms);
}
