/**
 * Cleaning a model's answer before it becomes a summary body. Models wrap
 * answers in chatter ("Sure! Here is a summary…"), code fences, reasoning
 * blocks, or YAML frontmatter; a summary file must hold only the summary, and
 * nothing in a model's answer may add or fake frontmatter keys, or a secret. Every
 * cleaning step is named in `notes` so a build can report it.
 */

import { redactSecrets } from '../redact/redact.js';

/** A cleaned answer and what was removed from it. */
export interface CleanedOutput {
  body: string;
  /** What was removed, e.g. `opening meta-commentary`, `frontmatter`. */
  notes: string[];
}

/** An opening that talks about the answer instead of giving it. Only short paragraphs are tested. */
const META_OPENING = new RegExp(
  [
    String.raw`^(?:sure|certainly|of course|absolutely|okay|ok|great|alright|no problem)\b[!.,:]?`,
    String.raw`^here(?:'s| is| are)\b`,
    String.raw`^(?:below|following) (?:is|are)\b`,
    String.raw`^the following\b`,
    String.raw`^(?:i(?:'ve| have)|i'll|i will|let me)\s+(?:summari[sz]e|condense|compress|provide|write|create|put together|rewr)`,
    String.raw`^(?:as requested|in summary|to summari[sz]e|summary)\b.*:$`,
    String.raw`^this (?:is|summary)\b.*\b(?:summary|summari[sz]es)\b`,
  ].join('|'),
  'i',
);
/** A closing offer or wish, after the summary. */
const META_CLOSING =
  /^(?:let me know|i hope|hope this|feel free|if you(?:'d| would)? (?:like|want|need)|would you like|is there anything|happy to)\b/i;
const FENCE_LINE = /^\s*(?:-{3,}|\.{3})\s*$/;

/**
 * Cleans an answer. `completion` mode also removes the `>` quote markers its
 * prompt ends with (the model continues after a `>` line, and may repeat the
 * marker). An empty result means the answer had no summary in it.
 *
 * @example
 *   cleanOutput('Sure! Here is the summary:\n\n- Fixed the login bug.', 'chat')
 *   // { body: '- Fixed the login bug.', notes: ['opening meta-commentary'] }
 */
export function cleanOutput(text: string, mode: 'chat' | 'completion'): CleanedOutput {
  const notes = new Set<string>();
  let out = text.replace(/\r\n?/g, '\n').replace(/\u0000/g, '');

  // Reasoning models served locally (deepseek-r1, qwen3) put their thinking before the answer.
  if (/<think>[\s\S]*?<\/think>/i.test(out)) {
    out = out.replace(/<think>[\s\S]*?<\/think>/gi, '');
    notes.add('reasoning block');
  }
  out = out.trim();

  if (mode === 'completion')
    out = out
      .split('\n')
      .map((line) => line.replace(/^\s*>\s?/, ''))
      .join('\n')
      .trim();

  // A whole answer wrapped in ```markdown … ```.
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(out);
  if (fenced) out = fenced[1]!.trim();

  // Frontmatter the model wrote (or was talked into writing), anywhere: the file's frontmatter is ours alone.
  const withoutBlocks = removeYamlBlocks(out);
  if (withoutBlocks !== out) {
    out = withoutBlocks.trim();
    notes.add('frontmatter');
  }

  // Opening chatter, line by line ("Sure!" then "Here is the summary:").
  for (;;) {
    const end = out.indexOf('\n');
    const line = (end < 0 ? out : out.slice(0, end)).trim();
    if (!isMetaOpening(line)) break;
    out = (end < 0 ? '' : out.slice(end + 1)).trim();
    notes.add('opening meta-commentary');
  }
  // Closing chatter.
  for (;;) {
    const lastBreak = out.lastIndexOf('\n\n');
    const paragraph = out.slice(lastBreak + 2).trim();
    if (lastBreak < 0 || paragraph.length > 240 || !META_CLOSING.test(paragraph)) break;
    out = out.slice(0, lastBreak).trim();
    notes.add('closing meta-commentary');
  }

  // A title of its own: the summary file has one already.
  if (/^# [^\n]*(?:\n|$)/.test(out)) out = out.replace(/^# [^\n]*\n?/, '').trim();

  // Left-over fence lines (`---`, `...`) could open a fake frontmatter block for a careless reader.
  const lines = out.split('\n');
  const kept = lines.filter((line) => !FENCE_LINE.test(line));
  if (kept.length !== lines.length) {
    out = kept.join('\n').trim();
    notes.add('frontmatter fence');
  }

  out = out
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

  // A secret in the answer (echoed from a prompt, or made up to look like one) is never written: the summary is committed.
  const redacted = redactSecrets(out);
  if (redacted.count > 0) {
    out = redacted.text;
    notes.add(`secrets redacted (${redacted.redactions.map((r) => r.kind).join(', ')})`);
  }
  return { body: out, notes: [...notes] };
}

function isMetaOpening(line: string): boolean {
  if (line.length === 0 || line.length > 240 || /^(?:[-*+]\s|#|\d+\.\s)/.test(line)) return false;
  const text = line.replace(/^[*_\s]+|[*_\s]+$/g, '');
  if (!META_OPENING.test(text)) return false;
  // Talks about the answer, introduces it, or is a bare interjection ("Sure!").
  return (
    /:$/.test(text) ||
    /summar|recap|overview|condens|memor|requested/i.test(text) ||
    /^(?:sure|certainly|of course|absolutely|okay|ok|great|alright|no problem)\W*$/i.test(text)
  );
}

/**
 * Removes every `---` … `---` (or `...`, `+++`) block whose lines read as YAML
 * keys (`key: value`, with list items under them), or that is empty.
 */
function removeYamlBlocks(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^(?:-{3,}|\+{3,})\s*$/.test(line)) {
      let end = -1;
      for (let j = i + 1; j < lines.length; j++) {
        if (/^(?:-{3,}|\.{3}|\+{3,})\s*$/.test(lines[j]!)) {
          end = j;
          break;
        }
      }
      if (end > 0) {
        const inner = lines.slice(i + 1, end).filter((l) => l.trim() !== '');
        const keys = inner.filter((l) => /^[\w"'][\w .'"-]*:(?:\s|$)/.test(l)).length;
        const yamlish = inner.every((l) => /^[\w"'][\w .'"-]*:(?:\s|$)/.test(l) || /^\s+\S/.test(l) || /^-\s/.test(l));
        if (inner.length === 0 || (keys > 0 && yamlish)) {
          i = end;
          continue;
        }
      }
    }
    out.push(line);
  }
  return out.join('\n');
}
