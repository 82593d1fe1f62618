import fs, { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';
import { UserError } from '../util/errors.js';
import { formatOffset, type GitBackend, type Signature, type Staging, type TreeFile } from './backend-api.js';
import type { HeadState, Repo } from './repo.js';

/**
 * isomorphic-git as memvault's git backend, for machines without a git
 * binary. Objects go through isomorphic-git's object API; only the trees
 * along changed paths are read and written again. What it cannot do as git
 * does is refused before the build writes anything: SHA-256 repositories,
 * and repositories whose attributes name a `filter=` (LFS and other clean
 * filters would be bypassed). Line endings are stored as the files hold
 * them (memvault writes LF). Branch and index updates take git's own lock
 * files (`<ref>.lock`, `index.lock`, created exclusively), so a git command
 * running at the same time is never overwritten.
 */

export const isoBackend: GitBackend = {
  kind: 'isomorphic',

  async headState(repo: Repo): Promise<HeadState> {
    const head = await git.currentBranch({ fs, gitdir: repo.gitdir, fullname: true });
    let oid: string | undefined;
    try {
      oid = await git.resolveRef({ fs, gitdir: repo.gitdir, ref: 'HEAD' });
    } catch {
      oid = undefined; // a branch without commits
    }
    if (!head) return { detached: oid ?? '' };
    return { branch: head.replace(/^refs\/heads\//, ''), ref: head, oid };
  },

  async configuredIdentity(repo: Repo) {
    // The repository's own config only: isomorphic-git reads no global config.
    const name = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'user.name' });
    const email = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'user.email' });
    return typeof name === 'string' && typeof email === 'string' && name && email ? { name, email } : undefined;
  },

  async checkCommittable(repo: Repo): Promise<void> {
    if (existsSync(path.join(repo.gitdir, 'commondir'))) {
      throw new UserError(
        'git/worktree',
        `\`${repo.dir}\` is a linked git worktree, which memvault can commit to only through the git command`,
      );
    }
    const format = await objectFormat(repo);
    if (format !== 'sha1') {
      throw new UserError(
        'git/object-format',
        `${repo.dir} is a ${format.toUpperCase()} git repository, which memvault can commit to only through the git command`,
      );
    }
    refuseFilters(repo, attributeFiles(repo));
  },

  async changedUnder(repo: Repo, prefix: string): Promise<string[]> {
    let rows: Awaited<ReturnType<typeof git.statusMatrix>>;
    try {
      rows = await git.statusMatrix({ fs, dir: repo.dir, gitdir: repo.gitdir, filepaths: [prefix || '.'], cache: repo.cache });
    } catch (error) {
      // A name that is not UTF-8 reads as U+FFFD and names no file Node can open: isomorphic-git's walk stops on it.
      // isomorphic-git passes on the message only: `ENOENT: no such file or directory, lstat '<path>'`.
      const message = error instanceof Error ? error.message : '';
      const file = /^ENOENT\b.*'([^']*\uFFFD[^']*)'/.exec(message)?.[1];
      if (file !== undefined) {
        throw new UserError('git/file-name', `\`${file}\` has a name that is not UTF-8, which isomorphic-git cannot read`);
      }
      throw error;
    }
    return rows.filter(([, headStatus, workdir, stage]) => !(headStatus === 1 && workdir === 1 && stage === 1)).map(([file]) => file);
  },

  async blobIds(repo: Repo, files: readonly { path: string; bytes: Uint8Array }[]): Promise<(string | undefined)[]> {
    // isomorphic-git hashes SHA-1 only, and stores the bytes as they are (no filter runs, no line endings change).
    if (!(await isSha1(repo))) return files.map(() => undefined);
    const texts = new Map<string, string>();
    const out: (string | undefined)[] = [];
    for (const file of files) {
      const filtered = matchingFile(attributeFilesOf(repo, file.path), FILTER, texts) !== undefined;
      out.push(filtered ? undefined : (await git.hashBlob({ object: file.bytes })).oid);
    }
    return out;
  },

  async unchangedBlobs(): Promise<undefined> {
    // Vouches for nothing, so the files are read and their SHA-256 compared with the record's (the parse is still saved).
    // isomorphic-git can tell (a STAGE + WORKDIR walk), but its work-tree ids take one index round per file: 2.3-2.7 s at
    // 20,000 files on the development machine, where reading and hashing them all takes ~0.1-0.3 s.
    return undefined;
  },

  async stage(repo: Repo, parent: string | undefined): Promise<Staging> {
    const { gitdir } = repo;
    attributeTexts.clear();
    const listing = await parentListing(repo, parent);
    const dirOf = (file: string) => path.posix.dirname(file).replace(/^\.$/, '');

    return {
      async filesAt(paths) {
        const out = new Map<string, TreeFile>();
        for (const file of paths) {
          const entry = (await listing(dirOf(file))).find((e) => e.path === path.posix.basename(file));
          if (entry && entry.type === 'blob') out.set(file, { mode: entry.mode, oid: entry.oid });
        }
        return out;
      },

      async ignored(paths) {
        const out = new Set<string>();
        for (const file of paths) if (await git.isIgnored({ fs, dir: repo.dir, gitdir, filepath: file })) out.add(file);
        return out;
      },

      async hashFiles(files) {
        refuseFilters(
          repo,
          files.flatMap((file) => ancestorAttributes(repo, file.path)),
        );
        const oids: string[] = [];
        for (const file of files) oids.push(await git.writeBlob({ fs, gitdir, blob: file.bytes }));
        return oids;
      },

      async commit(changes, message, who) {
        const tree = await editTree(gitdir, listing, '', changes);
        const signature = { name: who.name, email: who.email, timestamp: who.seconds, timezoneOffset: -who.offsetMinutes };
        return git.writeCommit({
          fs,
          gitdir,
          commit: { tree, parent: parent ? [parent] : [], author: signature, committer: signature, message },
        });
      },

      moveRef: (ref, oid, parentOid, subject, who) => moveRef(gitdir, { ref, oid, parentOid, subject, who }),

      refreshIndex: (paths) => refreshIndex(repo, paths),

      async close() {},
    };
  },
};

/**
 * A reader of the parent commit's tree: the entries of the folder `dir` ('' for
 * the root), each folder read once; [] when the tree has no such folder (or
 * there is no parent).
 */
async function parentListing(repo: Repo, parent: string | undefined): Promise<(dir: string) => Promise<TreeEntry[]>> {
  const { gitdir, cache } = repo;
  const rootTree = parent ? (await git.readCommit({ fs, gitdir, oid: parent, cache })).commit.tree : undefined;
  const listings = new Map<string, TreeEntry[]>();
  return async (dir: string): Promise<TreeEntry[]> => {
    if (!rootTree) return [];
    let known = listings.get(dir);
    if (!known) {
      try {
        known = (await git.readTree({ fs, gitdir, oid: rootTree, filepath: dir || undefined, cache })).tree;
      } catch (error) {
        // Only a folder the tree does not hold is empty: a folder read as empty would lose its files in the commit.
        const code = (error as { code?: string }).code;
        if (code === 'UnsafeFilepathError') throw unsafeName(dir);
        if (code !== 'NotFoundError') throw error;
        known = [];
      }
      listings.set(dir, known);
    }
    return known;
  };
}

/**
 * Moves a branch to `oid` only while it still points to `parentOid`
 * (compare-and-swap under the ref's lock file), then appends the reflog lines
 * git would write.
 */
async function moveRef(
  gitdir: string,
  move: { ref: string; oid: string; parentOid: string | undefined; subject: string; who: Signature },
): Promise<void> {
  const { ref, oid, parentOid, subject, who } = move;
  const branch = ref.replace(/^refs\/heads\//, '');
  await withLock(path.join(gitdir, ...ref.split('/')), `the branch \`${branch}\``, 'git/ref-locked', async () => {
    let current: string | undefined;
    try {
      current = await git.resolveRef({ fs, gitdir, ref });
    } catch {
      current = undefined;
    }
    if (current !== parentOid) {
      throw new UserError('git/head-moved', `the branch \`${branch}\` moved while the build was running`);
    }
    await git.writeRef({ fs, gitdir, ref, value: oid, force: true });
  });
  const zero = '0'.repeat(oid.length);
  const ident = `${who.name} <${who.email}> ${who.seconds} ${formatOffset(who.offsetMinutes)}`;
  const line = `${parentOid ?? zero} ${oid} ${ident}\tcommit${parentOid ? '' : ' (initial)'}: ${subject}\n`;
  for (const log of [path.join(gitdir, 'logs', ...ref.split('/')), path.join(gitdir, 'logs', 'HEAD')]) {
    try {
      fs.mkdirSync(path.dirname(log), { recursive: true });
      fs.appendFileSync(log, line);
    } catch {
      // A reflog is a convenience; the commit stands without it.
    }
  }
}

/** Brings the index entries of `paths` to the work tree (added, or removed when the file is gone), under the index lock. */
async function refreshIndex(repo: Repo, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const { gitdir, cache } = repo;
  await withLock(path.join(gitdir, 'index'), 'the git index', 'git/index-locked', async () => {
    for (const file of paths) {
      const absolute = path.join(repo.dir, ...file.split('/'));
      const present = existsSync(absolute);
      // isomorphic-git reads a backslash as a folder separator when it opens a file: such a name (a plain character
      // to git on Linux and macOS) is entered by its blob id instead, and git refreshes its stat data when it next looks.
      const byId = present && file.includes('\\') ? await blobEntry(absolute) : {};
      await git.updateIndex({
        fs,
        dir: repo.dir,
        gitdir,
        filepath: file,
        cache,
        ...(present ? { add: true, ...byId } : { remove: true }),
      });
    }
  });
}

/** Writes the tree of folder `dir` with `changes` (paths relative to the root) applied; undefined when it ends up empty. */
async function editTree(
  gitdir: string,
  listing: (dir: string) => Promise<TreeEntry[]>,
  dir: string,
  changes: ReadonlyMap<string, TreeFile | null>,
): Promise<string> {
  const prefix = dir ? `${dir}/` : '';
  if (!dir) for (const file of changes.keys()) if (file.includes('\\')) throw unsafeName(file);
  const entries = new Map((await listing(dir)).map((e) => [e.path, e]));
  // isomorphic-git reads names as UTF-8 and writes them so: a name that is not (U+FFFD once read) would be renamed in the
  // commit. Refused instead, before the branch moves; the git command keeps such names as they are.
  const odd = [...entries.keys()].find((name) => name.includes('\uFFFD'));
  if (odd !== undefined) {
    throw new UserError(
      'git/file-name',
      `\`${prefix}${odd}\` in the branch has a name that is not UTF-8, which isomorphic-git would rename in memvault's commit`,
    );
  }
  const folders = new Set<string>();
  for (const [file, change] of changes) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) folders.add(rest.slice(0, slash));
    else if (change) entries.set(rest, { mode: change.mode, path: rest, oid: change.oid, type: 'blob' });
    else if (entries.get(rest)?.type === 'blob') entries.delete(rest);
  }
  for (const name of folders) {
    const oid = await editTree(gitdir, listing, `${prefix}${name}`, changes);
    if (oid === EMPTY) entries.delete(name);
    else entries.set(name, { mode: '040000', path: name, oid, type: 'tree' });
  }
  if (entries.size === 0 && dir) return EMPTY;
  return git.writeTree({ fs, gitdir, tree: [...entries.values()] });
}

const EMPTY = '';

/**
 * isomorphic-git refuses to read a tree holding a name with a backslash (a path separator on Windows), so it could never
 * commit the folder of such a file again: refused before the branch moves, as the git command stores it as it is.
 */
function unsafeName(where: string): UserError {
  return new UserError(
    'git/file-name',
    `\`${where}\` is or holds a name with a backslash, which isomorphic-git refuses to read or write in a commit`,
  );
}

/** The blob id and mode of a work-tree file, for an index entry isomorphic-git cannot stat by its name. */
async function blobEntry(absolute: string): Promise<{ oid: string; mode: number }> {
  const { oid } = await git.hashBlob({ object: readFileSync(absolute) });
  return { oid, mode: fs.statSync(absolute).mode & 0o111 ? 0o100755 : 0o100644 };
}

/** git's lock protocol: `<file>.lock` created exclusively while `work` runs; an existing lock means another git command. */
async function withLock(file: string, what: string, rule: 'git/index-locked' | 'git/ref-locked', work: () => Promise<void>): Promise<void> {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    // A branch's first commit may need its folder (`refs/heads/notes/` for `notes/agent-1`), as git creates it.
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fd = openSync(lock, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UserError(rule, `${what} is locked (${lock} exists): another git process is running, or the lock is stale`, { lock });
    }
    throw error;
  }
  closeSync(fd);
  try {
    await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** The repository's object format, `sha1` unless `extensions.objectformat` names another. */
async function objectFormat(repo: Repo): Promise<string> {
  const format = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'extensions.objectformat' });
  return typeof format === 'string' ? format.toLowerCase() : 'sha1';
}

const isSha1 = async (repo: Repo) => (await objectFormat(repo)) === 'sha1';

/** Where git reads attributes from: `.gitattributes` files of the work tree's top two levels and `info/attributes`. */
function attributeFiles(repo: Repo): string[] {
  const out = [path.join(repo.gitdir, 'info', 'attributes'), path.join(repo.dir, '.gitattributes')];
  for (const entry of fs.readdirSync(repo.dir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name !== '.git') out.push(path.join(repo.dir, entry.name, '.gitattributes'));
  }
  return out;
}

/** The `.gitattributes` files of the folders above a repository path. */
function ancestorAttributes(repo: Repo, file: string): string[] {
  const parts = file.split('/').slice(0, -1);
  return parts.map((_, i) => path.join(repo.dir, ...parts.slice(0, i + 1), '.gitattributes'));
}

/** Every attributes file that applies to a repository path: `info/attributes`, the root's and its folders' `.gitattributes`. */
function attributeFilesOf(repo: Repo, file: string): string[] {
  return [path.join(repo.gitdir, 'info', 'attributes'), path.join(repo.dir, '.gitattributes'), ...ancestorAttributes(repo, file)];
}

const FILTER = /(^|\s)filter=/m;

/** The first of `files` whose text matches `pattern` (texts read once into `texts`; a missing file is empty). */
function matchingFile(files: readonly string[], pattern: RegExp, texts: Map<string, string>): string | undefined {
  for (const file of files) {
    let text = texts.get(file);
    if (text === undefined) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = '';
      }
      texts.set(file, text);
    }
    if (pattern.test(text)) return file;
  }
  return undefined;
}

const attributeTexts = new Map<string, string>();

/**
 * A clean filter (LFS, git-crypt, a `tr` in a test) changes what git stores for a path; isomorphic-git cannot run
 * one, so any `filter=` attribute in these files refuses the commit rather than storing the unfiltered bytes.
 */
function refuseFilters(repo: Repo, files: readonly string[]): void {
  const file = matchingFile(files, FILTER, attributeTexts);
  if (file !== undefined) {
    throw new UserError(
      'git/filter',
      `${path.relative(repo.dir, file) || file} sets a git filter (filter=), which memvault applies only through the git command`,
    );
  }
}
