import { parseFrontmatter } from '../../vault/frontmatter.js';
import { formatTime, type FileVersion } from '../../git/history.js';
import { openHistoryTarget } from '../../git/target.js';
import { findRoot } from '../context.js';
import { writeText } from '../output.js';

export interface LogCommandOptions {
  root?: string;
  json?: boolean;
  /** Show at most this many versions (newest first). */
  limit?: string;
}

export interface LogEntry {
  commit: string;
  /** Committer time, ISO 8601 UTC. */
  date: string;
  subject: string;
  author: string;
  change: FileVersion['change'];
  /** Repository-relative path of the file in that commit. */
  path: string;
  blob: string | null;
  /** For a generated summary: the generator recorded in that version (`provider/model`, prompt). */
  generator: { provider: string; model: string; prompt: string } | null;
}

/** `memvault log PATH`: the commits that changed a file, newest first, with the summary's generator in each. */
export async function logCommand(file: string, options: LogCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const target = await openHistoryTarget(file, { root, cwd: process.cwd() });
  const limit = options.limit === undefined ? Infinity : Math.max(1, Number.parseInt(options.limit, 10) || 1);
  const versions = (await target.history.versions(target.head, target.repoPath)).slice(0, limit);
  const entries: LogEntry[] = [];
  for (const version of versions) {
    entries.push({
      commit: version.commit.oid,
      date: new Date(version.commit.timestamp * 1000).toISOString().replace('.000Z', 'Z'),
      subject: version.commit.subject,
      author: version.commit.author,
      change: version.change,
      path: version.path,
      blob: version.blob,
      generator: version.blob ? generatorOf(await target.history.readText(version.blob)) : null,
    });
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ path: target.repoPath, versions: entries }, null, 2)}\n`);
    return;
  }
  const lines = entries.map((entry, i) => {
    const version = versions[i]!;
    const where = entry.path !== target.repoPath ? ` (${entry.change === 'deleted' ? 'was' : 'at'} ${entry.path})` : '';
    const generator = entry.generator ? `  [${entry.generator.provider}/${entry.generator.model}, ${entry.generator.prompt}]` : '';
    return `${entry.commit.slice(0, 7)}  ${formatTime(version.commit.timestamp, target.zone)}  ${entry.change.padEnd(8)} ${entry.subject}${generator}${where}`;
  });
  writeText(`${target.repoPath}: ${entries.length} version(s), newest first\n${lines.join('\n')}\n`);
}

function generatorOf(text: string): LogEntry['generator'] {
  const { data } = parseFrontmatter(text);
  const generator = data.generator as Record<string, unknown> | undefined;
  if (data.memvault !== 'summary' || !generator || typeof generator !== 'object') return null;
  return { provider: String(generator.provider ?? ''), model: String(generator.model ?? ''), prompt: String(generator.prompt ?? '') };
}
