import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadValidConfig } from '../../config/load.js';
import type { SecretPolicy } from '../../redact/detect.js';
import { describeRedactions, mergeRedactions, redactSecrets } from '../../redact/redact.js';
import { purgeDerivedStores } from '../../ops/purge.js';
import { removeLeftoverTemps } from '../../pipeline/housekeeping.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { acquireBuildLock } from '../../util/lock.js';
import { streamFolders } from '../../vault/scan.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';
import { renderJson } from '../render/json.js';
import { opensGeneratedSummary } from '../../vault/frontmatter.js';

/** Flags of `memvault redact` as commander parses them. */
export interface RedactCommandOptions {
  root?: string;
  dryRun?: boolean;
  json?: boolean;
}

interface FileRedaction {
  path: string;
  redactions: { kind: string; line: number; column: number }[];
}

/**
 * `memvault redact PATH…`: rewrites memory files with each secret the build
 * would hold them back for replaced by `[REDACTED:kind]`, in place and
 * atomically, and prints what it replaced (`path:line:col kind`). Folders are
 * walked for `.md` files. The config's `secrets.allow` and lines marked
 * `memvault:allow-secret` are left as they are, as the build leaves them.
 */
export async function redactCommand(targets: readonly string[], options: RedactCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const config = await loadValidConfig(root);
  const policy: SecretPolicy = config.secrets;
  const files = targets.flatMap((target) => markdownFiles(path.resolve(target)));
  // Under the build lock: no build reads a file half-redacted, and none saves a cache while it is purged.
  const stateDir = path.join(root, '.memvault');
  const release = options.dryRun ? async () => {} : await acquireBuildLock(stateDir, 'memvault redact');
  const changed: FileRedaction[] = [];
  const counts = new Map<string, number>();
  let purged: string[] = [];
  try {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const result = redactSecrets(text, policy);
      if (result.count === 0) continue;
      if (!options.dryRun) writeFileAtomic(file, result.text);
      mergeRedactions(counts, result.redactions);
      changed.push({
        path: path.relative(process.cwd(), file) || file,
        redactions: result.findings.map(({ kind, line, column }) => ({ kind, line, column })),
      });
    }
    if (!options.dryRun) {
      // The text as it was may still be in the derived stores of `.memvault/`: they go, and are rebuilt from the vault.
      if (changed.length > 0) purged = purgeDerivedStores(root);
      // Holding the lock, like a build: temporary files of killed writers go (housekeeping.ts).
      const vaultDir = path.resolve(root, config.vault);
      removeLeftoverTemps(vaultDir, stateDir, streamFolders(vaultDir, Object.keys(config.streams)));
    }
  } finally {
    await release();
  }
  if (options.json) {
    const report = { dry_run: options.dryRun === true, files_scanned: files.length, files: changed, purged };
    process.stdout.write(renderJson(report));
    return;
  }
  for (const file of changed) for (const r of file.redactions) process.stdout.write(`${file.path}:${r.line}:${r.column} ${r.kind}\n`);
  const what = describeRedactions(counts);
  const verb = options.dryRun ? 'would be redacted' : 'redacted';
  process.stderr.write(
    what
      ? `${what.replace(' redacted', ` ${verb}`)} in ${changed.length} of ${files.length} file${files.length === 1 ? '' : 's'}` +
          `${options.dryRun ? ' (--dry-run: nothing written)' : ''}\n`
      : `no secrets found in ${files.length} file${files.length === 1 ? '' : 's'}\n`,
  );
  if (purged.length > 0)
    process.stderr.write(`removed the caches that may hold the text as it was (${purged.join(', ')}): the next build makes them anew\n`);
}

/**
 * `target` itself when a file; when a folder, the `.md` files under it (outside
 * dot folders, links not followed) but generated summaries: the build writes
 * those again from the memories (and would take a changed one for a hand edit).
 */
function markdownFiles(target: string): string[] {
  const stat = lstatSafe(target);
  if (!stat) throw new UserError('redact/missing', `${target}: no such file or folder`);
  if (stat.isFile()) return [target];
  if (!stat.isDirectory()) return [];
  const out: string[] = [];
  for (const entry of readdirSync(target, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.md') && !isGeneratedSummary(full)) out.push(full);
  }
  return out;
}

function isGeneratedSummary(file: string): boolean {
  return opensGeneratedSummary(readFileSync(file, 'utf8').slice(0, 64));
}

function lstatSafe(file: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
