import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../scripts/fixtures/synthetic-vault/rng.js';
import { checkRetention, collectMustKeep, compareMissing, droppedText } from '../../src/retention/check.js';
import {
  canonicalDate,
  extractMustKeep,
  KIND_ORDER,
  mustKeepOfSentences,
  namesOf,
  foldForMatch,
  forgetSentenceMemos,
  normalizeForMatch,
  orderItems,
  type MustKeepItem,
} from '../../src/retention/items.js';
import { parseMarkdown } from '../../src/vault/markdown.js';
import { extractSentences } from '../../src/vault/sentences.js';

const itemsOf = (markdown: string, pinned = false): MustKeepItem[] => extractMustKeep(parseMarkdown(markdown), { pinned });
const texts = (items: readonly MustKeepItem[], kind: MustKeepItem['kind']): string[] =>
  items.filter((item) => item.kind === kind).map((item) => item.text);

describe('must-keep items from the mdast', () => {
  it('takes decisions from a "Decision:" line and from the items under a Decisions heading', () => {
    const items = itemsOf(
      'Replaced JWT with sessions.\n\nDecision: sessions live in Postgres with a 30-day expiry.\n\n' +
        '## Decisions\n\n- Cap uploads at 25 MB.\n- Use cursor pagination everywhere.\n\n## Done\n\n- Wrote the guide.',
    );
    expect(texts(items, 'decision')).toEqual([
      'sessions live in Postgres with a 30-day expiry.',
      'Cap uploads at 25 MB.',
      'Use cursor pagination everywhere.',
    ]);
    expect(texts(items, 'number')).toEqual(['30-day', '25 MB']);
  });

  it('takes #critical lines without the tag, and the lead sentence of a pinned memory only', () => {
    expect(texts(itemsOf('Never run the pruner on the primary #critical. It is fine on replicas.'), 'critical')).toEqual([
      'Never run the pruner on the primary.',
    ]);
    const pinned = itemsOf('Production deploys need two approvals. Hotfixes too.', true);
    expect(texts(pinned, 'pinned')).toEqual(['Production deploys need two approvals.']);
  });

  it('takes identifiers from code spans, commit hashes, versions and issue references, not from code blocks', () => {
    const items = itemsOf(
      'See `ADR-012` and `roundHalfAway()`, fixed in 3f2a9bc for #412 (GH-7, acme/api#31), released as v1.8.2.\n\n```\nconst hidden = `not-an-item`;\n```',
    );
    expect(texts(items, 'code')).toEqual(['ADR-012', 'roundHalfAway()', '3f2a9bc', 'v1.8.2']);
    expect(texts(items, 'issue')).toEqual(['#412', 'GH-7', 'acme/api#31']);
  });

  it('takes absolute dates in their usual forms, and years', () => {
    const items = itemsOf(
      'Shipped on 2026-03-04, reviewed on 7 May 2023 and May 8, 2023, planned for June 2023, started in 2016, due 14 March.',
    );
    expect(texts(items, 'date')).toEqual(['2026-03-04', '7 May 2023', 'May 8, 2023', 'June 2023', '2016', '14 March']);
  });

  it('takes numbers with units, not bare numbers', () => {
    const items = itemsOf('p95 went from 2.3 s to 160 ms, costs $400 and 12 GB, for 4 years and 3 people; we had 17 of them.');
    expect(texts(items, 'number')).toEqual(['2.3 s', '160 ms', '$400', '12 GB', '4 years', '3 people']);
  });

  it('takes proper names: capitalised runs inside a sentence, quoted titles; not openers or speaker labels', () => {
    expect(namesOf('Caroline: I loved "Becoming Nicole" by Amy Ellis Nutt.')).toEqual([
      'Becoming Nicole',
      'Becoming Nicole',
      'Amy Ellis Nutt',
    ]);
    expect(namesOf('Yesterday we met the Bank of America team with John in Lisbon.')).toEqual(['Bank of America', 'John', 'Lisbon']);
    expect(namesOf('Postgres is fast. The team likes it.')).toEqual([]);
    expect(namesOf('Postgres is fast, and Postgres is free.')).toEqual(['Postgres', 'Postgres']);
    expect(namesOf('Met on Monday in May, I said OK to the UI.')).toEqual([]);
  });

  it('deduplicates and orders items by priority: pinned, critical, decision, code, issue, date, number, name', () => {
    const items = itemsOf('Priya fixed `ADR-9` on 2026-01-02.\n\nDecision: keep `ADR-9` for 2 weeks.\n\nWe will see #4 with Priya.');
    expect(items.map((item) => item.kind)).toEqual(['decision', 'decision', 'code', 'issue', 'date', 'number', 'name']);
    expect(texts(items, 'code')).toEqual(['ADR-9']);
  });
});

describe('retention check', () => {
  const items = (...list: [MustKeepItem['kind'], string][]): MustKeepItem[] => list.map(([kind, text]) => ({ kind, text }));

  it('matches identifiers and names as whole words, case-insensitively, markdown ignored', () => {
    const result = checkRetention(
      items(['name', 'Mel'], ['name', 'Caroline'], ['code', 'ADR-012'], ['issue', '#412']),
      '- **Tue** caroline and Melanie fixed `adr-012`',
    );
    expect(result.kept.map((item) => item.text)).toEqual(['Caroline', 'ADR-012']);
    expect(result.missing.map((item) => item.text)).toEqual(['Mel', '#412']);
  });

  it('matches a date written another way, and a number with or without its hyphen', () => {
    const result = checkRetention(
      items(['date', '7 May 2023'], ['date', 'May 8, 2023'], ['date', 'June 2023'], ['number', '30-day'], ['number', '12GB']),
      'On 2023-05-07 and 8 May 2023, a 30 day expiry and 12 GB.',
    );
    expect(result.missing.map((item) => item.text)).toEqual(['June 2023']);
    expect(canonicalDate('May 8th, 2023')).toBe('2023-05-08');
    expect(canonicalDate('January, 2023')).toBe('2023-01');
  });

  it('counts a sentence item as kept when most of its words are there, so a shortened decision still counts', () => {
    const decision = items(['decision', 'sessions live in Postgres with a 30-day sliding expiry.']);
    expect(checkRetention(decision, 'Sessions in Postgres, 30-day sliding expiry.').missing).toEqual([]);
    expect(checkRetention(decision, 'We use Postgres.').missing).toHaveLength(1);
  });

  it('collects a pinned source by its lead sentence only', () => {
    const source = (body: string, importance: string) => ({
      importance,
      sentences: extractSentences(parseMarkdown(body), { pinned: importance === 'pinned' }),
    });
    const collected = collectMustKeep([
      source('Deploys need two approvals. Marcus owns the rota since 2024-01-01.', 'pinned'),
      source('Priya shipped `v2`.', 'normal'),
    ]);
    // Not `Marcus` nor `2024-01-01`: the package carries the pinned memory in full.
    expect(collected.map((item) => `${item.kind}:${item.text}`)).toEqual(['pinned:Deploys need two approvals.', 'code:v2']);
  });

  it("collects the sources' items as ordering each source first would: by kind, in source order, a duplicate at its first place", () => {
    const source = (body: string) => ({ importance: 'normal', sentences: extractSentences(parseMarkdown(body), { pinned: false }) });
    const sources = [
      source('Priya moved `auth.ts` on 2024-03-01. Decision: keep Postgres for 30 days.'),
      source('Marcus reviewed `AUTH.ts` and #412 on 2024-03-01. Priya shipped `v2`.'),
      source('## Decisions\n\n- keep Postgres for 30 days.\n\nSee #412 and `v2` with Marcus.'),
    ];
    const perSourceFirst = orderItems(sources.flatMap((s) => mustKeepOfSentences(s.sentences)));
    const collected = collectMustKeep(sources);
    expect(collected).toEqual(perSourceFirst);
    expect(collected.map((item) => item.kind)).toEqual(
      [...collected.map((item) => item.kind)].sort((a, b) => KIND_ORDER.indexOf(a) - KIND_ORDER.indexOf(b)),
    );
    expect(texts(collected, 'code')).toEqual(['auth.ts', 'v2']);
  });

  it('ranks outcomes by their most important losses, and writes long dropped items short', () => {
    const lostDecision = items(['decision', 'x y z']);
    const lostNames = items(['name', 'Ann'], ['name', 'Bob'], ['name', 'Cy']);
    expect(compareMissing(lostNames, lostDecision)).toBeLessThan(0);
    expect(compareMissing(lostDecision, [])).toBeGreaterThan(0);
    expect(droppedText({ kind: 'decision', text: 'word '.repeat(60) })).toHaveLength(120);
    expect(normalizeForMatch('**Tue** it’s — `x` \\[a]')).toBe("tue it's - x [a]");
  });
});

describe('normalizeForMatch on printable ASCII (the fast path)', () => {
  it('gives what the general chain gives, on random strings of the characters it treats', () => {
    const rng = mulberry32(99);
    const random = (n: number): number => Math.floor(rng() * n);
    const alphabet = ['a', 'B', 'z', '0', ' ', '  ', '`', '\\', '*', '**', '_', "'", '#', '>', '-', '[', ']', '(', ')', '.', 'Ab'];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let n = random(12); n > 0; n--) text += alphabet[random(alphabet.length)];
      expect(normalizeForMatch(text), JSON.stringify(text)).toBe(foldForMatch(text));
    }
    forgetSentenceMemos();
  });
});
