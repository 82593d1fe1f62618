import { describe, expect, it } from 'vitest';
import { buildIndex, type StreamIndexInput } from '../../src/pipeline/vault-index.js';
import type { ParsedContent } from '../../src/store/cache.js';
import type { Summary, SummaryMeta } from '../../src/vault/model.js';

/** INDEX topics: computed from weekly and monthly bodies, reused from the previous index while those bodies are unchanged. */

function summary(tier: 'weekly' | 'monthly', period: string, start: string, end: string, body: string): Summary & { body: string } {
  const meta = {
    memvault: 'summary',
    tier,
    stream: 'main',
    period,
    start,
    end,
    sources: [],
    memories: 3,
    tokens: 10,
    bytes: 40,
    generator: { provider: 'extractive', model: 'm' },
    input_hash: 'i',
    output_hash: body,
  } as unknown as SummaryMeta;
  return { path: `main/${tier}/${period}.md`, sha256: `sha-${body}`, bodyHash: body, meta, body };
}

const stream = (summaries: (Summary & { body: string })[]): StreamIndexInput => ({
  name: 'main',
  memories: [],
  summaries,
  held: [],
  deferred: [],
  manifest: undefined,
});

describe('index topics', () => {
  const weeks = [
    summary(
      'weekly',
      '2026-W01',
      '2025-12-29',
      '2026-01-04',
      'Moved the Stripe webhooks into the queue. Stripe webhooks now retry with backoff.',
    ),
    summary(
      'weekly',
      '2026-W02',
      '2026-01-05',
      '2026-01-11',
      'Rebuilt `searchIndex` with tsvector. The `searchIndex` rebuild took 4 minutes.',
    ),
  ];
  const read =
    (reads: string[]) =>
    (s: Summary): ParsedContent => {
      reads.push(s.path);
      return { body: (s as Summary & { body: string }).body, sentences: [] };
    };

  it('reads the bodies when there is no previous index, and reuses its topics while they are unchanged', () => {
    const reads: string[] = [];
    const first = buildIndex([stream(weeks)], [], read(reads));
    expect(reads).toHaveLength(2);
    expect(first.json.streams[0]!.topics.map((t) => t.terms[0])).toEqual(['Stripe webhooks', 'searchIndex']);

    const again: string[] = [];
    const second = buildIndex([stream(weeks)], [], read(again), { previous: first.json });
    expect(again).toEqual([]);
    expect(second.json).toEqual(first.json);
    expect(second.markdown).toBe(first.markdown);
  });

  it('computes them again when a weekly body changed, or when the previous index is damaged', () => {
    const first = buildIndex([stream(weeks)], [], read([]));
    const changed = [
      weeks[0]!,
      summary(
        'weekly',
        '2026-W02',
        '2026-01-05',
        '2026-01-11',
        'Deploys moved to Fridays (ADR-012). ADR-012 says deploys need two reviews.',
      ),
    ];
    const reads: string[] = [];
    const second = buildIndex([stream(changed)], [], read(reads), { previous: first.json });
    expect(reads).toHaveLength(2);
    expect(second.json.streams[0]!.topics[1]!.terms[0]).toBe('ADR-012');

    const damaged = structuredClone(first.json);
    (damaged.streams[0]!.topics[0] as { terms: unknown }).terms = 'billing';
    const reread: string[] = [];
    expect(buildIndex([stream(weeks)], [], read(reread), { previous: damaged }).json).toEqual(first.json);
    expect(reread).toHaveLength(2);
  });
});
