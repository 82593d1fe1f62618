import type { TreeEntry } from 'isomorphic-git';
import { parseTree, treeContent, writeLooseObject } from './objects.js';
import type { Repo } from './repo.js';

/**
 * Edits a commit's tree along a few paths: only the trees on the way to a
 * changed path are read and written again, so the cost grows with what
 * changed, not with the size of the repository. Committing from HEAD's tree
 * (not from the index) is what keeps a person's staged work out of
 * memvault's commits.
 */

/** A file to put at a path (`mode` as git writes it, e.g. `100644`), or `null` to remove the path. */
export type TreeChange = { oid: string; mode: string } | null;

/** The blob id and mode at `filepath` in `treeOid`, if there is a file there. */
export function blobAt(repo: Repo, treeOid: string | undefined, filepath: string): { oid: string; mode: string } | undefined {
  if (!treeOid) return undefined;
  const parts = filepath.split('/');
  let oid = treeOid;
  for (let i = 0; i < parts.length; i++) {
    const entries = readEntries(repo, oid);
    const entry = entries.find((e) => e.path === parts[i]);
    if (!entry) return undefined;
    if (i === parts.length - 1) return entry.type === 'blob' ? { oid: entry.oid, mode: entry.mode } : undefined;
    if (entry.type !== 'tree') return undefined;
    oid = entry.oid;
  }
  return undefined;
}

/**
 * Applies `changes` (repository-relative POSIX paths) to `treeOid` (undefined
 * for an empty tree) and returns the new root tree id, writing only the
 * trees that changed. Folders left empty disappear, as in git.
 */
export function editTree(repo: Repo, treeOid: string | undefined, changes: ReadonlyMap<string, TreeChange>): string {
  const nested = nest(changes);
  return editLevel(repo, treeOid, nested) ?? writeLooseObject(repo.gitdir, 'tree', treeContent([]));
}

interface Level {
  files: Map<string, TreeChange>;
  folders: Map<string, Level>;
}

function nest(changes: ReadonlyMap<string, TreeChange>): Level {
  const root: Level = { files: new Map(), folders: new Map() };
  for (const [filepath, change] of changes) {
    const parts = filepath.split('/');
    let level = root;
    for (const part of parts.slice(0, -1)) {
      let next = level.folders.get(part);
      if (!next) {
        next = { files: new Map(), folders: new Map() };
        level.folders.set(part, next);
      }
      level = next;
    }
    level.files.set(parts[parts.length - 1]!, change);
  }
  return root;
}

/** Returns the new tree id, or undefined when the tree ends up empty. */
function editLevel(repo: Repo, treeOid: string | undefined, level: Level): string | undefined {
  const entries = new Map<string, TreeEntry>((treeOid ? readEntries(repo, treeOid) : []).map((e) => [e.path, e]));
  let changed = false;
  for (const [name, change] of level.files) {
    const current = entries.get(name);
    if (change === null) {
      if (current && current.type !== 'tree') {
        entries.delete(name);
        changed = true;
      }
    } else if (!current || current.oid !== change.oid || current.mode !== change.mode) {
      entries.set(name, { mode: change.mode, path: name, oid: change.oid, type: 'blob' });
      changed = true;
    }
  }
  for (const [name, sub] of level.folders) {
    const current = entries.get(name);
    const currentTree = current?.type === 'tree' ? current.oid : undefined;
    const next = editLevel(repo, currentTree, sub);
    if (next === currentTree && (current === undefined || current.type === 'tree')) continue;
    if (next === undefined) {
      if (currentTree !== undefined) {
        entries.delete(name);
        changed = true;
      }
      continue;
    }
    entries.set(name, { mode: '040000', path: name, oid: next, type: 'tree' });
    changed = true;
  }
  if (!changed) return treeOid;
  if (entries.size === 0) return undefined;
  return writeLooseObject(repo.gitdir, 'tree', treeContent([...entries.values()]));
}

/** A tree's entries (loose or packed), parsed once per command. */
export function readEntries(repo: Repo, oid: string): TreeEntry[] {
  const known = repo.trees.get(oid);
  if (known) return known;
  const object = repo.objects.read(oid);
  if (object.type !== 'tree') throw new Error(`git object ${oid} is a ${object.type}, not a tree`);
  const tree = parseTree(object.content, oid);
  repo.trees.set(oid, tree);
  return tree;
}
