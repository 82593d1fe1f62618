import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../../../src/llm/extractive/index.js';
import type { SummaryRequest, SummarySource } from '../../../src/llm/types.js';
import type { Tier } from '../../../src/vault/model.js';
import { parseMarkdown } from '../../../src/vault/markdown.js';
import { extractSentences } from '../../../src/vault/sentences.js';
import { countTokens } from '../../../src/util/tokens.js';

/**
 * Summaries of coding-agent sessions a person can resume from (issue 27,
 * item 2): per session its goal, what got done, the decision and what is
 * next, with work-item ids, commits and the branch, within the tier's budget;
 * the busiest session or thread served before quiet ones.
 */

/** A session memory in the shape `memvault ingest` writes (src/ingest/distill.ts). */
function sessionMemory(options: {
  id: string;
  branch: string;
  item: string;
  pr: string;
  sha: string;
  rounds: number;
  span: string;
}): string {
  const { branch, item, pr, sha, rounds, span } = options;
  const outcome = Array.from(
    { length: rounds },
    (_, i) =>
      `Round ${i + 1} of ${item} measured the export path on staging at ${100 + i} ms before and ${10 + i} ms after the change, ` +
      'with memory flat instead of growing with the account size.',
  );
  return [
    `Claude Code session in \`ledgerly\` on branch \`${branch}\` (claude-sonnet-4-5), ${span} UTC: ${2 * rounds} messages, ${5 * rounds} tool calls.`,
    '',
    '## Requests',
    '',
    `Pick up ${item}: the invoice export times out for large accounts. Priya left review comments on ${pr}.`,
    '',
    '## Outcome',
    '',
    ...outcome.flatMap((line) => [line, '']),
    `Decision: stream the rows of ${item} with a keyset cursor of 500 invoices instead of loading them all.`,
    '',
    `The export for ${item} now works with the cursor and the tests pass again on the branch.`,
    '',
    `Open: the PDF export has the same pattern and should move to the cursor too; I filed it as ${item}-PDF-1.`,
    '',
    '## Changes',
    '',
    '- Files: edited `src/export/csv.ts`, `src/export/stream.ts`.',
    `- Committed \`${sha}\`: "${item}: stream the export".`,
    '',
    '## Activity',
    '',
    `Tool calls: Bash ${rounds}, Edit ${rounds}. Full transcript: [\`transcripts/${options.id}.md\`](../../../transcripts/${options.id}.md).`,
  ].join('\n');
}

function source(id: string, body: string, kind = 'session', day = '2026-10-20'): SummarySource {
  return { id, label: id, day, kind, importance: 'normal', body, sentences: extractSentences(parseMarkdown(body), { pinned: false }) };
}

function request(tier: Tier, sources: SummarySource[], tokens: number): SummaryRequest {
  return {
    tier,
    stream: 'main',
    period: '2026-10-20',
    start: '2026-10-20',
    end: '2026-10-20',
    sources,
    budget: { tokens, bytes: tokens * 6 },
    attempt: 0,
    missing: [],
  };
}

const summarizer = createExtractiveSummarizer();
const summarize = async (req: SummaryRequest): Promise<string> => (await summarizer.summarize(req)).body;

const SESSIONS = [
  { id: 's1', branch: 'feat/LED-231-export', item: 'LED-231', pr: '#418', sha: '4734f98', rounds: 1, span: '08:10–08:40' },
  { id: 's2', branch: 'feat/LED-232-currency', item: 'LED-232', pr: '#419', sha: 'c68c64f', rounds: 12, span: '09:00–12:30' },
  { id: 's3', branch: 'feat/LED-233-webhooks', item: 'LED-233', pr: '#420', sha: '9c41e07', rounds: 2, span: '13:00–13:30' },
];

describe('a day of agent sessions', () => {
  it('says per session its goal, what got done, the decision and what is next, with ids, commits and the branch', async () => {
    const body = await summarize(
      request(
        'daily',
        SESSIONS.map((s) => source(s.id, sessionMemory(s))),
        600,
      ),
    );
    expect(countTokens(body)).toBeLessThanOrEqual(600);
    for (const s of SESSIONS) {
      const block = body.slice(body.indexOf(`on \`${s.branch}\``));
      expect(block, s.id).toMatch(new RegExp(`^on \`${s.branch}\`\\n\\n- Goal: Pick up ${s.item}`));
      expect(block).toContain(`- Done: The export for ${s.item} now works`);
      expect(block).toContain(`- Decision: stream the rows of ${s.item}`);
      expect(block).toContain(`- Next: the PDF export`);
      expect(block).toContain(s.pr);
      expect(block).toContain(`\`${s.sha}\``);
    }
    // In the order they ran, and no tool activity.
    expect(body.indexOf('LED-231')).toBeLessThan(body.indexOf('LED-232'));
    expect(body).not.toContain('Tool calls');
  });

  it('gives every session its goal before any says more, and the busiest session its share first', async () => {
    const body = await summarize(
      request(
        'daily',
        SESSIONS.map((s) => source(s.id, sessionMemory(s))),
        170,
      ),
    );
    expect(countTokens(body)).toBeLessThanOrEqual(170);
    for (const s of SESSIONS) expect(body).toContain(`- Goal: Pick up ${s.item}`);
    // The long session (12 rounds) says what it did; the quiet ones only their goal.
    expect(body).toContain('- Done: The export for LED-232');
    expect(body).not.toContain('- Done: The export for LED-231');
  });

  it('leaves a day with other memories to the usual layout', async () => {
    const note = source('n1', 'Met Farah about invoicing. She wants the CSV export by April 3.', 'note');
    const body = await summarize(request('daily', [source('s1', sessionMemory(SESSIONS[0]!)), note], 400));
    expect(body).not.toContain('## Sessions');
    expect(body).toContain('Farah');
  });
});

describe('a week of agent-session days', () => {
  it('rolls the dailies up by work thread, the busiest thread first when the budget is tight', async () => {
    const days = ['2026-10-19', '2026-10-20', '2026-10-21'];
    const dailies: SummarySource[] = [];
    for (const day of days) {
      // LED-232 runs every day; LED-231 and LED-233 once each.
      const sessions = SESSIONS.filter(
        (s) => s.item === 'LED-232' || (day === '2026-10-19' ? s.item === 'LED-231' : day === '2026-10-21' && s.item === 'LED-233'),
      );
      const daily = await summarize({
        ...request(
          'daily',
          sessions.map((s) => source(s.id, sessionMemory(s), 'session', day)),
          600,
        ),
        start: day,
        end: day,
        period: day,
      });
      dailies.push(source(day, daily, 'summary', day));
    }
    const week = await summarize({ ...request('weekly', dailies, 160), period: '2026-W43', start: '2026-10-19', end: '2026-10-25' });
    expect(countTokens(week)).toBeLessThanOrEqual(160);
    expect(week).toContain('### `feat/LED-232-currency` (2026-10-19 to 2026-10-21, 3 sessions)');
    // Every thread is named with its goal; only the busy one says more.
    for (const item of ['LED-231', 'LED-232', 'LED-233']) expect(week).toContain(`- Goal: Pick up ${item}`);
    const threads = week.split('\n### ').slice(1);
    const saysMore = threads.filter((thread) => /\n- (?:Done|Decision|Next):/.test(thread)).map((thread) => thread.split(' ')[0]);
    expect(saysMore).toEqual(['`feat/LED-232-currency`']);
    const roomy = await summarize({ ...request('weekly', dailies, 800), period: '2026-W43', start: '2026-10-19', end: '2026-10-25' });
    expect(roomy.match(/- Next: the PDF export has the same pattern/g)).toHaveLength(3);
    expect(roomy).toContain('- Decision: stream the rows of LED-231');
  });
});
