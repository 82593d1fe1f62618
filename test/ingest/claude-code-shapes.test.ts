import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/ingest/detect.js';
import { renderSession, renderTranscript, type RenderContext } from '../../src/ingest/render.js';

/**
 * Claude Code log shapes (test/fixtures/claude-code, see its README): a 1.x
 * session, a 2.x session with a compaction, a 2.x sub-agent log and a log of
 * session titles only. Each is recognised and distilled: requests verbatim,
 * conclusions, what changed, one activity line; boilerplate left out.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url));
const SUB_AGENT = '7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41/subagents/agent-a1b2c3d.jsonl';
const parse = (name: string) => parseTranscript(readFileSync(`${FIXTURES}${name}`), name);
const context = (): RenderContext => ({
  timezone: 'Europe/Berlin',
  tags: [],
  redact: true,
  fallback: new Date('2026-03-10T12:00:00Z'),
  source: { file: 'x', sha256: 'f'.repeat(64) },
  redactions: new Map(),
});

describe('Claude Code 2.x session with a compaction', () => {
  const parsed = parse('v2-session.jsonl');
  const session = parsed.sessions[0]!;
  const [draft] = renderSession(session, context());
  const body = draft!.body;

  it('reads the session, its title and the compaction summary as context, not as a request', () => {
    expect(session.id).toBe('7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41');
    expect(session.title).toBe('Idempotent Stripe webhooks');
    expect(session.turns.filter((t) => t.compactSummary)).toHaveLength(1);
    expect(body).toMatch(/## Before compaction\n\nAnalysis: the user asked for idempotent Stripe webhooks\./);
  });

  it('keeps the requests verbatim and drops interruptions', () => {
    const requests = /## Requests\n\n([\s\S]*?)\n\n## /.exec(body)![1]!.split('\n\n');
    expect(requests).toEqual([
      expect.stringMatching(/^Stripe retries webhooks, .* skip events we have already processed\.$/),
      "Don't push. Commit it on the branch, I'll open the pull request myself.",
      'Have a sub-agent check whether the refund webhook has the same duplicate problem.',
    ]);
    expect(body).not.toContain('Request interrupted');
  });

  it('keeps explanations and conclusions, not narration', () => {
    expect(body).toContain('so a retried `checkout.session.completed` fulfils the order a second time');
    expect(body).toContain('Decision: the event id is recorded in the same transaction as the fulfilment');
    expect(body).toContain('The refund webhook has the same problem');
    expect(body).not.toContain("I'll look at the webhook handler first");
    expect(body).not.toContain('Now let me run the webhook tests');
  });

  it('says what changed: files with counts, tests with results, the commit', () => {
    expect(body).toContain('- Files: created `migrations/0042_processed_stripe_events.sql`; edited `src/webhooks/stripe.ts` (3 edits).');
    expect(body).toContain(
      '- Tests: `npx vitest run test/webhooks` ran 2 times, failed (Tests 1 failed | 6 passed (7)), then passed (Tests 7 passed (7)).',
    );
    expect(body).toContain('- Committed `3f2a9bc`: "Skip Stripe webhook events already processed".');
  });

  it('aggregates tool calls into one activity line; the refused push and the to-do echo are not changes', () => {
    expect(body).toContain(
      'Tool calls: Bash 3, Edit 1, Grep 1, MultiEdit 1, Read 1, Task 1, Write 1; to-do list updated 1 time; 1 refused.',
    );
    expect(body).not.toContain('Pushed');
    expect(body).not.toContain('Todos have been modified');
    expect(body).not.toContain('→');
  });

  it('keeps the full transcript apart, linked from the memory', () => {
    expect(draft!.extra).toEqual({ transcript: 'transcripts/7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41.md' });
    expect(body).toContain('Full transcript: [`transcripts/7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41.md`]');
    const transcript = renderTranscript(session, context());
    expect(transcript).toContain("I'll look at the webhook handler first.");
    expect(transcript).toContain('- `Grep` `src` → 2 lines');
    expect(transcript).toContain('**11:15 summary of the conversation so far:**');
  });
});

describe('Claude Code 2.x sub-agent log', () => {
  const parsed = parse(SUB_AGENT);

  it('is read as its own session, linked to the session that started it', () => {
    expect(parsed.sessions).toHaveLength(1);
    const session = parsed.sessions[0]!;
    expect(session.id).toBe('7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41/agent-a1b2c3d');
    expect(session.meta).toMatchObject({ parent: '7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41', agent: 'a1b2c3d' });
    const [draft] = renderSession(session, context());
    expect(draft!.title).toMatch(/^Sub-agent: Check whether `charge\.refunded` handling/);
    expect(draft!.body).toMatch(/^Claude Code sub-agent `a1b2c3d` of session `7d3c1f0a` in `shopfront`/);
    expect(draft!.body).toContain('credits the customer on every delivery of `charge.refunded` (line 31)');
  });
});

describe('Claude Code 1.x session', () => {
  it('distils a session of to-do list updates into its requests and answer', () => {
    const parsed = parse('v1-todowrite.jsonl');
    const [draft] = renderSession(parsed.sessions[0]!, context());
    expect(draft!.body).toContain('## Requests\n\nCan you help me implement a new feature with proper task management?');
    expect(draft!.body).toContain('to-do list updated 3 times');
    expect(draft!.body).not.toContain('Todos have been modified');
  });
});

describe('a log of session titles only', () => {
  it('is recognised and imports nothing, with a warning instead of an error', () => {
    const parsed = parse('titles-only.jsonl');
    expect(parsed.sessions).toEqual([]);
    expect(parsed.warnings).toEqual([
      expect.objectContaining({ severity: 'warning', reason: expect.stringMatching(/^only session titles/), rule: 'ingest/claude-code' }),
    ]);
  });
});
