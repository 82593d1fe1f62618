import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/ingest/detect.js';
import { lineColumn, locateJsonPath } from '../../src/ingest/json-position.js';
import { renderSession, renderTranscript, type RenderContext } from '../../src/ingest/render.js';
import { IngestError, type ParsedTranscript } from '../../src/ingest/session.js';
import { memoryPath, slugify } from '../../src/ingest/writer.js';

/**
 * The transcript parsers on the sample transcripts in test/fixtures/ingest-*:
 * who said what and when, tool calls with their results, what is left out,
 * and errors that name the line and what was expected.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const read = (relative: string): Buffer => readFileSync(`${FIXTURES}${relative}`);
const parse = (relative: string, format?: Parameters<typeof parseTranscript>[2]): ParsedTranscript =>
  parseTranscript(read(relative), relative, format);

function errorOf(run: () => unknown): IngestError {
  try {
    run();
  } catch (error) {
    if (error instanceof IngestError) return error;
    throw error;
  }
  throw new Error('expected an IngestError');
}

const context = (overrides: Partial<RenderContext> = {}): RenderContext => ({
  timezone: 'Europe/Berlin',
  tags: [],
  redact: true,
  fallback: new Date('2026-02-14T09:00:00Z'),
  source: { file: 'x', sha256: 'f'.repeat(64) },
  redactions: new Map(),
  ...overrides,
});

describe('Claude Code JSONL', () => {
  const parsed = parse('ingest-claude-code/session.jsonl');
  const session = parsed.sessions[0]!;

  it('reads the session id, title, project and branch', () => {
    expect(parsed.format).toBe('claude-code');
    expect(session.id).toBe('4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c');
    expect(session.title).toBe('Fix flaky invoice totals test');
    expect(session.meta).toEqual({ cwd: '/home/ana/src/ledgerly', branch: 'fix/invoice-flake', model: 'claude-sonnet-4-5-20250929' });
  });

  it('keeps speakers and timestamps, leaves out meta lines, thinking and bookkeeping', () => {
    // The assistant's messages between two requests are one turn, unless minutes apart.
    expect(session.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant', 'user', 'assistant']);
    expect(session.turns[0]!.time?.toISOString()).toBe('2026-02-13T21:40:12.345Z');
    const all = session.turns.map((t) => t.text).join('\n');
    expect(all).not.toContain('Caveat:');
    expect(all).not.toContain('Flaky totals usually mean');
  });

  it('attaches tool results to their calls', () => {
    const tools = session.turns.flatMap((t) => t.tools);
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Bash', 'Edit', 'Bash', 'Bash']);
    const failing = tools[1]!;
    expect(failing.error).toBe(true);
    expect(failing.result).toContain('Tests  2 failed | 8 passed (10)');
    expect(tools[3]!.result).toContain('50 passed');
  });

  it('renders one distilled memory per day in the configured zone, the full transcript apart', () => {
    const drafts = renderSession(session, context());
    expect(drafts.map((d) => [d.day, d.date, d.title])).toEqual([
      ['2026-02-13', '2026-02-13T22:40:12+01:00', 'Fix flaky invoice totals test'],
      ['2026-02-14', '2026-02-14T00:05:44+01:00', 'Fix flaky invoice totals test (continued)'],
    ]);
    const [first, second] = drafts.map((d) => d.body);
    expect(first).toContain('## Requests\n\nThe invoice totals test fails about one run in five on CI');
    expect(first).toContain('Decision: sum in integer cents');
    expect(first).toContain('- Tests: `npx vitest run test/invoice-totals.test.ts --repeat 10` failed (Tests 2 failed | 8 passed (10)).');
    // Narration and one line per tool call stay in the transcript.
    expect(first).not.toContain("I'll read the test");
    expect(first).not.toContain('→');
    expect(second).toContain('- Committed `9c41e07`: "Sum invoice totals in integer cents".');
    expect(drafts[0]!.extra).toEqual({ transcript: 'transcripts/4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c.md' });
    const transcript = renderTranscript(session, context());
    expect(transcript).toContain('**22:40 user:** The invoice totals test fails');
    expect(transcript).toContain(
      '- `Bash` `npx vitest run test/invoice-totals.test.ts --repeat 10` → error: FAIL test/invoice-totals.test.ts > totals > rounds per line',
    );
    expect(transcript).toContain('- `Read` `test/invoice-totals.test.ts` → 9 lines');
    expect(second).toMatch(/^Claude Code session in `ledgerly` on branch `fix\/invoice-flake`.*Continued from 2026-02-13\./);
    expect(drafts.map((d) => d.source.part)).toEqual(['2026-02-13', '2026-02-14']);
    // In UTC the whole session is one day.
    expect(renderSession(session, context({ timezone: 'UTC' })).map((d) => d.day)).toEqual(['2026-02-13']);
  });
});

describe('OpenAI chat-completions messages', () => {
  const parsed = parse('ingest-openai/chat.json');
  const session = parsed.sessions[0]!;

  it('reads a request body with tool calls matched to their results by id', () => {
    expect(parsed.format).toBe('openai');
    expect(session.meta.model).toBe('gpt-4.1-mini');
    expect(session.turns.map((t) => t.role)).toEqual(['system', 'user', 'assistant', 'assistant', 'user', 'assistant', 'assistant']);
    const calls = session.turns.flatMap((t) => t.tools);
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ['get_invoice', { invoice_id: 'INV-2026-0142' }],
      ['list_payments', { invoice_id: 'INV-2026-0142', limit: 10 }],
      ['refund_payment', { payment_id: 'pay_302', reason: 'duplicate charge' }],
    ]);
    expect(calls[2]!.result).toContain('re_5521');
    expect(session.turns[4]!.text).toContain('[image]');
  });

  it('has no timestamps: messages are dated with the fallback (--date) and show no clock time', () => {
    const [draft] = renderSession(session, context());
    expect(draft!.date).toBe('2026-02-14T10:00:00+01:00');
    expect(draft!.body).toContain('**user:** Customer ACME GmbH');
    expect(draft!.body).not.toMatch(/\*\*\d\d:\d\d /);
  });

  it('gives the same session id to a longer copy of the same conversation', () => {
    const text = read('ingest-openai/chat.json').toString('utf8');
    const longer = JSON.parse(text) as { messages: unknown[] };
    longer.messages.push({ role: 'user', content: 'Thanks!' });
    const again = parseTranscript(Buffer.from(JSON.stringify(longer)), 'longer.json');
    expect(again.sessions[0]!.id).toBe(session.id);
  });
});

describe('ChatGPT conversations.json', () => {
  const parsed = parse('ingest-chatgpt/conversations.json');

  it('makes one session per conversation, with its title and id', () => {
    expect(parsed.format).toBe('chatgpt');
    expect(parsed.sessions.map((s) => [s.id, s.title])).toEqual([
      ['67ac1f2e-90b4-8002-a3c1-5d9e2b7f4c10', 'Postgres replica lag during nightly export'],
      ['67ae9c41-11d3-8002-b7e2-0c4f6a8d2e91', 'Changelog for the rounding fix'],
    ]);
  });

  it('follows the branch shown last (current_node), without hidden system messages or custom instructions', () => {
    const turns = parsed.sessions[0]!.turns;
    const text = turns.map((t) => t.text).join('\n');
    expect(text).not.toContain('an earlier answer that was regenerated');
    expect(text).not.toContain('small invoicing SaaS');
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(turns[0]!.time?.toISOString()).toBe('2026-02-12T16:00:12.500Z');
  });

  it('turns messages to a tool into tool calls with their output', () => {
    const [call] = parsed.sessions[0]!.turns[3]!.tools;
    expect(call).toMatchObject({ name: 'python', result: '<Figure size 640x480 with 1 Axes>' });
    expect(String(call!.input)).toContain('plt.plot(lag)');
  });
});

describe('markdown and text', () => {
  it('keeps a note as it is, with its frontmatter date, title and tags', () => {
    const [session] = parse('ingest-markdown/2026-02-10-standup-notes.md').sessions;
    expect(session!.document?.date).toBe('2026-02-10T09:30:00+01:00');
    expect(session!.title).toBe('Standup notes, billing team');
    const [draft] = renderSession(session!, context());
    expect(draft).toMatchObject({
      day: '2026-02-10',
      date: '2026-02-10T09:30:00+01:00',
      tags: ['standup', 'billing'],
      extra: { attendees: ['Ana', 'Farah', 'Jonas'] },
    });
    expect(draft!.body).toContain('Decision: no deploys on Friday afternoons');
  });

  it('dates a text file by the date in its name and titles it by its first line', () => {
    const [session] = parse('ingest-markdown/2026-02-11-pairing-call.txt').sessions;
    expect(session!.title).toBe('Pairing call with Jonas about the nightly export');
    expect(renderSession(session!, context())[0]).toMatchObject({ day: '2026-02-11', date: '2026-02-11' });
  });
});

describe('malformed input', () => {
  it('names the line and column of a broken JSONL line', () => {
    const error = errorOf(() => parse('ingest-malformed/broken-line.jsonl'));
    expect(error.diagnostic).toMatchObject({ line: 3, rule: 'ingest/claude-code', severity: 'error' });
    expect(error.diagnostic.column).toBeGreaterThan(200);
    expect(error.diagnostic.reason).toMatch(/^not valid JSON: /);
  });

  it('says what was expected in a line of the wrong shape', () => {
    const error = errorOf(() => parse('ingest-malformed/missing-message.jsonl'));
    expect(error.diagnostic).toMatchObject({ line: 3, column: 1, reason: 'expected a `message` object in this `assistant` line' });
  });

  it('ignores a cut-off last line of a log still being written, with a warning', () => {
    const parsed = parse('ingest-malformed/still-writing.jsonl');
    expect(parsed.sessions[0]!.turns).toHaveLength(2);
    expect(parsed.warnings).toEqual([
      expect.objectContaining({ line: 3, severity: 'warning', reason: expect.stringContaining('incomplete last line') }),
    ]);
  });

  it('points at the bad value of an OpenAI message', () => {
    const error = errorOf(() => parse('ingest-malformed/bad-role.json'));
    expect(error.diagnostic).toMatchObject({
      line: 4,
      column: 5,
      reason: 'message 3: expected `role` to be one of system, developer, user, assistant, tool, got `"bot"`',
    });
  });

  it('reports where a JSON file breaks, and an unknown JSON shape', () => {
    expect(errorOf(() => parse('ingest-malformed/truncated.json')).diagnostic).toMatchObject({ line: 3, rule: 'ingest/format' });
    expect(errorOf(() => parse('ingest-malformed/unknown.json')).diagnostic.reason).toMatch(
      /^unknown JSON transcript: expected OpenAI chat messages/,
    );
    expect(errorOf(() => parseTranscript(Buffer.from('hello'), 'notes.docx')).diagnostic.reason).toBe(
      'unknown transcript format (`.docx`)',
    );
    expect(errorOf(() => parseTranscript(Buffer.from([0x7b, 0, 0x7d]), 'x.json')).diagnostic.reason).toMatch(/binary/);
  });

  it('checks a forced format', () => {
    const error = errorOf(() => parse('ingest-openai/chat.json', 'claude-code'));
    expect(error.diagnostic).toMatchObject({ line: 1, rule: 'ingest/claude-code' });
  });
});

describe('helpers', () => {
  it('locates JSON paths', () => {
    const text = '{\n  "a": [1, {"b": "x"}],\n  "c": {"d": 2}\n}';
    expect(lineColumn(text, locateJsonPath(text, ['a', 1, 'b']))).toEqual({ line: 2, column: 13 });
    expect(lineColumn(text, locateJsonPath(text, ['c', 'missing']))).toEqual({ line: 3, column: 8 });
    // Array items, the root, a missing index, escaped and non-ASCII keys, a duplicate key (the first), a scalar with no children.
    const list = '  [ {"role": "user"}, {"role": 5} ]';
    expect([[1, 'role'], [1], [], [7, 'role']].map((path) => locateJsonPath(list, path))).toEqual([23, 22, 2, 2]);
    const keys = '{"é\\"x": {"k": [true, null, "ü"]}, "n": 1, "n": 2}';
    expect([['é"x', 'k', 2], ['n'], ['n', 'deeper']].map((path) => locateJsonPath(keys, path))).toEqual([28, 35, 40]);
  });

  it('makes readable, bounded slugs and paths', () => {
    expect(slugify('Auth refactor: JWT → sessions!')).toBe('auth-refactor-jwt-sessions');
    expect(slugify('Überprüfung der Zähler')).toBe('uberprufung-der-zahler');
    expect(slugify('key [REDACTED:openai] leaked')).toBe('key-leaked');
    expect(slugify('!!!')).toBe('memory');
    expect(slugify('one two three four five six seven eight nine ten').split('-')).toHaveLength(8);
    expect(memoryPath('main', '2026-02-13', 'auth', 2)).toBe('main/memories/2026/02/2026-02-13-auth-2.md');
  });
});
