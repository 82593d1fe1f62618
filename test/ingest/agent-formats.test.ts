import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCodex } from '../../src/ingest/codex.js';
import { parseCursor } from '../../src/ingest/cursor.js';
import { isStreamed, jsonLinesFormat, parseStreamedTranscript, parseTranscript } from '../../src/ingest/detect.js';
import { parseGeminiLines } from '../../src/ingest/gemini.js';
import { IngestError } from '../../src/ingest/session.js';

/**
 * The session logs of Codex, Gemini CLI and Cursor (test/fixtures/agents/,
 * shapes from each agent's recorder: see SOURCES.md) parsed into turns: what
 * the person asked, what the agent did and concluded, with the agent's own
 * bookkeeping (injected instructions, UI events, notices, rewound messages)
 * left out.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/agents');
const CODEX = 'codex/rollout-2026-03-19T09-12-03-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl';
const GEMINI = 'gemini/session-2026-03-19T10-04-0e2c7d1a.jsonl';
const GEMINI_JSON = 'gemini/session-2026-01-08T16-20-9a8b7c6d.json';
const CURSOR = 'cursor/3b9e4f2a-6c1d-4e8f-a7b2-5d0c9e8f7a6b.jsonl';
const read = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

const temp = mkdtempSync(path.join(os.tmpdir(), 'memvault-agent-formats-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('Codex rollouts', () => {
  it('reads the request, the tool calls with their results and the conclusion; leaves out instructions, reasoning and UI events', () => {
    const { sessions, warnings } = parseCodex(read(CODEX), CODEX);
    expect(warnings).toEqual([]);
    const [session] = sessions;
    expect(session).toMatchObject({
      format: 'codex',
      id: '0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
      meta: { cwd: '/home/ana/src/ledgerly', branch: 'fix/retry-storm', model: 'gpt-5-codex' },
    });
    expect(session!.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    const [request, answer] = session!.turns;
    expect(request!.text).toBe(
      'The payment webhook retries hammer the ledger service after an outage. Cap the retries with exponential backoff.',
    );
    expect(answer!.tools.map((t) => [t.name, t.error ?? false])).toEqual([
      ['shell', false],
      ['apply_patch', false],
      ['shell', true],
    ]);
    expect(answer!.tools[0]!.input).toEqual({ command: ['bash', '-lc', "rg -n 'retry' src/webhooks"], workdir: '/home/ana/src/ledgerly' });
    expect(answer!.tools[2]!.result).toContain('expected 5 attempts, got 6');
    expect(answer!.conclusion).toMatch(/^Decision: webhook deliveries stop after 5 attempts/);
    // The decision appears once: the event_msg copy of the message is not read.
    expect(answer!.text.match(/Decision:/g)).toHaveLength(1);
    expect(session!.title).toMatch(/^The payment webhook retries hammer the ledger service/);
  });

  it('a cut-off last line is a warning; a broken line before the end is an error at its place', () => {
    const text = read(CODEX);
    const cut = parseCodex(text.slice(0, text.length - 40), CODEX);
    expect(cut.warnings.map((w) => w.reason)).toEqual(['incomplete last line ignored (the session was still being written?)']);
    const lines = text.split('\n');
    lines.splice(3, 0, '{"timestamp": oops');
    expect(() => parseCodex(lines.join('\n'), CODEX)).toThrow(/:4:\d+ not valid JSON/);
  });

  it('a file without messages is an error that says what a Codex log is', () => {
    const meta = `${read(CODEX).split('\n')[0]}\n`;
    expect(() => parseCodex(meta, CODEX)).toThrow(IngestError);
    expect(() => parseCodex(meta, CODEX)).toThrow(/no `response_item` messages/);
  });
});

describe('Gemini CLI chat recordings', () => {
  it('keeps the last record of a message, drops rewound messages and notices, and takes the summary as title', () => {
    const { sessions } = parseGeminiLines(read(GEMINI), GEMINI);
    const [session] = sessions;
    expect(session).toMatchObject({
      format: 'gemini',
      id: '0e2c7d1a-5b6f-4a3e-9c8d-7e6f5a4b3c2d',
      title: 'Invoice export streams with a cursor',
    });
    expect(session!.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    const answer = session!.turns[1]!;
    // m-2 was written twice (its tool call arrived later): one text, one call with its result.
    expect(answer.text.match(/Let me look at the export query/g)).toHaveLength(1);
    expect(answer.tools).toHaveLength(1);
    expect(answer.tools[0]).toMatchObject({ name: 'read_file', input: { absolute_path: '/home/ana/src/ledgerly/src/export/invoices.ts' } });
    expect(answer.tools[0]!.result).toContain('db.invoiceLines.findMany');
    // m-4 was rewound, m-3 is a notice.
    expect(answer.text).not.toContain('It loads all invoice lines');
    expect(answer.text).not.toContain('fallback model');
    expect(answer.conclusion).toMatch(/^Decision: the invoice export streams lines/);
  });

  it('reads the older whole-record .json, found by its content', () => {
    const { format, sessions } = parseTranscript(readFileSync(path.join(FIXTURES, GEMINI_JSON)), GEMINI_JSON);
    expect(format).toBe('gemini');
    expect(sessions[0]!.turns.map((t) => [t.role, t.tools.length])).toEqual([
      ['user', 0],
      ['assistant', 1],
    ]);
    expect(sessions[0]!.turns[1]!.tools[0]!.result).toBe('Successfully modified file: .env.example (1 replacements).');
  });

  it('a recording with only its metadata line (a session just started) imports nothing, without an error', () => {
    expect(parseGeminiLines(`${read(GEMINI).split('\n')[0]}\n`, GEMINI).sessions).toEqual([]);
  });
});

describe('Cursor agent transcripts', () => {
  it('reads the request out of <user_query> and the assistant messages as one turn; the file name is the session', () => {
    const { sessions } = parseCursor(read(CURSOR), CURSOR);
    const [session] = sessions;
    expect(session!.id).toBe('cursor-3b9e4f2a-6c1d-4e8f-a7b2-5d0c9e8f7a6b');
    expect(session!.turns.map((t) => [t.role, t.text.split('\n')[0]])).toEqual([
      ['user', 'Add a health check endpoint for the ledger API.'],
      ['assistant', "I'll add GET /healthz that checks the database connection."],
    ]);
    expect(session!.turns[1]!.conclusion).toContain('Decision: /healthz answers 200');
  });
});

describe('telling JSON Lines formats apart', () => {
  it('by the first line: Codex, Gemini CLI, Cursor, else Claude Code', () => {
    expect(jsonLinesFormat(read(CODEX))).toBe('codex');
    expect(jsonLinesFormat(read(GEMINI))).toBe('gemini');
    expect(jsonLinesFormat(read(CURSOR))).toBe('cursor');
    expect(jsonLinesFormat('{"type":"user","message":{"role":"user","content":"hi"}}\n')).toBe('claude-code');
    expect(jsonLinesFormat('not json\n')).toBe('claude-code');
  });

  it('streams a .jsonl of any agent from its descriptor, the format from its first line even when that line is longer than the sniffed part', () => {
    const lines = read(CODEX).split('\n');
    // A session_meta carrying 2 MiB of instructions: its line is not whole in the first MiB read.
    const meta = JSON.parse(lines[0]!);
    meta.payload.instructions = 'Follow the house rules. '.repeat(90_000);
    lines[0] = JSON.stringify(meta);
    const file = path.join(temp, 'rollout-long-meta.jsonl');
    writeFileSync(file, lines.join('\n'));
    expect(isStreamed(file)).toBe(true);
    const fd = openSync(file, 'r');
    try {
      const parsed = parseStreamedTranscript(fd, file);
      expect(parsed.format).toBe('codex');
      expect(parsed.sessions[0]!.turns).toHaveLength(2);
    } finally {
      closeSync(fd);
    }
  });

  it('--format gemini streams a .jsonl recording and reads a .json one whole', () => {
    expect(isStreamed('session-x.jsonl', 'gemini')).toBe(true);
    expect(isStreamed('session-x.json', 'gemini')).toBe(false);
    expect(isStreamed('anything', 'codex')).toBe(true);
  });
});
