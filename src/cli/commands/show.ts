import { formatTime, resolveRevision } from '../../git/history.js';
import { openHistoryTarget } from '../../git/target.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';
import { writeText } from '../output.js';

export interface ShowCommandOptions {
  root?: string;
  /** A date (`2026-02-13`, an ISO datetime) or a revision (commit id, HEAD~2, branch, tag). Default HEAD. */
  at?: string;
}

/** `memvault show PATH --at DATE|REV`: a file's content as it was committed then (e.g. the package an agent saw that day). */
export async function showCommand(file: string, options: ShowCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const target = await openHistoryTarget(file, { root, cwd: process.cwd() });
  const commit = options.at ? await resolveRevision(target.repo, target.head, options.at, target.zone) : target.head;
  const located = await target.history.locate(commit, target.repoPath);
  if (!located) {
    const info = await target.history.commit(commit);
    const versions = await target.history.versions(target.head, target.repoPath);
    const first = versions.at(-1);
    const reason = `\`${target.repoPath}\` did not exist at ${commit.slice(0, 7)} (${formatTime(info.timestamp, target.zone)})`;
    const since = first
      ? `its first version is ${first.commit.oid.slice(0, 7)} from ${formatTime(first.commit.timestamp, target.zone)}; `
      : '';
    throw new UserError('git/not-then', reason, { file }, { hint: `${since}see \`memvault log ${file}\`` });
  }
  const text = await target.history.readText(located.blob);
  // Into a file or pipe the bytes are the committed file's, so `show … > file` restores it exactly; on a terminal
  // its control characters are made visible like every other command's vault text (`writeText`).
  if (process.stdout.isTTY) writeText(text);
  else process.stdout.write(text);
}
