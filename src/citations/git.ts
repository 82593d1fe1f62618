import { execFile } from 'node:child_process';

/**
 * The few git questions verification asks, each one `git` process for all the
 * citations at once (a process is ~2-5 ms; one per citation would cost seconds
 * at 20,000 memories). The git command line, as `git log --follow` / `-M`
 * decide renames the way a person's git does.
 */

/** Output past this is not a question verification asked: stop rather than fill memory. */
const MAX_OUTPUT = 256 * 1024 * 1024;

export function git(repo: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['-C', repo, '-c', 'core.quotePath=false', ...args],
      { maxBuffer: MAX_OUTPUT, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]} failed in ${repo}: ${String(stderr).trim() || error.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The repository's top folder holding `dir` and its HEAD commit, in one process; undefined outside a repository or without commits. */
export async function repoAndHead(dir: string): Promise<{ repo: string; head: string } | undefined> {
  try {
    const [repo, head] = (await git(dir, ['rev-parse', '--show-toplevel', 'HEAD'])).split('\n');
    return repo && head && /^[0-9a-f]{40,64}$/.test(head) ? { repo, head } : undefined;
  } catch {
    return undefined;
  }
}

/** The top folder of the repository holding `dir`, or undefined outside one. */
export async function repoTop(dir: string): Promise<string | undefined> {
  try {
    return (await git(dir, ['rev-parse', '--show-toplevel'])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** HEAD's commit id, or undefined in a repository without commits. */
export async function headCommit(repo: string): Promise<string | undefined> {
  try {
    return (await git(repo, ['rev-parse', '--verify', '-q', 'HEAD'])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** `git cat-file --batch-check` for many names: each name's object id, type and size, absent when missing or ambiguous. */
export async function objectTypes(
  repo: string,
  names: readonly string[],
): Promise<Map<string, { id: string; type: string; size: number }>> {
  const found = new Map<string, { id: string; type: string; size: number }>();
  if (names.length === 0) return found;
  const out = await git(repo, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], `${names.join('\n')}\n`);
  const lines = out.split('\n');
  names.forEach((name, i) => {
    const m = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(lines[i] ?? '');
    if (m) found.set(name, { id: m[1]!, type: m[2]!, size: Number(m[3]) });
  });
  return found;
}

/** Files larger than this are not read to count their lines (a cited data file of hundreds of MB would fill memory). */
const MAX_COUNTED_BYTES = 4 * 1024 * 1024;

/**
 * Each name's object id and type (`objectTypes`), and for a file (blob) up to `MAX_COUNTED_BYTES` how many lines it
 * has: what verification asks of cited paths at HEAD (what each is; how long a cited file is, for a line range past its
 * end). Two processes, the second only when there are files.
 */
export async function objectLines(
  repo: string,
  names: readonly string[],
): Promise<Map<string, { id: string; type: string; size: number; lines?: number }>> {
  const found: Map<string, { id: string; type: string; size: number; lines?: number }> = await objectTypes(repo, names);
  const files = names.filter((name) => {
    const object = found.get(name);
    return object?.type === 'blob' && object.size <= MAX_COUNTED_BYTES;
  });
  for (const [name, lines] of await lineCounts(repo, files)) found.get(name)!.lines = lines;
  return found;
}

/**
 * How many lines each named blob has (`git cat-file --batch`, one process; newlines counted in the bytes, a last line
 * without one counted too); a name that is not a blob is left out.
 */
async function lineCounts(repo: string, names: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (names.length === 0) return counts;
  const out = await gitBytes(repo, ['cat-file', '--batch'], `${names.join('\n')}\n`);
  let at = 0;
  for (const name of names) {
    const newline = out.indexOf(10, at);
    if (newline < 0) break;
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(out.subarray(at, newline).toString('utf8'));
    at = newline + 1;
    // `<name> missing`: nothing after the line.
    if (!m) continue;
    const end = at + Number(m[2]);
    if (m[1] === 'blob') {
      let lines = 0;
      for (let i = out.indexOf(10, at); i >= 0 && i < end; i = out.indexOf(10, i + 1)) lines++;
      if (end > at && out[end - 1] !== 10) lines++;
      counts.set(name, lines);
    }
    // The object, then one newline.
    at = end + 1;
  }
  return counts;
}

/**
 * The text of each file at `commit` (`git cat-file --batch`, one process for all); a file that is not there (or not a
 * file) is left out. Read as UTF-8: quotes are compared as text.
 */
export async function fileTexts(repo: string, commit: string, files: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (files.length === 0) return texts;
  const out = await gitBytes(repo, ['cat-file', '--batch'], `${files.map((f) => `${commit}:${f}`).join('\n')}\n`);
  let at = 0;
  for (const file of files) {
    const newline = out.indexOf(10, at);
    if (newline < 0) break;
    const header = out.subarray(at, newline).toString('utf8');
    at = newline + 1;
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!m) continue;
    const size = Number(m[2]);
    if (m[1] === 'blob') texts.set(file, out.subarray(at, at + size).toString('utf8'));
    // The object, then one newline.
    at += size + 1;
  }
  return texts;
}

function gitBytes(repo: string, args: readonly string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['-C', repo, '-c', 'core.quotePath=false', ...args],
      { maxBuffer: MAX_OUTPUT, encoding: 'buffer', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]} failed in ${repo}: ${String(stderr).trim() || error.message}`));
        else resolve(stdout);
      },
    );
    child.stdin!.end(input);
  });
}

/** A path's change in a commit, as `--name-status` prints it. */
export interface NameStatus {
  status: string;
  path: string;
  /** Renames and copies: the path it came from. */
  from?: string;
}

export interface LoggedCommit {
  id: string;
  /** Committer time, Unix seconds. */
  time: number;
  /** Committer date, ISO 8601. */
  date: string;
  changes: NameStatus[];
}

/** Commits touching `paths` (files or folders), newest first, with the paths each changed (`git log -M --name-status`). */
export async function logPaths(repo: string, head: string, paths: readonly string[]): Promise<LoggedCommit[]> {
  if (paths.length === 0) return [];
  const out = await git(repo, ['log', '-M', '--name-status', '--format=%x01%H %ct %cI', head, '--', ...paths.map(literal)]);
  return parseLog(out);
}

/**
 * The paths changed between two commits (`git diff --name-status --no-renames`): a rename is its old and its new name,
 * which is all that deciding what to ask again needs. Rename detection is left to the questions about cited paths: over
 * a build that rewrote thousands of summaries it costs seconds (seen: 7.6 s at 20,000 memories).
 */
export async function changedPaths(repo: string, from: string, to: string): Promise<string[]> {
  const out = await git(repo, ['diff', '--name-status', '--no-renames', '-z', from, to]);
  const fields = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length - 1; ) {
    const status = fields[i++]!;
    if (status.startsWith('R') || status.startsWith('C')) paths.push(fields[i++]!, fields[i++]!);
    else paths.push(fields[i++]!);
  }
  return paths;
}

/** For each commit, the renames it made (old path → new path), detected as `-M` does. */
export async function renamesIn(repo: string, commits: readonly string[]): Promise<Map<string, Map<string, string>>> {
  const renames = new Map<string, Map<string, string>>();
  if (commits.length === 0) return renames;
  const out = await git(repo, ['diff-tree', '--stdin', '--root', '-r', '-M', '--name-status'], `${commits.join('\n')}\n`);
  let current: Map<string, string> | undefined;
  for (const line of out.split('\n')) {
    if (/^[0-9a-f]{40,64}$/.test(line)) {
      current = new Map();
      renames.set(line, current);
      continue;
    }
    const [status, from, to] = line.split('\t');
    if (current && status?.startsWith('R') && from && to) current.set(from, to);
  }
  return renames;
}

/** Every ref name (`refs/heads/…`, `refs/remotes/…`, `refs/tags/…`). */
export async function refNames(repo: string): Promise<string[]> {
  const out = await git(repo, ['for-each-ref', '--format=%(refname)']);
  return out.split('\n').filter(Boolean);
}

/** A pathspec that matches the path as written (no glob, no magic). */
function literal(path: string): string {
  return `:(literal)${path}`;
}

function parseLog(out: string): LoggedCommit[] {
  const commits: LoggedCommit[] = [];
  for (const block of out.split('\x01')) {
    if (!block.trim()) continue;
    const lines = block.split('\n');
    const [id, time, date] = lines[0]!.split(' ');
    const changes: NameStatus[] = [];
    for (const line of lines.slice(1)) {
      if (!line) continue;
      const [status, a, b] = line.split('\t');
      if (!status || !a) continue;
      changes.push(b !== undefined ? { status, path: b, from: a } : { status, path: a });
    }
    commits.push({ id: id!, time: Number(time), date: date!, changes });
  }
  return commits;
}
