import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../../../src/llm/extractive/index.js';
import { isLeadIn, isToolCallLine, opensWithReference, readabilityOf, wordCount } from '../../../src/llm/extractive/standalone.js';
import type { SummaryRequest, SummarySource } from '../../../src/llm/types.js';
import { parseMarkdown } from '../../../src/vault/markdown.js';
import { extractSentences } from '../../../src/vault/sentences.js';

/**
 * Every line the embedded summarizer writes stands alone: each rule on a small
 * hand-written day, with a budget that forces a choice.
 */

function source(id: string, body: string, label = id, time = '09:00'): SummarySource {
  return {
    id,
    label,
    day: '2026-09-29',
    time,
    kind: 'session',
    importance: 'normal',
    body,
    sentences: extractSentences(parseMarkdown(body), { pinned: false }),
  };
}

const request = (sources: SummarySource[], tokens: number): SummaryRequest => ({
  tier: 'daily',
  stream: 'main',
  period: '2026-09-29',
  start: '2026-09-29',
  end: '2026-09-29',
  sources,
  budget: { tokens, bytes: tokens * 6 },
  attempt: 0,
  missing: [],
});

const summarizer = createExtractiveSummarizer();
const summarize = async (sources: SummarySource[], tokens: number): Promise<string> =>
  (await summarizer.summarize(request(sources, tokens))).body;
const bullets = (body: string): string[] => body.split('\n').filter((line) => /^\s*- /.test(line));

describe('standalone tests', () => {
  it('recognises tool-call lines, lead-ins and reference openings', () => {
    expect(isToolCallLine('`Read` `mix.exs` → 93 lines')).toBe(true);
    expect(isToolCallLine('`Grep` `lib` → 1 line')).toBe(true);
    expect(isToolCallLine('`ADR-012` records the decision.')).toBe(false);
    expect(isLeadIn('Now push to remote:')).toBe(true);
    expect(isLeadIn('Decision: keep the cache.')).toBe(false);
    for (const text of [
      'It goes through the incident lead.',
      'Both have an `issued_at` in August.',
      'Turns out nobody did.',
      'She fixed it.',
    ])
      expect(opensWithReference(text), text).toBe(true);
    for (const text of ['This week the release went out.', 'Marcus agreed to co-own the runbook.', 'Caroline: Itinerary is booked.'])
      expect(opensWithReference(text), text).toBe(false);
  });

  it('measures a summary: a lead-in with its list is fine, without it is not; labels are not words', () => {
    const r = readabilityOf(
      [
        '## Done',
        '',
        '- Plan, agreed with Marcus:',
        '  - cut the release branch on Monday',
        '- Before I leave tomorrow:',
        '- **Tue 09-29** It ran at 08:00 sharp.',
        '- `Bash` `npm test` → 3 passed',
        '- Going to bed.',
      ].join('\n'),
    );
    expect(r).toMatchObject({ units: 6, toolCalls: 1, leadIns: 1, references: 1, fragments: 1 });
  });
});

describe('extractive summarizer: every unit stands alone', () => {
  it('says a lead-in only with (part of) its list, in one bullet', async () => {
    const body = [
      'Handover notes for the week off.',
      '',
      'Before I leave tomorrow (2 October 2026):',
      '',
      '- hand the pager for the `billing-worker` queue to Marcus Weber',
      '- merge the ADR-010 webhook handlers',
      '- write the Stripe replay runbook',
    ].join('\n');
    const out = await summarize([source('m1', body, 'Handover before the week off')], 70);
    const lead = bullets(out).find((line) => line.includes('Before I leave tomorrow'));
    expect(lead, out).toBeDefined();
    expect(lead).toMatch(/Before I leave tomorrow \(2 October 2026\): hand the pager/);
    expect(readabilityOf(out).leadIns).toBe(0);
  });

  it('drops a lead-in that has no list', async () => {
    const body = 'The migration to Postgres 16 finished on staging without errors. Now push to remote:';
    const out = await summarize([source('m1', body)], 200);
    expect(out).toContain('Postgres 16');
    expect(out).not.toContain('push to remote');
  });

  it('says a sentence opening with a reference only with the sentence it refers to', async () => {
    const body = [
      'Checked the two invoices Holzwerk Brandt reported missing from the August export.',
      'Both have an `issued_at` just after midnight UTC on 1 August, which puts them into the wrong month.',
    ].join(' ');
    const other = source(
      'm2',
      'Reviewed the onboarding guide with Caroline and fixed three broken links in the setup chapter.',
      'Docs',
      '14:00',
    );
    const out = await summarize([source('m1', body, 'Export check'), other], 200);
    const line = bullets(out).find((l) => l.includes('issued_at'));
    expect(line, out).toBeDefined();
    expect(line).toMatch(/^- Checked the two invoices .* Both have an `issued_at`/);
    expect(readabilityOf(out).references).toBe(0);
  });

  it('leaves out a reference opening with nothing before it', async () => {
    const out = await summarize(
      [
        source('m1', 'It ran at 08:00 sharp, once, 287 reminders in 41 seconds.'),
        source('m2', 'Upgraded the staging Redis to version 7.2 with no downtime.'),
      ],
      200,
    );
    expect(out).not.toContain('287 reminders');
    expect(out).toContain('Redis');
  });

  it('keeps the subject of a timeline', async () => {
    const body = [
      'Done. Timeline of the window:',
      '',
      '- 04:45 status page to maintenance, API and worker scaled to zero',
      '- 04:52 snapshot `pre-pg16` started, done 04:57',
      '- 05:13 instance available on 16.8',
      '- 05:27 worker up, status page operational',
    ].join('\n');
    const out = await summarize([source('m1', body, 'Postgres 16 upgrade done')], 90);
    for (const line of bullets(out).filter((l) => /\d{2}:\d{2}/.test(l)))
      expect(line).toMatch(/^- Postgres 16 upgrade done — timeline of the window: /);
    expect(out).toMatch(/04:52 snapshot `pre-pg16` started|05:13 instance available/);
  });

  it('never chooses a tool-call line', async () => {
    const body = [
      'Fixed the flaky invoice totals test by summing in integer cents.',
      '',
      '- `Read` `mix.exs` → 93 lines',
      '- `Grep` `lib` → 1 line',
      '- `Bash` `mix test test/invoice_test.exs` → 12 tests, 0 failures',
    ].join('\n');
    const out = await summarize([source('m1', body)], 300);
    expect(out).toContain('integer cents');
    expect(out).not.toContain('→');
  });

  it("represents the day's main event among many details", async () => {
    const details = [
      'Lunch with the accountant about the Q3 VAT filing and the receipts from the Hamburg trip.',
      'Renewed the TLS certificate for the docs site ahead of its expiry next week.',
      'Answered the customer in Graz about the duplicate reminder email and refunded the fee.',
      'Triaged eleven new issues from the weekend, labelled four as good first issues.',
      'Cleaned up the CI cache keys so the lint job stops restoring stale node modules.',
      'Reviewed the pull request that moves the PDF renderer to a worker thread.',
    ];
    const sources = [
      source(
        'm1',
        'Production upgrade to Postgres 16 went through in 27 minutes; the Postgres extensions were updated too.',
        'Postgres 16 upgrade',
        '05:30',
      ),
      source('m2', 'Checked the Postgres query plans after the upgrade: nothing slower.', 'Post-upgrade Postgres check', '10:00'),
      ...details.map((text, i) => source(`d${i}`, text, `Note ${i}`, `1${i}:00`)),
    ];
    const out = await summarize(sources, 60);
    expect(out).toMatch(/Postgres/);
  });
});

describe('wordCount', () => {
  it('counts what splitting on \\s does, for every character of the basic plane as a separator', () => {
    const bySplit = (text: string): number => text.split(/\s+/).filter(Boolean).length;
    for (let code = 0; code < 0x10000; code++) {
      const text = `a${String.fromCharCode(code)}b `;
      if (wordCount(text) !== bySplit(text)) expect(wordCount(text), `U+${code.toString(16)}`).toBe(bySplit(text));
    }
    for (const text of ['', '   ', ' two  words ', '\tone', 'a\u00a0b\u3000c\ufeffd', 'x\u200by'])
      expect(wordCount(text), JSON.stringify(text)).toBe(bySplit(text));
  });
});
