import path from 'node:path';
import { parseFrontmatter } from '../vault/frontmatter.js';
import { fail, shorten, type ParsedTranscript, type Session } from './session.js';

/**
 * Markdown and plain-text files (notes, transcripts pasted from a chat UI):
 * imported as they are, one memory per file. The date comes from the
 * frontmatter (`date` or `created`), else an ISO date in the file name, else
 * `--date`, else the file's modification time; the title from the
 * frontmatter, else the first `# heading`, else the file name. Other
 * frontmatter keys (tags, kind, importance…) are kept.
 */

const RULE = 'ingest/markdown';

/** A markdown or text file as one session document; throws `IngestError` for bad frontmatter or an empty file. */
export function parseMarkdownTranscript(text: string, file: string): ParsedTranscript {
  const fm = parseFrontmatter(text);
  if (fm.error) fail(file, fm.error.line, fm.error.column, fm.error.reason, 'fix the YAML between the `---` lines, or remove it', RULE);
  const data = { ...fm.data };
  const body = fm.body.trim();
  if (body.length === 0) fail(file, fm.bodyLine, 1, 'the file has no text to import', 'nothing to import', RULE);
  let date: string | undefined;
  for (const key of ['date', 'created']) {
    const value = data[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
      const p = fm.positionOf(key);
      fail(
        file,
        p.line,
        p.column,
        `\`${key}\` must be an ISO 8601 date or datetime, got \`${String(value)}\``,
        'write e.g. `date: 2026-02-13T14:05:00+01:00`',
        RULE,
      );
    }
    date = value.trim();
    delete data[key];
    break;
  }
  const fromName = /(\d{4}-\d{2}-\d{2})/.exec(path.basename(file))?.[1];
  // A text file often starts with a title line of its own.
  const firstLine = /^([^\n]{3,80})\n\s*\n/.exec(body)?.[1];
  const heading =
    /^#\s+(.+)$/m.exec(body)?.[1] ?? (firstLine && !/[:.]\s*$/.test(firstLine) && !/^[-*>|`]/.test(firstLine) ? firstLine : undefined);
  const titleValue = data.title;
  delete data.title;
  const title =
    typeof titleValue === 'string' && titleValue.trim()
      ? titleValue.trim()
      : heading
        ? shorten(heading, 80)
        : shorten(
            path
              .basename(file)
              .replace(/\.[^.]+$/, '')
              .replace(/^\d{4}-\d{2}-\d{2}[-_ ]*/, '')
              .replace(/[-_]+/g, ' '),
            80,
          );
  const session: Session = {
    format: 'markdown',
    id: file,
    turns: [],
    meta: {},
    document: { body, data, ...((date ?? fromName) ? { date: (date ?? fromName)! } : {}) },
    ...(title ? { title } : {}),
  };
  return { format: 'markdown', sessions: [session], warnings: [] };
}
