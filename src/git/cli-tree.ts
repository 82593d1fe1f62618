import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TreeFile } from './backend-api.js';

/**
 * Tree edits with the git command, along the changed paths only: `ls-tree`
 * lists the folders on the way to each path, `mktree --batch` writes the
 * changed folders bottom-up. A 20,000-file repository costs what a
 * 10-file one does: loading its whole tree into an index (`read-tree`,
 * `write-tree`) took ~0.5 s of CPU on a busy 2-core machine; this takes
 * two git processes.
 *
 * Names are bytes to git, and a committed name need not be UTF-8 (a file a
 * person committed as `caf\xe9.md`). The entries of a listed folder go back
 * into `mktree` as the bytes `ls-tree` gave (both sides read and write them
 * as latin1, one character a byte): a folder memvault rewrites never renames
 * the other files in it.
 */

export interface TreeItem {
  mode: string;
  type: string;
  oid: string;
  /** The entry's name as git stores it, one character a byte (`rawName`). */
  name: string;
}

type Run = (
  args: readonly string[],
  options?: { input?: string; env?: NodeJS.ProcessEnv; encoding?: BufferEncoding },
) => Promise<{ stdout: string }>;

/** A name as git stores it (its UTF-8 bytes), one character a byte: what `ls-tree` prints and `mktree` reads as latin1. */
export const rawName = (name: string): string => Buffer.from(name, 'utf8').toString('latin1');

/** Every folder above `file` ('' for the root included), e.g. `a/b/c.md` → ['', 'a', 'a/b']. */
export function foldersAbove(file: string): string[] {
  const parts = file.split('/').slice(0, -1);
  return ['', ...parts.map((_, i) => parts.slice(0, i + 1).join('/'))];
}

/** Listings of folders of one tree-ish, each read once (one `ls-tree` per batch of folders). */
export class FolderListings {
  private readonly known = new Map<string, Map<string, TreeItem>>();

  constructor(
    private readonly run: Run,
    private readonly treeish: string | undefined,
  ) {}

  /** Lists what is not yet known of `folders`; a folder the tree does not hold lists as empty. */
  async load(folders: Iterable<string>): Promise<void> {
    const missing = [...new Set(folders)].filter((folder) => !this.known.has(folder));
    if (missing.length === 0) return;
    const loading = new Map(missing.map((folder) => [folder, new Map<string, TreeItem>()]));
    if (this.treeish) {
      const jobs: Promise<void>[] = [];
      if (loading.has('')) jobs.push(this.list([], loading));
      const named = missing.filter(Boolean).map((folder) => `${folder}/`);
      for (let i = 0; i < named.length; i += 1000) jobs.push(this.list(named.slice(i, i + 1000), loading));
      await Promise.all(jobs);
    }
    for (const [folder, items] of loading) this.known.set(folder, items);
  }

  /** The entries of a loaded folder (a UTF-8 path; '' for the root), names as git stores them. */
  get(folder: string): TreeItem[] {
    return [...(this.known.get(folder)?.values() ?? [])];
  }

  /** The entry of `file` (a UTF-8 path) in its loaded folder. */
  file(file: string): TreeItem | undefined {
    return this.known.get(parentOf(file))?.get(rawName(path.posix.basename(file)));
  }

  private async list(folders: readonly string[], into: Map<string, Map<string, TreeItem>>): Promise<void> {
    // -t: a folder ls-tree recurses into (for a deeper path) is still listed in its parent.
    const { stdout } = await this.run(
      ['ls-tree', '-t', '-z', '--full-tree', this.treeish!, ...(folders.length ? ['--', ...folders] : [])],
      { env: { GIT_LITERAL_PATHSPECS: '1' }, encoding: 'latin1' },
    );
    // Folders are keyed by their UTF-8 paths (those on the way to memvault's paths); names stay as git's bytes.
    const folderOf = new Map([...into.keys()].map((folder) => [rawName(folder), folder]));
    for (const record of stdout.split('\0')) {
      if (!record) continue;
      const tab = record.indexOf('\t');
      // `<mode> <type> <oid>\t<path>`, the path relative to the root and never ending in `/`: its folder and name are
      // either side of its last `/` (path.posix's basename and dirname cost ~15 ms over a 3,000-entry listing).
      const slash = record.lastIndexOf('/');
      const folder = folderOf.get(slash > tab ? record.slice(tab + 1, slash) : '');
      if (folder === undefined) continue;
      const [mode, type, oid] = record.slice(0, tab).split(' ') as [string, string, string];
      const name = record.slice(Math.max(slash, tab) + 1);
      into.get(folder)!.set(name, { mode, type, oid, name });
    }
  }
}

/**
 * Writes the tree of `listings` with `changes` applied (repository paths; null removes) and returns the root tree id.
 * Folders left empty disappear, as in git.
 */
export async function editTree(gitDir: string, listings: FolderListings, changes: ReadonlyMap<string, TreeFile | null>): Promise<string> {
  const touched = new Set<string>();
  for (const file of changes.keys()) for (const folder of foldersAbove(file)) touched.add(folder);
  await listings.load(touched);
  const edited = new Map<string, Map<string, TreeItem>>();
  for (const folder of touched) edited.set(folder, new Map(listings.get(folder).map((item) => [item.name, item])));
  for (const [file, change] of changes) {
    const items = edited.get(parentOf(file))!;
    const name = rawName(path.posix.basename(file));
    if (change) items.set(name, { mode: change.mode, type: 'blob', oid: change.oid, name });
    else if (items.get(name)?.type === 'blob') items.delete(name);
  }
  // Deepest level first, so each folder's new id is known before its parent is written; the folders of one level are
  // sent together (one round trip per level, not per folder).
  const levels = new Map<number, string[]>();
  for (const folder of touched) levels.set(depth(folder), [...(levels.get(depth(folder)) ?? []), folder]);
  const mktree = new MkTree(gitDir);
  try {
    let root = '';
    for (const level of [...levels.keys()].sort((a, b) => b - a)) {
      const written = levels
        .get(level)!
        .sort()
        .flatMap((folder) => {
          const items = edited.get(folder)!;
          if (folder && items.size === 0) {
            edited.get(parentOf(folder))!.delete(rawName(path.posix.basename(folder)));
            return [];
          }
          const oid = mktree.write([...items.values()]);
          oid.catch(() => undefined); // awaited below; a failure surfaces there, once
          return [{ folder, oid }];
        });
      for (const { folder, oid: pending } of written) {
        const oid = await pending;
        if (!folder) root = oid;
        else {
          const name = rawName(path.posix.basename(folder));
          edited.get(parentOf(folder))!.set(name, { mode: '040000', type: 'tree', oid, name });
        }
      }
    }
    return root;
  } finally {
    mktree.end();
  }
}

const depth = (folder: string) => (folder ? folder.split('/').length : 0);
const parentOf = (folder: string) => path.posix.dirname(folder).replace(/^\.$/, '');

/** One `git mktree --batch -z` process: each tree written is answered with its id on a line. */
class MkTree {
  private readonly child;
  private buffered = '';
  private readonly waiting: { resolve: (oid: string) => void; reject: (error: Error) => void }[] = [];
  private stderr = '';

  constructor(dir: string) {
    this.child = spawn('git', ['-C', dir, 'mktree', '--batch', '-z'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let newline = this.buffered.indexOf('\n'); newline >= 0; newline = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        this.waiting.shift()?.resolve(line.trim());
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.child.stdin.on('error', () => undefined);
    const fail = (why: string) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`git mktree ${why}: ${this.stderr.trim()}`));
    };
    this.child.on('error', (error) => fail(error.message));
    this.child.on('close', (code) => fail(`exited with ${code}`));
  }

  write(items: readonly TreeItem[]): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      // An empty record ends one tree of the batch; names are git's bytes, one character a byte.
      this.child.stdin.write(`${items.map((item) => `${item.mode} ${item.type} ${item.oid}\t${item.name}\0`).join('')}\0`, 'latin1');
    });
  }

  end(): void {
    this.child.stdin.end();
  }
}
