import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import type { TreeEntry } from 'isomorphic-git';
import { PackStore, type GitObject, type ObjectType } from './pack.js';

/**
 * Git objects read and written as git does (a loose object:
 * `<type> <size>\0<content>` deflated, named by its SHA-1), with node's zlib;
 * packed objects through `PackStore`. isomorphic-git deflates through web
 * streams (~10 ms an object) and reads a whole packfile before its first
 * object; a commit writes a blob per changed file, a tree per folder on the
 * way to it and the commit, and the edit-and-commit build is timed in
 * hundreds of milliseconds. The history commands (log, diff, show) still
 * read through isomorphic-git.
 */

export type { GitObject, ObjectType };

/** Reads objects of one repository: loose first, then its packs (opened once). */
export class ObjectReader {
  readonly packs: PackStore;

  constructor(private readonly gitdir: string) {
    this.packs = new PackStore(gitdir);
  }

  /** The object `oid`; throws when the repository does not have it. */
  read(oid: string): GitObject {
    const found = this.readLoose(oid) ?? this.packs.read(oid, (base) => this.readLoose(base));
    if (!found) throw new Error(`git object ${oid} is missing from ${this.gitdir} (a shallow or damaged clone?); \`git fsck\` tells more`);
    return found;
  }

  /** Closes the packs' file handles (they reopen on the next read). */
  close(): void {
    this.packs.close();
  }

  private readLoose(oid: string): GitObject | undefined {
    let raw: Buffer;
    try {
      raw = inflateSync(readFileSync(path.join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2))));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`git object ${oid} in ${this.gitdir} cannot be read: ${(error as Error).message}`);
    }
    const headerEnd = raw.indexOf(0);
    const [type, size] = raw.toString('latin1', 0, Math.max(headerEnd, 0)).split(' ');
    if (headerEnd < 0 || !['commit', 'tree', 'blob', 'tag'].includes(type ?? '') || Number(size) !== raw.length - headerEnd - 1) {
      throw new Error(`git object ${oid} in ${this.gitdir} is damaged (bad header); \`git fsck\` tells more`);
    }
    return { type: type as ObjectType, content: raw.subarray(headerEnd + 1) };
  }
}

/** Parses a tree object's content into entries (modes padded to six digits, as isomorphic-git gives them). */
export function parseTree(content: Buffer, oid: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let offset = 0; offset < content.length; ) {
    const space = content.indexOf(0x20, offset);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new Error(`git tree ${oid} is damaged; \`git fsck\` tells more`);
    const mode = content.toString('latin1', offset, space).padStart(6, '0');
    entries.push({ mode, path: content.toString('utf8', space + 1, nul), oid: content.toString('hex', nul + 1, nul + 21), type: mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob' });
    offset = nul + 21;
  }
  return entries;
}

/** The root tree id of a commit object's content (its first line, `tree <id>`). */
export function commitTree(content: Buffer, oid: string): string {
  const match = /^tree ([0-9a-f]{40})\n/.exec(content.toString('latin1', 0, 46));
  if (!match) throw new Error(`git commit ${oid} is damaged (no tree line); \`git fsck\` tells more`);
  return match[1]!;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** A commit object's content, as `git commit` writes it (UTC, `+0000`). */
export function commitContent(commit: { tree: string; parents: readonly string[]; author: Signature; committer: Signature; message: string }): Buffer {
  const person = (who: Signature) => `${who.name} <${who.email}> ${who.timestamp} +0000`;
  const lines = [`tree ${commit.tree}`, ...commit.parents.map((parent) => `parent ${parent}`), `author ${person(commit.author)}`, `committer ${person(commit.committer)}`];
  return Buffer.from(`${lines.join('\n')}\n\n${commit.message}`, 'utf8');
}

/** Writes an object unless the repository has it loose already; returns its id. A packed copy is simply written again, loose (git allows both). */
export function writeLooseObject(gitdir: string, type: 'blob' | 'tree' | 'commit', content: Buffer): string {
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
