import { createTwoFilesPatch } from 'diff';
import { formatTime, resolveRevision, type Located } from '../../git/history.js';
import { openHistoryTarget, type HistoryTarget } from '../../ops/history-target.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';
import { useColor, writeText } from '../output.js';

export interface DiffCommandOptions {
  root?: string;
  /** Older side: a revision or a date. Default: the version before `to`. */
  from?: string;
  /** Newer side: a revision or a date. Default: HEAD (the newest committed version). */
  to?: string;
  /** Lines of context around each change (default 3). */
  context?: string;
}

interface Side {
  commit: string;
  timestamp: number;
  located: Located;
}

/** `memvault diff PATH [--from REV] [--to REV]`: a unified diff of a file between two committed versions. */
export async function diffCommand(file: string, options: DiffCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const target = await openHistoryTarget(file, { root, cwd: process.cwd() });
  const to = await sideAt(
    target,
    options.to ? await resolveRevision(target.repo, target.head, options.to, target.zone) : target.head,
    options.to ?? 'HEAD',
    !options.to,
  );
  let from: Side;
  if (options.from) {
    from = await sideAt(target, await resolveRevision(target.repo, target.head, options.from, target.zone), options.from, false);
  } else {
    const previous = await target.history.previous(to.commit, target.repoPath);
    if (!previous)
      throw new UserError('git/one-version', `\`${target.repoPath}\` has only one committed version up to ${to.commit.slice(0, 7)}`, {
        file,
      });
    from = { commit: previous.commit.oid, timestamp: previous.commit.timestamp, located: previous.located };
  }
  const [oldText, newText] = [await target.history.readText(from.located.blob), await target.history.readText(to.located.blob)];
  const context = options.context === undefined ? 3 : Math.max(0, Number.parseInt(options.context, 10) || 0);
  const header = (side: Side) => `${side.commit.slice(0, 7)} ${formatTime(side.timestamp, target.zone)}`;
  if (oldText === newText) {
    process.stderr.write(`no difference between ${header(from)} and ${header(to)}\n`);
    return;
  }
  const patch = createTwoFilesPatch(`a/${from.located.path}`, `b/${to.located.path}`, oldText, newText, header(from), header(to), {
    context,
  });
  writeText(patch, useColor(process.stdout) ? colorize : undefined);
}

/** The file at a commit; with `latest`, the newest version even if HEAD deleted it. */
async function sideAt(target: HistoryTarget, commit: string, label: string, latest: boolean): Promise<Side> {
  const located = await target.history.locate(commit, target.repoPath);
  if (located) return { commit, timestamp: (await target.history.commit(commit)).timestamp, located };
  if (latest) {
    const newest = (await target.history.versions(commit, target.repoPath)).find((version) => version.blob !== null);
    if (newest?.blob)
      return { commit: newest.commit.oid, timestamp: newest.commit.timestamp, located: { path: newest.path, blob: newest.blob } };
  }
  throw new UserError('git/not-then', `\`${target.repoPath}\` did not exist at ${label} (${commit.slice(0, 7)})`, {
    file: target.repoPath,
  });
}

function colorize(patch: string): string {
  return patch
    .split('\n')
    .map((line) =>
      line.startsWith('+++') || line.startsWith('---')
        ? `\x1b[1m${line}\x1b[0m`
        : line.startsWith('+')
          ? `\x1b[32m${line}\x1b[0m`
          : line.startsWith('-')
            ? `\x1b[31m${line}\x1b[0m`
            : line.startsWith('@@')
              ? `\x1b[36m${line}\x1b[0m`
              : line,
    )
    .join('\n');
}
