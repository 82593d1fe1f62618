import { describe, expect, it } from 'vitest';
import { periodTopics, topicCandidates } from '../../src/text/topics.js';

/** Topics are noun phrases and identifiers, never single common words. */

describe('topics', () => {
  it('reads identifiers, references and repeated proper-noun phrases', () => {
    const text = [
      'Decided in ADR-012 to keep `sessionPlugin` as the only entry point; see #412.',
      'The PG16 upgrade ran on Tuesday. The PG16 upgrade needed 27 minutes.',
      'Stripe webhooks were retried twice in November. We now deduplicate Stripe webhooks by event id.',
      'Fixed the origin check, minus one edge case, and answered a Gmail thread.',
    ].join('\n\n');
    const candidates = topicCandidates(text);
    for (const topic of ['ADR-012', 'sessionPlugin', '#412', 'PG16 upgrade', 'Stripe webhooks'])
      expect(candidates.has(topic), topic).toBe(true);
    const [topics] = [
      ...periodTopics(
        new Map([
          ['2026-11', text],
          ['2026-10', 'Quiet month: reviewed pull requests.'],
        ]),
        8,
      ).values(),
    ];
    expect(topics).toEqual(expect.arrayContaining(['ADR-012', 'sessionPlugin', '#412', 'PG16 upgrade', 'Stripe webhooks']));
    for (const noise of ['november', 'November', 'minus', 'origin', 'fixed', 'Gmail', 'Tuesday', 'Stripe', 'PG16'])
      expect(topics).not.toContain(noise);
  });

  it("never a redaction marker or a key: `[REDACTED:kind]` and AWS's documented example key are not topics", () => {
    const text = [
      'Rotated the deploy key: the old one [REDACTED:aws_access_key] is gone. The REDACTED key was in CI.',
      'The docs use AKIAIOSFODNN7EXAMPLE as the example key; `AKIAIOSFODNN7EXAMPLE` again, and [REDACTED] once more.',
      'Token ghp16x0123456789abcdefXYZ leaked in the PG16 upgrade log; the PG16 upgrade went on.',
    ].join('\n\n');
    const candidates = [...topicCandidates(text).keys()];
    expect(candidates).toContain('PG16 upgrade');
    for (const noise of ['REDACTED', 'AKIAIOSFODNN7EXAMPLE', 'ghp16x0123456789abcdefXYZ']) {
      expect(
        candidates.filter((c) => c.includes(noise)),
        noise,
      ).toEqual([]);
    }
    const [topics] = [...periodTopics(new Map([['2026-11', text]]), 10).values()];
    expect(topics!.filter((t) => /REDACTED|AKIA|ghp16/.test(t))).toEqual([]);
  });

  it('ranks per period: what sets a period apart comes first', () => {
    const topics = periodTopics(
      new Map([
        [
          '2026-W40',
          'Moved billing to `billing-worker`. The `billing-worker` queue drains in 2 s. Redis Streams carry the jobs; Redis Streams replace cron.',
        ],
        ['2026-W41', 'The `billing-worker` crashed once. Caroline Weber wrote the ADR-013 draft; ADR-013 covers retries.'],
      ]),
      3,
    );
    expect(topics.get('2026-W40')![0]).toBe('Redis Streams');
    expect(topics.get('2026-W41')![0]).toBe('ADR-013');
  });
});
