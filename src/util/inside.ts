import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { UserError } from './errors.js';

/**
 * Writes never leave the project. A vault is a shared repository: a folder
 * committed as a symbolic link (`vault/main/memories/2026 -> /home/ana/.ssh`)
 * would make `add`, `ingest` or a build write wherever it points, since
 * `mkdir -p` and `open` follow links. Every writer resolves the real path of
 * the deepest part of its target that exists and refuses when it is not
 * inside the project's real folder (`project/outside`); inside the vault a
 * folder that is a link at all is refused (`vault/linked-folder`): the
 * loader never follows links there (docs/security.md), so a file written
 * through one would never be read.
 *
 * The CLI names the project of its process once (`setProjectRoot`, when it
 * finds the project); `writeFileAtomic` checks every write against it, so
 * every writer gets the check. Use cases that know their root pass it too.
 */

let projectRoot: { root: string; real: string } | undefined;
/** Whether this process is the CLI's: only then does finding a project hold every write inside it. */
let cliProcess = false;

/**
 * Called once by the CLI's entry (main.ts): from now on the project a command finds holds every write of this process.
 * A library caller (a test, the eval, an embedding program) works on many projects in one process: there the use
 * cases check their own vault, and nothing process-wide is kept.
 */
export function guardWritesOfThisProcess(): void {
  cliProcess = true;
}

/** The project every write of this process must stay in (the CLI sets it when it finds the project; a no-op elsewhere). */
export function setProjectRoot(root: string): void {
  if (!cliProcess) return;
  const resolved = path.resolve(root);
  projectRoot = { root: resolved, real: realpathSync.native(resolved) };
}

/** Throws `project/outside` when `target` (which may not exist yet) resolves outside the project set by `setProjectRoot`; no check when none is set. */
export function ensureInsideProject(target: string): void {
  if (projectRoot) ensureInside(projectRoot.root, target, projectRoot.real);
}

/**
 * Throws `project/outside` when `target`, once the links of its existing
 * part are resolved, is not inside `root` (or `root` itself). `target` may
 * not exist yet: the deepest existing folder on its path is what counts,
 * since that is where `mkdir -p` and the write would go. A link that leads
 * nowhere counts as outside (the write would create its target).
 *
 * @example
 *   ensureInside('/repo', '/repo/vault/main/memories/2026/11/x.md'); // throws when memories/2026 -> /tmp/elsewhere
 */
export function ensureInside(root: string, target: string, rootReal: string = realpathSync.native(root)): void {
  const absolute = path.resolve(root, target);
  let existing = absolute;
  while (lstatSync(existing, { throwIfNoEntry: false }) === undefined) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  let real: string | undefined;
  try {
    real = realpathSync.native(existing);
  } catch {
    real = undefined; // a dangling link
  }
  if (real !== undefined && isInside(rootReal, real)) return;
  const link = firstOutsideLink(root, rootReal, absolute);
  const shown = show(root, absolute);
  if (link)
    throw new UserError(
      'project/outside',
      `\`${show(root, link.path)}\` is a symbolic link to \`${link.to}\`, outside the project: not writing \`${shown}\``,
      { link: show(root, link.path) },
    );
  throw new UserError('project/outside', `\`${shown}\` is outside the project \`${root}\`: not writing there`, {
    link: shown,
  });
}

/**
 * Throws when a write to `target` under `vaultDir` would go through a link:
 * `project/outside` when the path leads out of the project (the vault
 * folder itself may be a link, as long as it stays inside), and
 * `vault/linked-folder` for a folder below the vault that is a link (the
 * loader never follows it, so what is written through it would be lost).
 * `target`'s own entry is not checked: writers replace or move aside what
 * sits at their target.
 */
export function ensureVaultTarget(vaultDir: string, target: string): void {
  ensureVaultFolder(vaultDir, path.dirname(path.resolve(vaultDir, target)));
}

/** `ensureVaultTarget` for a folder to write into: `dir` itself must be a real folder too. */
export function ensureVaultFolder(vaultDir: string, dir: string): void {
  ensureInsideProject(dir);
  ensureNoLinkedFolder(vaultDir, path.resolve(vaultDir, dir));
}

/**
 * Before a build reads or writes: the vault folder leads to a place inside
 * `root`, and no stream folder of `streams` is a link. A build writes into
 * every stream's folder, so this refuses it before its first write.
 */
export function ensureVaultInside(root: string, vaultDir: string, streams: readonly string[]): void {
  ensureInside(root, vaultDir);
  for (const stream of streams) ensureVaultFolder(vaultDir, path.join(vaultDir, stream));
}

/** `mkdir -p` of a folder under the vault, refused before anything is created where `ensureVaultFolder` refuses. */
export function mkdirInVault(vaultDir: string, dir: string): void {
  ensureVaultFolder(vaultDir, dir);
  mkdirSync(dir, { recursive: true });
}

/** Each existing folder from below `vaultDir` down to `dir` (included) must be a real folder, not a link. */
function ensureNoLinkedFolder(vaultDir: string, dir: string): void {
  const relative = path.relative(vaultDir, dir);
  if (relative === '') return;
  if (!isInside(vaultDir, dir)) {
    throw new UserError('project/outside', `\`${dir}\` is not inside the vault \`${vaultDir}\`: not writing there`, { link: dir });
  }
  let folder = vaultDir;
  for (const part of relative.split(path.sep)) {
    folder = path.join(folder, part);
    const stat = lstatSync(folder, { throwIfNoEntry: false });
    if (stat === undefined) return; // mkdir creates the rest, inside this folder
    if (!stat.isSymbolicLink()) continue;
    const shown = projectRoot ? show(projectRoot.root, folder) : folder;
    let to: string | undefined;
    try {
      to = realpathSync.native(folder);
    } catch {
      to = undefined; // a dangling link: writing through it would create its target
    }
    if (projectRoot && (to === undefined || !isInside(projectRoot.real, to))) {
      throw new UserError(
        'project/outside',
        `\`${shown}\` is a symbolic link to \`${to ?? 'nowhere'}\`, outside the project: not writing through it`,
        { link: shown },
      );
    }
    throw new UserError('vault/linked-folder', `\`${shown}\` is a symbolic link (to \`${to ?? 'nowhere'}\`): not writing through it`, {
      link: shown,
    });
  }
}

/** The first link on the way from `root` to `target` whose real path is outside `rootReal`. */
function firstOutsideLink(root: string, rootReal: string, target: string): { path: string; to: string } | undefined {
  const relative = path.relative(root, target);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  let current = root;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (!stat.isSymbolicLink()) continue;
    let to: string;
    try {
      to = realpathSync.native(current);
    } catch {
      return { path: current, to: 'nowhere (a dangling link)' };
    }
    if (!isInside(rootReal, to)) return { path: current, to };
  }
  return undefined;
}

/** True when `inner` is `outer` or below it (both absolute, real paths). */
export function isInside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** `target` relative to `root` (POSIX separators) when inside it, else absolute: how errors name paths. */
function show(root: string, target: string): string {
  const relative = path.relative(root, target);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? target : relative.split(path.sep).join('/');
}
