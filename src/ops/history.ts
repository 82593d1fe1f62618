import * as z from 'zod';
import { formatTime, resolveRevision } from '../git/history.js';
import { openHistoryTarget } from './history-target.js';
import { UserError } from '../util/errors.js';
import { parseFrontmatter } from '../vault/frontmatter.js';
import { asInputAsync } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `log` and `show`: a file's committed versions, and its content at a date or revision. CLI only. */

const pathField = z.string().min(1).describe('file path, relative to the current folder or to the vault');

const versionSchema = z.object({
  commit: z.string(),
  /** Committer time, ISO 8601 UTC. */
  date: z.string(),
  subject: z.string(),
  author: z.string(),
  change: z.string(),
  /** Repository-relative path of the file in that commit. */
  path: z.string(),
  blob: z.string().nullable(),
  /** For a generated summary: the generator recorded in that version. */
  generator: z.object({ provider: z.string(), model: z.string(), prompt: z.string() }).nullable(),
});

export type LogEntry = z.output<typeof versionSchema>;

export const logOperation = defineOperation({
  name: 'log',
  input: z.strictObject({ path: pathField, limit: z.number().int().min(1).optional().describe('at most this many versions') }),
  output: z.object({ path: z.string(), versions: z.array(versionSchema) }),
  annotations: READ_ONLY,
  async run(env, input) {
    const target = await asInputAsync(() => openHistoryTarget(input.path, { root: env.root, cwd: env.cwd }));
    const versions = (await target.history.versions(target.head, target.repoPath)).slice(0, input.limit ?? Infinity);
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
    const times = versions.map((version) => formatTime(version.commit.timestamp, target.zone));
    return { result: { path: target.repoPath, versions: entries }, detail: { times } };
  },
});

export const showOperation = defineOperation({
  name: 'show',
  input: z.strictObject({
    path: pathField,
    at: z.string().min(1).optional().describe('a date (end of that day) or a revision (commit id, HEAD~2, branch, tag); default HEAD'),
  }),
  output: z.object({ path: z.string(), commit: z.string(), text: z.string() }),
  annotations: READ_ONLY,
  async run(env, input) {
    const target = await asInputAsync(() => openHistoryTarget(input.path, { root: env.root, cwd: env.cwd }));
    const commit = input.at ? await asInputAsync(() => resolveRevision(target.repo, target.head, input.at!, target.zone)) : target.head;
    const located = await target.history.locate(commit, target.repoPath);
    if (!located) {
      const info = await target.history.commit(commit);
      const versions = await target.history.versions(target.head, target.repoPath);
      const first = versions.at(-1);
      const reason = `\`${target.repoPath}\` did not exist at ${commit.slice(0, 7)} (${formatTime(info.timestamp, target.zone)})`;
      const since = first
        ? `its first version is ${first.commit.oid.slice(0, 7)} from ${formatTime(first.commit.timestamp, target.zone)}; `
        : '';
      throw new UserError('git/not-then', reason, { file: input.path }, { hint: `${since}see \`memvault log ${input.path}\`` });
    }
    const text = await target.history.readText(located.blob);
    return { result: { path: target.repoPath, commit, text } };
  },
});

function generatorOf(text: string): LogEntry['generator'] {
  const { data } = parseFrontmatter(text);
  const generator = data.generator as Record<string, unknown> | undefined;
  if (data.memvault !== 'summary' || !generator || typeof generator !== 'object') return null;
  return { provider: String(generator.provider ?? ''), model: String(generator.model ?? ''), prompt: String(generator.prompt ?? '') };
}
