import path from 'node:path';
import { shorten, type Session, type ToolCall, type Turn } from './session.js';

/**
 * A coding-agent session distilled into what a summary needs: the person's
 * requests (verbatim: they are the intent), the agent's explanations and
 * conclusions, what changed (files created and edited with counts, tests run
 * with their results, commits with their messages, errors and whether a later
 * run passed), and one short line of tool activity. Narration ("Let me read
 * the file."), to-do list echoes, refused tool calls and interruptions are
 * left out; the full transcript is kept apart (see `renderTranscript`).
 */

/** Longest request, explanation or compaction summary kept in full. */
const MAX_PARAGRAPH_CHARS = 1500;
/** Files named per list before `and N more`. */
const MAX_FILES = 12;
/** Failed commands listed. */
const MAX_ERRORS = 5;

/** Markdown sections of one day of a session (no header line); `clean` redacts a string. */
export function distilledSections(session: Session, turns: readonly Turn[], clean: (text: string) => string, transcript?: string): string {
  const parts: string[] = [];
  const compacted = turns
    .filter((turn) => turn.compactSummary)
    .map((turn) => cut(clean(turn.text.replace(/^\s*This session is being continued[^\n]*\n/i, '').trim())));
  if (compacted.length > 0) parts.push(`## Before compaction\n\n${compacted.join('\n\n')}`);
  const requests = turns
    .filter((turn) => turn.role === 'user' && !turn.compactSummary && turn.text.trim().length > 0)
    .map((turn) => cut(clean(turn.text.trim())));
  if (requests.length > 0) parts.push(`## Requests\n\n${requests.join('\n\n')}`);
  const outcome = unique(turns.filter((turn) => turn.role === 'assistant').flatMap((turn) => explanations(turn).map((p) => cut(clean(p)))));
  if (outcome.length > 0) parts.push(`## Outcome\n\n${outcome.join('\n\n')}`);
  const calls = turns.flatMap((turn) => turn.tools).filter((call) => call.input !== undefined);
  const changes = changeLines(calls, session.meta.cwd).map((line) => `- ${clean(line)}`);
  if (changes.length > 0) parts.push(`## Changes\n\n${changes.join('\n')}`);
  // The transcript's link goes under Activity, a section summaries never quote.
  const link = transcript ? `Full transcript: [\`${transcript}\`](../../../${transcript}).` : '';
  const activity = [activityLine(calls), link].filter(Boolean).join(' ');
  if (activity) parts.push(`## Activity\n\n${activity}`);
  return parts.join('\n\n');
}

/** Sentences that only announce the next tool call. */
const NARRATION = new RegExp(
  "^(?:I'll|I will|I'm going to|I am going to|Let me|Let's|Now(?:,)? (?:let me|I'll|I will|I need to)|First(?:,)? (?:let me" +
    "|I'll)|Next(?:,)? (?:let me|I'll)|(?:OK|Okay|Great|Perfect|Good|Excellent|Alright)[,.!]? (?:let me|now|I'll)|Now )",
  'i',
);

/**
 * The assistant's paragraphs worth keeping from a turn: its conclusion (the
 * text after its last tool call), and the explanations before it (prose of 12
 * words or more that does not just announce the next call). Code blocks are
 * left out: the transcript keeps them.
 */
function explanations(turn: Turn): string[] {
  const conclusion = paragraphs(turn.conclusion ?? '');
  const before = paragraphs(turn.text).filter(
    (p) => !conclusion.includes(p) && !NARRATION.test(p) && !/:\s*$/.test(p) && p.split(/\s+/).length >= 12,
  );
  return [...before, ...conclusion.filter((p) => !(NARRATION.test(p) && /:\s*$/.test(p)))];
}

function paragraphs(text: string): string[] {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?(?:\n\1[^\n]*|(?![\s\S]))/gm, '')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

const EDIT_TOOLS = /^(?:Edit|MultiEdit|Write|NotebookEdit|str_replace_based_edit_tool|apply_patch)$/;
const TEST_COMMAND = new RegExp(
  String.raw`\b(?:vitest|jest|pytest|mocha|rspec|phpunit|go test|cargo test|mix test|(?:npm|pnpm|yarn|bun)(?: run)? test\b|make test` +
    '|ctest|gradlew? test|mvn test|dotnet test|tox|nox|npm run (?:check|ci))',
  '',
);
const COMMIT_COMMAND = /\bgit\b[^|;&]*\bcommit\b/;
const PUSH_COMMAND = /\bgit\b[^|;&]*\bpush\b/;
const VERDICT = /\b(?:passed|failed|failures?|errors?|FAIL|PASS|ok|tests?)\b/i;

/** What changed, one line per kind: files, tests, commits, pushes, errors. */
export function changeLines(calls: readonly ToolCall[], cwd: string | undefined): string[] {
  const lines: string[] = [];
  const created = new Map<string, number>();
  const edited = new Map<string, number>();
  for (const call of calls) {
    if (!EDIT_TOOLS.test(call.name) || call.refused || call.error) continue;
    const input = call.input as Record<string, unknown>;
    const file = typeof input?.file_path === 'string' ? input.file_path : typeof input?.path === 'string' ? input.path : undefined;
    if (!file) continue;
    const shown = relative(cwd, file);
    const count = Array.isArray(input.edits) ? input.edits.length : 1;
    if (call.name === 'Write' && !edited.has(shown) && !created.has(shown)) created.set(shown, 1);
    else if (created.has(shown)) created.set(shown, created.get(shown)! + count);
    else edited.set(shown, (edited.get(shown) ?? 0) + count);
  }
  const files = [created.size > 0 ? `created ${fileList(created)}` : '', edited.size > 0 ? `edited ${fileList(edited)}` : ''].filter(
    Boolean,
  );
  if (files.length > 0) lines.push(`Files: ${files.join('; ')}.`);

  const commands = calls.filter((call) => typeof commandOf(call) === 'string' && !call.refused);
  const tests = new Map<string, ToolCall[]>();
  for (const call of commands) {
    const command = commandOf(call)!;
    if (TEST_COMMAND.test(command) && !COMMIT_COMMAND.test(command)) tests.set(command, [...(tests.get(command) ?? []), call]);
  }
  for (const [command, runs] of tests) {
    const verdicts = runs.map((run) => `${run.error ? 'failed' : 'passed'} (${verdictOf(run)})`);
    const first = verdicts[0]!;
    const last = verdicts[verdicts.length - 1]!;
    const story = runs.length === 1 || first === last ? last : `${first}, then ${last}`;
    lines.push(`Tests: \`${shorten(command, 100)}\` ${runs.length > 1 ? `ran ${runs.length} times, ` : ''}${story}.`);
  }
  for (const call of commands) {
    const command = commandOf(call)!;
    if (COMMIT_COMMAND.test(command) && !call.error) {
      const commit = commitOf(command, call.result ?? '');
      if (commit) lines.push(`Committed ${commit}.`);
    } else if (PUSH_COMMAND.test(command) && !call.error) {
      lines.push(`Pushed: \`${shorten(command, 100)}\`.`);
    }
  }
  const failures = commands.filter((call) => call.error && !TEST_COMMAND.test(commandOf(call)!));
  for (const call of failures.slice(0, MAX_ERRORS)) {
    const command = commandOf(call)!;
    const later = commands.slice(commands.indexOf(call) + 1).some((other) => commandOf(other) === command && !other.error);
    lines.push(
      `Error: \`${shorten(command, 100)}\` failed (${shorten(firstLine(call.result) ?? 'no output', 140)})${later ? '; a later run passed' : ''}.`,
    );
  }
  if (failures.length > MAX_ERRORS) lines.push(`${failures.length - MAX_ERRORS} more failed commands (in the transcript).`);
  return lines;
}

/** `Tool calls: Bash 12, Read 9, Edit 4; to-do list updated 3 times; 1 refused.` */
export function activityLine(calls: readonly ToolCall[]): string | undefined {
  if (calls.length === 0) return undefined;
  const counts = new Map<string, number>();
  let todos = 0;
  let refused = 0;
  for (const call of calls) {
    if (call.refused) refused++;
    else if (/^(?:TodoWrite|TodoRead|todo)$/i.test(call.name)) todos++;
    else counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  }
  const tools = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([name, n]) => `${name.replace(/`/g, '')} ${n}`);
  const parts = [tools.length > 0 ? `Tool calls: ${tools.join(', ')}` : 'No tool calls besides the to-do list'];
  if (todos > 0) parts.push(`to-do list updated ${todos} time${todos === 1 ? '' : 's'}`);
  if (refused > 0) parts.push(`${refused} refused`);
  return `${parts.join('; ')}.`;
}

function commandOf(call: ToolCall): string | undefined {
  if (!/^(?:Bash|shell|terminal|exec|run|local_shell)/i.test(call.name)) return undefined;
  const input = call.input;
  if (typeof input === 'string') return input.trim();
  const command = (input as Record<string, unknown> | null)?.command;
  return typeof command === 'string' ? command.trim().split('\n')[0] : undefined;
}

/** The line of a test run's output that gives its verdict (`Tests 50 passed (50)`), from the end. */
function verdictOf(call: ToolCall): string {
  const lines = (call.result ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const verdict = [...lines].reverse().find((line) => VERDICT.test(line)) ?? lines[lines.length - 1] ?? 'no output';
  return shorten(verdict, 140);
}

/** `` `9c41e07` "Sum invoice totals in integer cents" `` from git's answer, else the command's message. */
function commitOf(command: string, result: string): string | undefined {
  const answer = /^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.+)$/m.exec(result);
  if (answer) return `\`${answer[1]}\`: ${quote(answer[2]!)}`;
  const message = /-m\s+(?:"([^"]+)"|'([^']+)')/.exec(command);
  const text = message?.[1] ?? message?.[2];
  return text ? quote(text.split('\n')[0]!) : undefined;
}

function quote(text: string): string {
  return `"${shorten(text.replace(/"/g, "'"), 120)}"`;
}

function firstLine(text: string | undefined): string | undefined {
  return text
    ?.split('\n')
    .map((line) => line.trim())
    .find(Boolean);
}

function fileList(files: ReadonlyMap<string, number>): string {
  const named = [...files].slice(0, MAX_FILES).map(([file, n]) => `\`${file}\`${n > 1 ? ` (${n} edits)` : ''}`);
  const more = files.size > MAX_FILES ? ` and ${files.size - MAX_FILES} more` : '';
  return `${named.join(', ')}${more}`;
}

function relative(cwd: string | undefined, file: string): string {
  if (!cwd || !file.startsWith('/')) return file;
  const rel = path.posix.relative(cwd, file);
  return rel.startsWith('..') ? path.posix.basename(file) : rel;
}

function cut(text: string): string {
  if (text.length <= MAX_PARAGRAPH_CHARS) return text;
  let at = text.lastIndexOf('\n', MAX_PARAGRAPH_CHARS);
  if (at < MAX_PARAGRAPH_CHARS / 2) at = text.lastIndexOf(' ', MAX_PARAGRAPH_CHARS);
  if (at < MAX_PARAGRAPH_CHARS / 2) at = MAX_PARAGRAPH_CHARS;
  const open = text.lastIndexOf('[REDACTED:', at);
  if (open !== -1 && text.indexOf(']', open) >= at) at = open;
  let kept = text.slice(0, at).trimEnd();
  if ((kept.match(/^(```|~~~)/gm)?.length ?? 0) % 2 === 1) kept += '\n```';
  return `${kept}\n\n[… ${(text.length - at).toLocaleString('en-US')} more characters in the transcript]`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
