import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../../../src/llm/extractive/index.js';
import type { SummaryRequest, SummarySource } from '../../../src/llm/types.js';
import type { Importance, Tier } from '../../../src/vault/model.js';
import { parseMarkdown } from '../../../src/vault/markdown.js';
import { extractSentences } from '../../../src/vault/sentences.js';
import { countBytes, countTokens } from '../../../src/util/tokens.js';

function source(
  id: string,
  day: string,
  body: string,
  options: { importance?: Importance; time?: string; label?: string } = {},
): SummarySource {
  const importance = options.importance ?? 'normal';
  return {
    id,
    label: options.label ?? id,
    day,
    ...(options.time ? { time: options.time } : {}),
    kind: 'session',
    importance,
    body,
    sentences: extractSentences(parseMarkdown(body), { pinned: importance === 'pinned' }),
  };
}

function request(
  tier: Tier,
  sources: SummarySource[],
  budget: { tokens: number; bytes: number },
  extra: Partial<SummaryRequest> = {},
): SummaryRequest {
  return { tier, stream: 'main', period: 'p', start: '2026-02-09', end: '2026-02-15', sources, budget, attempt: 0, missing: [], ...extra };
}

const summarizer = createExtractiveSummarizer();
const summarize = async (req: SummaryRequest): Promise<string> => (await summarizer.summarize(req)).body;

/** Unremarkable sentences about made-up widgets, each with its own words (no near-duplicates), none must-keep. */
function filler(count: number, seed: number): string {
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tu', 'vos', 'zel', 'pra', 'dun', 'fi'];
  const word = (n: number): string => `${syllables[n % 10]}${syllables[Math.floor(n / 10) % 10]}${syllables[Math.floor(n / 100) % 10]}`;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const base = (seed * 50 + i) * 3;
    lines.push(`Spent a while looking at the ${word(base)} panel and the ${word(base + 1)} widget near the ${word(base + 2)} screen.`);
  }
  return lines.join(' ');
}

const DECISION = 'Decision: sessions are stored in Postgres with a 30-day expiry.';
const CRITICAL = 'Never run the backup pruner against the primary cluster #critical.';
const CODE = 'The auth record now lives in `ADR-012` for reviewers.';

function busyDay(): SummarySource[] {
  return [
    source('m1', '2026-02-10', `${filler(15, 1)}\n\n${DECISION}`, { time: '09:00' }),
    source('m2', '2026-02-10', `${filler(15, 2)}\n\n${CRITICAL}`, { time: '11:00' }),
    source('m3', '2026-02-10', `${filler(15, 3)}\n\n${CODE}`, { time: '15:00' }),
  ];
}

function sectionTitles(body: string): string[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('## '))
    .map((line) => line.slice(3));
}

function bullets(body: string, section?: string): string[] {
  const lines = body.split('\n');
  const start = section === undefined ? 0 : lines.indexOf(`## ${section}`);
  if (start < 0) return [];
  const out: string[] = [];
  for (let i = start + (section === undefined ? 0 : 1); i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (section !== undefined && line.startsWith('## ')) break;
    if (line.startsWith('- ')) out.push(line);
  }
  return out;
}

describe('extractive summarizer', () => {
  it('reports provider, model, zero usage and a per-tier prompt id', async () => {
    expect(summarizer.provider).toBe('extractive');
    expect(summarizer.model).toBe('memvault-extractive-1');
    expect(summarizer.promptId('daily')).toMatch(/^daily@[0-9a-f]{8}$/);
    expect(summarizer.promptId('weekly')).toMatch(/^weekly@[0-9a-f]{8}$/);
    expect(summarizer.promptId('daily').slice(6)).not.toBe(summarizer.promptId('weekly').slice(7));
    expect(createExtractiveSummarizer().promptId('monthly')).toBe(summarizer.promptId('monthly'));
    const output = await summarizer.summarize(request('daily', busyDay(), { tokens: 500, bytes: 8192 }));
    expect(output.usage).toEqual({ calls: 0, inputTokens: 0, outputTokens: 0 });
    expect(output.body).not.toMatch(/^# |^---/m);
  });

  it('fits the token and byte budget for every budget', async () => {
    const sources = busyDay();
    for (const tokens of [30, 60, 120, 250, 500, 2000]) {
      for (const bytes of [150, 600, 8192]) {
        const body = await summarize(request('daily', sources, { tokens, bytes }));
        expect(body.length).toBeGreaterThan(0);
        expect(countTokens(body)).toBeLessThanOrEqual(tokens);
        expect(countBytes(body)).toBeLessThanOrEqual(bytes);
      }
    }
  });

  it('uses most of a generous budget rather than stopping early', async () => {
    const body = await summarize(request('daily', busyDay(), { tokens: 400, bytes: 8192 }));
    expect(countTokens(body)).toBeGreaterThan(300);
  });

  it('keeps decisions, #critical lines and code identifiers under a small budget full of filler', async () => {
    const body = await summarize(request('daily', busyDay(), { tokens: 90, bytes: 8192 }));
    expect(body).toContain('sessions are stored in Postgres');
    expect(body).toContain('#critical');
    expect(body).toContain('`ADR-012`');
    expect(countTokens(body)).toBeLessThanOrEqual(90);
  });

  it('says a near-duplicate across two sources once', async () => {
    const sources = [
      source(
        'daily/2026-02-10',
        '2026-02-10',
        '## Done\n\n- Replaced JWT with server sessions because tokens grew past the cookie limit.\n- Wrote the migration guide for the mobile team.',
      ),
      source(
        'daily/2026-02-11',
        '2026-02-11',
        '## Done\n\n- Replaced JWT with server sessions since the tokens grew past the cookie limit.\n- Profiled the search endpoint and found an N+1 query.',
      ),
    ];
    const body = await summarize(request('weekly', sources, { tokens: 1000, bytes: 12288 }));
    expect(body.match(/Replaced JWT/g)).toHaveLength(1);
    expect(body).toContain('migration guide');
    expect(body).toContain('N+1 query');
  });

  it('lays sections out in the documented order with bullets in chronological order', async () => {
    const sources = [
      source('m1', '2026-02-10', 'Fixed the flaky upload test. Still blocked on the vendor API key.', { time: '09:00' }),
      source('m2', '2026-02-10', 'The staging database runs Postgres 16 on a 4 GB instance.', { time: '10:00' }),
      source('m3', '2026-02-10', 'Decision: we will ship the CSV export behind a flag.', { time: '12:00' }),
      // Scores higher than the 09:00 line (numbers, names, issue ref) yet must come after it.
      source('m4', '2026-02-10', 'Shipped the Stripe webhook retry fix for #412, cutting failed payments from 3.1% to 0.2%.', {
        time: '16:00',
      }),
    ];
    const body = await summarize(request('daily', sources, { tokens: 500, bytes: 8192 }));
    expect(sectionTitles(body)).toEqual(['Done', 'Decisions', 'State', 'Context to keep']);
    const done = bullets(body, 'Done');
    expect(done).toHaveLength(2);
    expect(done[0]).toContain('flaky upload test');
    expect(done[1]).toContain('Stripe webhook');
    expect(bullets(body, 'State')[0]).toContain('vendor API key');
    expect(bullets(body, 'Context to keep')[0]).toContain('Postgres 16');
  });

  it('omits empty sections', async () => {
    const body = await summarize(
      request('daily', [source('m1', '2026-02-10', 'Fixed the flaky upload test in the payments service.')], { tokens: 500, bytes: 8192 }),
    );
    expect(sectionTitles(body)).toEqual(['Done']);
  });

  it('is deterministic', async () => {
    const req = request('weekly', busyDay(), { tokens: 200, bytes: 4000 });
    const first = await summarize(req);
    const second = await createExtractiveSummarizer().summarize(structuredClone(req));
    expect(second.body).toBe(first);
  });

  it('forces an item named in `missing` in', async () => {
    // Small talk scores low: on its own merits this sentence does not make the cut.
    const sources = busyDay().concat(
      source('m4', '2026-02-10', 'Thanks for the coffee, and by the way the old box is still called hermes.'),
    );
    const budget = { tokens: 120, bytes: 8192 };
    const without = await summarize(request('daily', sources, budget));
    expect(without).not.toContain('hermes');
    const withMissing = await summarize(request('daily', sources, budget, { attempt: 1, missing: ['hermes'] }));
    expect(withMissing).toContain('the old box is still called hermes');
    expect(countTokens(withMissing)).toBeLessThanOrEqual(120);
    // The forced sentence does not push out the pinned, critical or decision lines.
    expect(withMissing).toContain('#critical');
  });

  it('forces, for a missing item, the sentence naming it that says the most, wherever it is among the sources', async () => {
    // Small talk, both: on their own merits neither line makes the cut; of the two, the longer one says more.
    const hermesLine = 'Thanks for the coffee, and by the way the old box is still called hermes.';
    const sources = busyDay().concat(
      source('m4', '2026-02-10', 'Thanks, bye hermes.'),
      source('m5', '2026-02-10', `${filler(3, 7)} ${hermesLine}`),
    );
    const budget = { tokens: 120, bytes: 8192 };
    expect(await summarize(request('daily', sources, budget))).not.toContain('hermes');
    const withMissing = await summarize(request('daily', sources, budget, { attempt: 1, missing: ['hermes', 'nowhere-to-be-found'] }));
    expect(withMissing).toContain(hermesLine);
    expect(withMissing).not.toContain('bye hermes');
  });
  it('aims lower on each retry for a reason other than lost items, and uses the whole budget to bring lost items back', async () => {
    const budget = { tokens: 400, bytes: 8192 };
    const sizes: number[] = [];
    for (const attempt of [0, 1, 2]) sizes.push(countTokens(await summarize(request('daily', busyDay(), budget, { attempt }))));
    expect(sizes[1]).toBeLessThanOrEqual(400 * 0.85);
    expect(sizes[2]).toBeLessThanOrEqual(400 * 0.7);
    expect(sizes[2]).toBeLessThan(sizes[0] ?? 0);
    const withMissing = countTokens(await summarize(request('daily', busyDay(), budget, { attempt: 2, missing: ['ADR-012'] })));
    expect(withMissing).toBeGreaterThan(400 * 0.7);
    expect(withMissing).toBeLessThanOrEqual(400);
  });

  it('prefixes weekly bullets with their day', async () => {
    const sources = [
      source('daily/2026-02-09', '2026-02-09', '## Done\n\n- Set up the nightly rollup workflow in GitHub Actions.'),
      source('daily/2026-02-10', '2026-02-10', '## Decisions\n\n- Decision: sessions are stored in Postgres with a 30-day expiry.'),
      source('daily/2026-02-12', '2026-02-12', '## State\n\n- Still waiting on the security review from Dana.'),
    ];
    const body = await summarize(request('weekly', sources, { tokens: 1000, bytes: 12288 }));
    expect(sectionTitles(body)).toEqual(['Accomplishments', 'Architecture and decisions', 'Open threads']);
    const lines = bullets(body);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^- \*\*(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2}-\d{2}\*\* \S/);
    expect(body).toContain('- **Mon 02-09** Set up the nightly rollup');
    expect(body).toContain('- **Tue 02-10** Decision: sessions');
    expect(body).toContain('- **Thu 02-12** Still waiting');
  });

  it('keeps the original day when a weekly is rolled into a monthly', async () => {
    const days = [
      source('daily/2026-02-09', '2026-02-09', '## Done\n\n- Set up the nightly rollup workflow in GitHub Actions.'),
      source('daily/2026-02-12', '2026-02-12', '## Done\n\n- Migrated the billing export to the new Parquet writer, 40% smaller files.'),
    ];
    const weekly = await summarize(request('weekly', days, { tokens: 1000, bytes: 12288 }));
    const monthly = await summarize(request('monthly', [source('weekly/2026-W07', '2026-02-09', weekly)], { tokens: 2000, bytes: 15360 }));
    expect(sectionTitles(monthly)).toEqual(['Milestones']);
    expect(monthly).toContain('- **Thu 02-12** Migrated the billing export');
    expect(monthly).not.toContain('**Mon 02-09** Migrated');
    expect(monthly).not.toMatch(/\*\*Mon 02-09\*\* \*\*Mon/);
  });

  it('prefers a sentence with numbers and names over chit-chat', async () => {
    const sources = [
      source('m1', '2026-02-10', 'Thanks a lot for the help today, going to grab lunch and a coffee now.', { time: '12:00' }),
      source('m2', '2026-02-10', 'The p95 latency of the Billing API went from 840 ms to 210 ms once Marta added the index.', {
        time: '13:00',
      }),
    ];
    const body = await summarize(request('daily', sources, { tokens: 40, bytes: 8192 }));
    expect(body).toContain('840 ms to 210 ms');
    expect(body).not.toContain('lunch');
    // Spare room is no reason to keep it either.
    const roomy = await summarize(request('daily', sources, { tokens: 500, bytes: 8192 }));
    expect(roomy).toContain('840 ms to 210 ms');
    expect(roomy).not.toContain('lunch');
  });

  it('marks pinned memories in a daily', async () => {
    const sources = [
      source('m1', '2026-02-10', 'The production database password rotates every 90 days.', { importance: 'pinned' }),
      source('m2', '2026-02-10', 'Looked into the slow CI job for the web app.'),
    ];
    const body = await summarize(request('daily', sources, { tokens: 500, bytes: 8192 }));
    expect(body).toContain('- **Pinned:** The production database password rotates every 90 days.');
    expect(body).not.toContain('**Pinned:** Looked');
    // The mark survives the roll-up into the week, under the day (two bullets of one day nest under its label).
    const weekly = await summarize(request('weekly', [source('daily/2026-02-10', '2026-02-10', body)], { tokens: 1000, bytes: 12288 }));
    expect(weekly).toContain(
      '- **Tue 02-10**\n  - **Pinned:** The production database password rotates every 90 days.\n  - Looked into the slow CI job',
    );
    // And into the month, still once, still marked.
    const monthly = await summarize(request('monthly', [source('weekly/2026-W07', '2026-02-09', weekly)], { tokens: 2000, bytes: 15360 }));
    expect(monthly.match(/\*\*Pinned:\*\* The production database password/g)).toHaveLength(1);
    expect(monthly).toContain('- **Tue 02-10**');
  });

  it('lists source labels when no source has a sentence', async () => {
    const code = '```ts\nexport const x = 1;\n```';
    const sources = [
      source('m1', '2026-02-10', code, { label: 'Deploy script', time: '09:30' }),
      source('m2', '2026-02-10', code, { label: 'Retry helper', time: '14:00' }),
    ];
    const body = await summarize(request('daily', sources, { tokens: 500, bytes: 8192 }));
    expect(sectionTitles(body)).toEqual(['Context to keep']);
    expect(bullets(body)).toEqual(['- 09:30 Deploy script (session)', '- 14:00 Retry helper (session)']);
  });

  it('cuts a single sentence that alone exceeds the budget at a word boundary', async () => {
    const long = `Decision: ${Array.from({ length: 120 }, (_, i) => `component${i}`).join(' ')} all move to the new cluster.`;
    const body = await summarize(request('daily', [source('m1', '2026-02-10', long)], { tokens: 40, bytes: 8192 }));
    expect(body).toMatch(/^## Decisions\n\n- Decision: component0 component1 .*component\d+…$/);
    expect(countTokens(body)).toBeLessThanOrEqual(40);
  });

  it('writes waterfall summaries in the first person under one section', async () => {
    const sources = [
      source('m1', '2026-02-10', 'Replaced the polling loop with a webhook from GitHub.'),
      source('m2', '2026-02-11', 'The user prefers short answers with code first.'),
    ];
    const body = await summarize(request('waterfall-recent', sources, { tokens: 500, bytes: 8192 }));
    expect(sectionTitles(body)).toEqual(['Summary']);
    expect(body).toContain('- I replaced the polling loop with a webhook from GitHub.');
    expect(body).toContain('- The user prefers short answers');
  });

  it('names the speaker of each turn of a conversation, also on sentences after the first', async () => {
    const chat = [
      'Caroline: Hey Mel! I went to the LGBTQ support group yesterday and it was so powerful. The transgender stories there were inspiring.',
      'Melanie: Wow, that is cool! How did it go?',
      'Caroline: I am keen on counseling and want to start a psychology degree at Portland State in September.',
      'Melanie: I painted that lake sunrise in 2022, it hangs in our hallway now.',
    ].join('\n\n');
    const body = await summarize(request('daily', [source('m1', '2023-05-08', chat)], { tokens: 200, bytes: 8192 }));
    expect(body).toContain('Caroline: I went to the LGBTQ support group');
    expect(body).toContain('Caroline: I am keen on counseling');
    expect(body).toContain('Melanie: I painted that lake sunrise in 2022');
    // The second sentence of a turn stays with its speaker (same bullet), and small talk is left out.
    expect(body).toMatch(/- Caroline: I went to the LGBTQ support group[^\n]*The transgender stories/);
    expect(body).not.toContain('How did it go');
    // Opening interjections are cut.
    expect(body).not.toContain('Hey Mel');
  });

  it('says a fact repeated on several days of a week once, and uses the room for other days', async () => {
    const repeated = 'The Stripe webhook signature check fails for events from the Connect platform account acct_9k2.';
    const days = ['2026-02-09', '2026-02-10', '2026-02-11'].map((day, i) =>
      source(
        `daily/${day}`,
        day,
        `## State\n\n- ${repeated}\n- ${
          [
            'Priya moved the PDF renderer to a worker pool of 4.',
            'Marcus cut the CI time from 14 to 9 minutes with test sharding.',
            'Jonas wrote the FAQ entry about currency conversion.',
          ][i]
        }`,
      ),
    );
    const body = await summarize(request('weekly', days, { tokens: 1000, bytes: 12288 }));
    expect(body.match(/webhook signature check/g)).toHaveLength(1);
    for (const fact of ['worker pool of 4', '14 to 9 minutes', 'FAQ entry']) expect(body).toContain(fact);
  });

  it('keeps room for accomplishments when a day is full of decisions', async () => {
    const decisions = Array.from(
      { length: 12 },
      (_, i) =>
        `- Decision ${i + 1}: the ${['billing', 'auth', 'search', 'export', 'queue', 'mailer'][i % 6]} service keeps its own ` +
        `${['schema', 'cache', 'retry policy', 'rate limit'][i % 4]} number ${i + 1} for the next ${i + 2} releases.`,
    ).join('\n');
    const done = [
      'Fixed the invoice rounding bug that showed 0.01 differences on totals.',
      'Shipped the CSV export for the finance team with per-currency columns.',
    ];
    const body = await summarize(
      request('daily', [source('m1', '2026-02-10', `## Decisions\n\n${decisions}\n\n## Done\n\n${done.map((d) => `- ${d}`).join('\n')}`)], {
        tokens: 200,
        bytes: 8192,
      }),
    );
    expect(bullets(body, 'Done').length).toBeGreaterThanOrEqual(1);
    expect(bullets(body, 'Decisions').length).toBeGreaterThanOrEqual(2);
  });
});
