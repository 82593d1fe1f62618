import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { TreeEntry } from 'isomorphic-git';

/**
 * Writing git objects as git does (a loose object: `<type> <size>\0<content>`
 * deflated, named by its SHA-1), with node's zlib. isomorphic-git deflates
 * through web streams, ~10 ms an object; a commit writes a blob per changed
 * file and a tree per folder on the way to it, and the edit-and-commit build
 * is timed in hundreds of milliseconds.
 */

/** Writes an object unless the repository has it loose already; returns its id. A packed copy is simply written again, loose (git allows both). */
export function writeLooseObject(gitdir: string, type: 'blob' | 'tree', content: Buffer): string {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'latin1'), content]);
  const oid = createHash('sha1').update(raw).digest('hex');
  const dir = path.join(gitdir, 'objects', oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (existsSync(file)) return oid;
  mkdirSync(dir, { recursive: true });
  // A temporary name, then a rename: a reader never sees half an object.
  const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, deflateSync(raw), { mode: 0o444 });
  renameSync(temp, file);
  return oid;
}

/**
 * A tree object's content: entries in git's order (names compared as bytes,
 * a folder as if its name ended in `/`), each `<mode> <name>\0<20-byte id>`,
 * modes without leading zeros (`40000` for a folder).
 */
export function treeContent(entries: readonly TreeEntry[]): Buffer {
  const key = (entry: TreeEntry): Buffer => Buffer.from(entry.type === 'tree' ? `${entry.path}/` : entry.path, 'utf8');
  const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
  return Buffer.concat(
    sorted.flatMap((entry) => [Buffer.from(`${entry.mode.replace(/^0+/, '')} ${entry.path}\0`, 'utf8'), Buffer.from(entry.oid, 'hex')]),
  );
}
