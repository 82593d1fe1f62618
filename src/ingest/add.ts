import path from 'node:path';
import { loadValidConfig } from '../config/load.js';
import { assertStreamName } from '../config/schema.js';
import { redactSecrets, type RedactionCount } from '../redact/redact.js';
import { checkAddInput, checkMemoryFileSize } from './add-limits.js';
import { dayOfInstant } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { ensureInside } from '../util/inside.js';
import { parseMemoryFile, writeMemoryFile } from '../vault/memory-file.js';
import type { Importance } from '../vault/model.js';
import { isoInZone } from './render.js';
import { splitSentences } from '../vault/sentences.js';
import { shorten } from './session.js';
import { slugify, writeNewMemory } from './writer.js';

/**
 * `memvault add`, the use case: one memory file from a text, redacted, at
 * `<stream>/memories/YYYY/MM/YYYY-MM-DD-<slug>-<id>.md` under a name no other
 * memory has, in this clone or another (the slug comes from the title, else
 * the first words; the id from the file's content, writer.ts).
 */

export interface AddOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  text: string;
  title?: string;
  tags?: readonly string[];
  kind?: string;
  importance?: Importance;
  /** Default: the first stream of the config. */
  stream?: string;
  /** ISO date or datetime; default `now` in the configured zone. */
  date?: string;
  /** The clock (`MEMVAULT_NOW` or the wall clock). */
  now: Date;
  /** Default true. */
  redact?: boolean;
}

/** What `addMemory` wrote. */
export interface AddResult {
  /** Vault-relative path of the new memory. */
  path: string;
  /** Absolute path. */
  file: string;
  id: string;
  stream: string;
  date: string;
  redactions: RedactionCount[];
}

/**
 * Writes one memory and returns where. Throws a `UserError` for an empty
 * text, a bad date, stream or kind, and `ConfigInvalidError` for a bad config.
 *
 * @example
 *   const { path } = await addMemory({ root, text: 'Deploys need a green staging run.', importance: 'pinned', now: new Date() });
 */
export async function addMemory(options: AddOptions): Promise<AddResult> {
  checkAddInput(options);
  const config = await loadValidConfig(options.root);
  const stream = options.stream ?? Object.keys(config.streams)[0] ?? 'main';
  assertStreamName(stream);
  if (options.kind !== undefined && !/^[^\s:#][^\n]*$/.test(options.kind.trim()))
    throw new UserError('cli/kind', `kind \`${options.kind}\` is not allowed`);

  const redact = options.redact ?? true;
  const counts = new Map<string, number>();
  const clean = (text: string): string => {
    if (!redact) return text;
    const result = redactSecrets(text, config.secrets);
    for (const { kind, count } of result.redactions) counts.set(kind, (counts.get(kind) ?? 0) + count);
    return result.text;
  };
  const fullBody = clean(options.text.replace(/\r\n?/g, '\n')).trim();
  if (fullBody.length === 0) throw new UserError('add/empty', 'the memory text is empty');
  const given = options.title?.trim() ? clean(options.title.trim()) : undefined;
  const heading = given === undefined ? headingOf(fullBody) : undefined;
  const title = given ?? heading?.title;
  const body = heading?.body ?? fullBody;
  const tags = [
    ...new Set(
      (options.tags ?? [])
        .flatMap((tag) => tag.split(','))
        .map((tag) => clean(tag.trim()))
        .filter(Boolean),
    ),
  ];

  let date: string;
  if (options.date !== undefined) {
    date = options.date.trim().replace(/^(\d{4}-\d{2}-\d{2}) (\d)/, '$1T$2');
    if (!/^\d{4}-\d{2}-\d{2}/.test(date) || !dayOfInstant(date, config.timezone))
      throw new UserError('cli/date', `--date \`${options.date}\` is not an ISO 8601 date or datetime`);
  } else date = isoInZone(options.now, config.timezone);
  const day = dayOfInstant(date, config.timezone)!.day;

  const text = writeMemoryFile({
    date,
    ...(title ? { title } : {}),
    ...(options.kind ? { kind: options.kind.trim() } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(options.importance ? { importance: options.importance } : {}),
    body,
  });
  checkMemoryFileSize(text);
  const vaultDir = path.resolve(options.root, config.vault);
  ensureInside(options.root, vaultDir); // a vault folder linked out of the project (the writer refuses links below it)
  const slug = slugify(title ?? body.split('\n').find((line) => line.trim() && !/^#+\s*$/.test(line)) ?? body);
  const check = parseMemoryFile(
    Buffer.from(text, 'utf8'),
    { path: `${stream}/memories/${day}-${slug}.md`, stream, location: 'memories', relativeId: 'check' },
    config.timezone,
  );
  if (!check.ok) throw new Error(`add produced an unreadable memory: ${check.diagnostics[0]?.reason}`);
  const vaultPath = writeNewMemory(vaultDir, stream, day, slug, text);
  const redactions = [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => (a.kind < b.kind ? -1 : 1));
  return {
    path: vaultPath,
    file: path.join(vaultDir, vaultPath),
    id: vaultPath.slice(`${stream}/memories/`.length).replace(/\.md$/, ''),
    stream,
    date,
    redactions,
  };
}

/** Longest heading taken from a memory's text. */
const MAX_HEADING_CHARS = 70;

/**
 * A heading for a memory written without `--title`: a first line that reads
 * as one (`# Release notes`, or a short line over a blank line) is taken out
 * of the body and becomes the title; else the first sentence, cut at a word
 * boundary, names the memory and the body stays whole. A memory of one
 * sentence gets none (its heading would repeat it). Never the file id, never
 * cut mid-word.
 *
 * @example
 *   headingOf('Deploy checklist\n\n- tag the release\n- run the smoke tests');
 *   // { title: 'Deploy checklist', body: '- tag the release\n- run the smoke tests' }
 */
export function headingOf(text: string): { title: string; body: string } | undefined {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.trim().length > 0);
  if (first < 0) return undefined;
  const line = lines[first]!.trim();
  const rest = lines
    .slice(first + 1)
    .join('\n')
    .trim();
  const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line)?.[1];
  if (heading && rest) return { title: heading, body: rest };
  const standalone = (lines[first + 1] ?? '').trim() === '' && line.length <= MAX_HEADING_CHARS && !/^[-*+>|`]|^\d+[.)]\s/.test(line);
  if (standalone && rest) return { title: line.replace(/[.:]+$/, ''), body: rest };
  const sentence = splitSentences(text.split(/\n\s*\n/)[0]!.replace(/^[-*+>#]+\s*/, ''))[0];
  if (!sentence || sentence.trim() === text.trim()) return undefined;
  return { title: shorten(sentence.replace(/[.!:;]+$/, ''), MAX_HEADING_CHARS), body: text };
}
