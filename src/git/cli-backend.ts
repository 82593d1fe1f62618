import { spawn } from 'node:child_process';
import { MemvaultError, UserError } from '../util/errors.js';
import { formatOffset, type GitBackend, type Signature, type Staging, type TreeFile } from './backend-api.js';
import { editTree, FolderListings, foldersAbove } from './cli-tree.js';
import type { HeadState, Repo } from './repo.js';

/**
 * The git command as memvault's git backend. A commit is made with plumbing
 * from the parent's tree, never from the index: blobs from `hash-object -w
 * --stdin-paths` (the path's clean filters, LFS and line-ending conversion
 * apply), the folders along exactly the build's paths rewritten with
 * `ls-tree` and `mktree` (cli-tree.ts), `commit-tree` (no hooks, no signing,
 * as before), then `update-ref <ref> <new> <old>`: git's own
 * compare-and-swap and ref lock. The person's index is touched last, for exactly those paths,
 * by `update-index --add --remove` under git's index lock. SHA-256
 * repositories work as any other: object ids are whatever git prints.
 */

interface RunOptions {
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** Exit codes that are answers, not failures (e.g. 1 for `check-ignore`, `symbolic-ref -q`). */
  ok?: readonly number[];
  /** How stdout is decoded: `latin1` keeps every byte of a name that is not UTF-8 (cli-tree.ts). Default UTF-8. */
  encoding?: BufferEncoding;
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `git -C <dir> <args>`; rejects with git's message on an exit code not in `ok` (default: 0 only). */
function run(dir: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // No hooks, as before the git command was used: update-ref would run reference-transaction, index writes post-index-change.
    const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', ...options.env };
    const child = spawn('git', ['-C', dir, '-c', 'core.hooksPath=/dev/null', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    // A git that exits before reading its input (an error) must not turn into an EPIPE crash.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => {
      const result = {
        code: code ?? -1,
        stdout: Buffer.concat(out).toString(options.encoding ?? 'utf8'),
        stderr: Buffer.concat(err).toString('utf8').trim(),
      };
      if (result.code === 0 || options.ok?.includes(result.code)) resolve(result);
      else reject(new GitCommandError(args, result));
    });
  });
}

/** A git command that failed; internal unless a caller turns it into a `UserError` (a locked ref, a moved branch). */
export class GitCommandError extends MemvaultError {
  constructor(
    readonly args: readonly string[],
    readonly result: RunResult,
  ) {
    super('git/command', `git ${args[0]} failed (exit ${result.code}): ${result.stderr.split('\n')[0] ?? ''}`);
    this.name = 'GitCommandError';
  }
}

/** Splits NUL-terminated output. */
const records = (text: string): string[] => text.split('\0').filter(Boolean);

/**
 * The input of `hash-object --stdin-paths`: one path a line. It has no `-z`, but it reads a line that starts with `"` as
 * a C-quoted name (git's `unquote_c_style`), so a name holding a line break or another control character (a carriage
 * return some git versions strip from a line's end), or starting with a quote, is sent quoted, the way git prints such
 * names: every file name git can store is hashed, and one odd name never shifts the ids of the others.
 */
function stdinPaths(paths: readonly string[]): string {
  return paths.map((p) => `${/[\u0000-\u001f\u007f]/.test(p) || p.startsWith('"') ? cQuote(p) : p}\n`).join('');
}

/** `"…"` with git's C escapes: backslash, quote and control characters (as `\n`, `\t`… or octal). */
function cQuote(name: string): string {
  const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r' };
  const escaped = name.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => named[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
  return `"${escaped}"`;
}

/** The object ids `hash-object` printed, one a line, checked to be one per path sent. */
function objectIds(stdout: string, expected: number): string[] {
  const ids = stdout.split('\n').filter(Boolean);
  if (ids.length !== expected) throw new Error(`git hash-object returned ${ids.length} ids for ${expected} files`);
  return ids;
}

/** Environment that keeps memvault's own reads from taking git's optional locks (git status refreshing the index). */
const NO_OPTIONAL_LOCKS = { GIT_OPTIONAL_LOCKS: '0' };

export const cliBackend: GitBackend = {
  kind: 'cli',

  async headState(repo: Repo): Promise<HeadState> {
    // One process in the usual case (each costs ~10-20 ms of CPU): the commit HEAD resolves to, then the ref it names
    // (`HEAD` when detached). The trailing `--` keeps a work-tree file named HEAD from making the name ambiguous.
    const both = await run(repo.dir, ['rev-parse', 'HEAD', '--symbolic-full-name', 'HEAD', '--'], { ok: [128] });
    const [commit, name] = both.stdout.split('\n');
    if (both.code === 0 && commit && name) {
      if (name === 'HEAD') return { detached: commit };
      if (name.startsWith('refs/heads/')) return { branch: name.slice('refs/heads/'.length), ref: name, oid: commit };
    }
    // A branch without commits (HEAD resolves to nothing) or anything unusual: ask for each part on its own.
    const [symbolic, resolved] = await Promise.all([
      run(repo.dir, ['symbolic-ref', '-q', 'HEAD'], { ok: [1] }),
      run(repo.dir, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ok: [1] }),
    ]);
    const oid = resolved.code === 0 ? resolved.stdout.trim() : undefined;
    if (symbolic.code === 1) return { detached: oid ?? '' };
    const ref = symbolic.stdout.trim();
    return { branch: ref.replace(/^refs\/heads\//, ''), ref, oid };
  },

  async configuredIdentity(repo: Repo) {
    // `git config` follows includes, the global and the system file: the identity `git commit` would use.
    const result = await run(repo.dir, ['config', '--get-regexp', '^user\\.(name|email)$'], { ok: [1] });
    const values = new Map<string, string>();
    for (const line of result.stdout.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) values.set(line.slice(0, space).toLowerCase(), line.slice(space + 1).trim());
    }
    const name = values.get('user.name');
    const email = values.get('user.email');
    return name && email ? { name, email } : undefined;
  },

  async checkCommittable(): Promise<void> {
    // git itself handles object formats, filters, includes and worktrees.
  },

  async changedUnder(repo: Repo, prefix: string): Promise<string[]> {
    const status = await run(
      repo.dir,
      ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', prefix ? `:(top,literal)${prefix}` : ':(top)'],
      { env: NO_OPTIONAL_LOCKS },
    );
    return records(status.stdout).map((record) => record.slice(3));
  },

  async blobIds(repo: Repo, files: readonly { path: string; bytes: Uint8Array }[]): Promise<(string | undefined)[]> {
    if (files.length === 0) return [];
    const input = stdinPaths(files.map((file) => file.path));
    // The blob as a commit of the path stores it (its clean filter, text/eol conversion applied), and the file's bytes as
    // they are (`--no-filters`): where the two differ, the blob does not hold the file's bytes, and a checkout of it may
    // not give them back, so no id is given. Git hashes in the repository's object format (SHA-1 or SHA-256).
    const [stored, raw] = await Promise.all([
      run(repo.dir, ['hash-object', '--stdin-paths'], { input }),
      run(repo.dir, ['hash-object', '--no-filters', '--stdin-paths'], { input }),
    ]);
    const storedIds = objectIds(stored.stdout, files.length);
    const rawIds = objectIds(raw.stdout, files.length);
    return files.map((_, i) => (storedIds[i] === rawIds[i] ? storedIds[i] : undefined));
  },

  async unchangedBlobs(repo: Repo, prefix: string, paths: readonly string[]): Promise<Map<string, string> | undefined> {
    const spec = prefix ? `:(top,literal)${prefix}` : ':(top)';
    let answers: RunResult[];
    try {
      // Four short processes at once (~50-150 ms at 20,000 files, started before the caller's synchronous work).
      answers = await Promise.all([
        run(repo.dir, ['ls-files', '--stage', '-z', '--', spec]),
        run(repo.dir, ['diff-files', '--name-only', '-z', '--', spec], { env: NO_OPTIONAL_LOCKS }),
        run(repo.dir, ['check-attr', '-z', '--stdin', ...CHECKOUT_ATTRIBUTES], { input: paths.map((p) => `${p}\0`).join('') }),
        run(repo.dir, ['config', '-z', '--get-regexp', '^core\\.(autocrlf|eol)$'], { ok: [1] }),
      ]);
    } catch (error) {
      if (error instanceof GitCommandError) return undefined; // not a work tree, a broken index…
      throw error;
    }
    const [index, dirty, attributes, config] = answers as [RunResult, RunResult, RunResult, RunResult];
    // Triples of path, attribute, value; split as is (a value may be empty).
    const converted = convertedOnCheckout(attributes.stdout.split('\0'), configValues(config.stdout));
    const changed = new Set(records(dirty.stdout));
    const wanted = new Set(paths);
    const out = new Map<string, string>();
    for (const line of records(index.stdout)) {
      // `<mode> <blob> <stage>\t<path>`: a path in a merge conflict has no stage 0; only regular files count.
      const tab = line.indexOf('\t');
      const [mode, blob, stage] = line.slice(0, tab).split(' ');
      const file = line.slice(tab + 1);
      if (blob && stage === '0' && mode?.startsWith('100') && wanted.has(file) && !changed.has(file) && !converted.has(file)) {
        out.set(file, blob);
      }
    }
    return out;
  },

  async storeBlobs(repo: Repo, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await run(repo.dir, ['hash-object', '-w', '--stdin-paths'], { input: stdinPaths(paths) });
  },

  async stage(repo: Repo, parent: string | undefined): Promise<Staging> {
    const git = (args: readonly string[], options?: RunOptions) => run(repo.dir, args, options);
    const listings = new FolderListings(git, parent);
    return {
      async filesAt(paths) {
        const out = new Map<string, TreeFile>();
        if (!parent || paths.length === 0) return out;
        // The folders holding the paths, listed once each: the parent's entries for them, and what the tree edit starts from.
        await listings.load(new Set(paths.flatMap(foldersAbove)));
        for (const file of paths) {
          const item = listings.file(file);
          if (item?.type === 'blob') out.set(file, { mode: item.mode, oid: item.oid });
        }
        return out;
      },

      async ignored(paths) {
        if (paths.length === 0) return new Set();
        const result = await run(repo.dir, ['check-ignore', '--no-index', '-z', '--stdin'], {
          input: paths.map((p) => `${p}\0`).join(''),
          ok: [1],
        });
        return new Set(records(result.stdout));
      },

      async hashFiles(files) {
        if (files.length === 0) return [];
        // Paths, not bytes: git reads each file itself and applies its clean filter and attributes (LFS, eol).
        const result = await run(repo.dir, ['hash-object', '-w', '--stdin-paths'], { input: stdinPaths(files.map((f) => f.path)) });
        return objectIds(result.stdout, files.length);
      },

      async commit(changes, message, who) {
        const tree = await editTree(repo.dir, listings, changes);
        const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : [])];
        const commit = await run(repo.dir, args, { input: message, env: identityEnv(who) });
        return commit.stdout.trim();
      },

      async moveRef(ref, oid, parentOid, subject, who) {
        try {
          await run(repo.dir, ['update-ref', '-m', `commit${parentOid ? '' : ' (initial)'}: ${subject}`, ref, oid, parentOid ?? ''], {
            env: identityEnv(who),
          });
        } catch (error) {
          if (!(error instanceof GitCommandError)) throw error;
          const branch = ref.replace(/^refs\/heads\//, '');
          if (/\.lock'?: File exists/i.test(error.result.stderr)) {
            const reason = `the branch \`${branch}\` is locked (${ref}.lock exists): another git command is updating it`;
            throw new UserError('git/ref-locked', reason, { lock: `.git/${ref}.lock` });
          }
          throw new UserError(
            'git/head-moved',
            `the branch \`${branch}\` moved while the build was running (${error.result.stderr.split('\n')[0]})`,
          );
        }
      },

      async refreshIndex(paths) {
        if (paths.length === 0) return;
        // The real index, under git's lock; only these paths change, and unchanged ones keep their entries (git's stat shortcut).
        await run(repo.dir, ['update-index', '--add', '--remove', '-z', '--stdin'], { input: paths.map((p) => `${p}\0`).join('') });
      },

      async close() {},
    };
  },
};

/** The attributes that make a checkout differ from the blob's bytes. */
const CHECKOUT_ATTRIBUTES = ['filter', 'eol', 'text', 'ident', 'working-tree-encoding'];

/** `git config -z` output as name → value (names as git prints them: lower case). */
function configValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const entry of records(text)) {
    const newline = entry.indexOf('\n');
    values.set(newline < 0 ? entry : entry.slice(0, newline), newline < 0 ? 'true' : entry.slice(newline + 1));
  }
  return values;
}

/**
 * The paths whose checkout git converts (`check-attr -z` triples): a smudge filter, `ident`, a working-tree encoding,
 * CRLF line endings (`eol=crlf`; a text file under `core.autocrlf=true`, or under `core.eol=crlf`, native on Windows).
 */
function convertedOnCheckout(fields: readonly string[], config: ReadonlyMap<string, string>): Set<string> {
  const autocrlf = /^(true|yes|on|1)$/i.test(config.get('core.autocrlf') ?? '');
  const coreEol = config.get('core.eol') ?? (process.platform === 'win32' ? 'crlf' : 'lf');
  const out = new Set<string>();
  const given = (value: string) => value !== 'unspecified' && value !== 'unset';
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [file, name, value] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
    const converts =
      ((name === 'filter' || name === 'ident' || name === 'working-tree-encoding') && given(value)) ||
      (name === 'eol' && value === 'crlf') ||
      (name === 'text' && value !== 'unset' && (autocrlf || (coreEol === 'crlf' && (value === 'set' || value === 'auto'))));
    if (converts) out.add(file);
  }
  return out;
}

function identityEnv(who: Signature): NodeJS.ProcessEnv {
  const date = `${who.seconds} ${formatOffset(who.offsetMinutes)}`;
  return {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: date,
  };
}
