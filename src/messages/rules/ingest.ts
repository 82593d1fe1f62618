import type { RuleGroup } from '../rule.js';

/** `memvault ingest`: a transcript that cannot be imported is reported with its place; the other files are imported. */
export const INGEST_RULES = {
  'ingest/read': {
    title: 'A transcript file cannot be read',
    severity: 'error',
    hint: 'pass transcript files (a folder: `memvault ingest folder/*.jsonl`)',
  },
  'ingest/format': {
    title: 'A file is not a transcript memvault reads',
    severity: 'error',
    hint: 'ingest reads Claude Code, Codex, Gemini CLI and Cursor sessions, OpenAI chat messages, a ChatGPT export, markdown or text; choose one with --format',
    docs: 'The format is picked by `--format`, else by extension and content. The hint of each message says what was expected.',
  },
  'ingest/claude-code': {
    title: 'A Claude Code session (JSONL) has a line memvault cannot read',
    severity: 'error',
    hint: 'is this a Claude Code session file (`~/.claude/projects/…/*.jsonl`)?',
    docs: 'A cut-off last line (the session was still being written) is a warning: it is ignored and the rest imported.',
  },
  'ingest/codex': {
    title: 'A Codex session log (rollout JSONL) has a line memvault cannot read',
    severity: 'error',
    hint: 'is this a Codex session file (`~/.codex/sessions/…/rollout-*.jsonl`)?',
    docs: 'A cut-off last line (the session was still being written) is a warning: it is ignored and the rest imported.',
  },
  'ingest/gemini': {
    title: 'A Gemini CLI chat recording has a record memvault cannot read',
    severity: 'error',
    hint: 'is this a Gemini CLI chat file (`~/.gemini/tmp/…/chats/session-*.jsonl`)?',
    docs: 'A cut-off last line (the session was still being written) is a warning: it is ignored and the rest imported.',
  },
  'ingest/cursor': {
    title: 'A Cursor agent transcript has a line memvault cannot read',
    severity: 'error',
    hint: 'is this a Cursor agent transcript (`~/.cursor/projects/…/agent-transcripts/*.jsonl`)?',
  },
  'ingest/openai': {
    title: 'An OpenAI chat-completions message list has an unusable message',
    severity: 'error',
    hint: 'is this an OpenAI chat-completions message list?',
  },
  'ingest/chatgpt': {
    title: 'A ChatGPT data export has an unusable conversation',
    severity: 'error',
    hint: 'is this the `conversations.json` of a ChatGPT data export?',
  },
  'ingest/markdown': {
    title: 'A markdown or text transcript cannot be imported',
    severity: 'error',
    hint: 'fix the YAML between the `---` lines, or remove it',
  },
  'ingest/edited': {
    title: 'The memory of a session was edited by hand: the new version was not written',
    severity: 'warning',
    hint: 'move or delete that memory and ingest again to import the new version',
  },
  'ingest/failed': {
    title: 'Some files could not be ingested',
    severity: 'error',
    hint: 'fix them and run ingest again; the other files were imported, and importing them again changes nothing',
  },
} as const satisfies RuleGroup;
