import { describe, expect, it } from 'vitest';
import { answerKinds } from '../../src/read/context/answer-kinds.js';
import { blockSpans, blocksOf, rankPassages } from '../../src/read/context/passages.js';
import { relevantFor, roundRobinBy } from '../../src/read/context/relevant.js';
import type { Memory } from '../../src/vault/model.js';

/** Passages (the part of a memory a context quotes) and the interleaving of signals: pure functions, in-process. */

const chat = [
  'Ana: Morning all.',
  'Ben: I looked at the ledger export yesterday.',
  'Ana: Anything odd?',
  'Ben: The ledger export drops rows with a null currency.',
  'Ana: Then we patch the mapper.',
  'Cy: Lunch at noon?',
  'Ana: Sure.',
].join('\n\n');

/** A chat where the answer to "Which city?" names the city and not the word: only a name tells it. */
const trip = [
  'Jon: Hey Gina! Busy week at the studio, lots of new students.',
  'Gina: Nice, glad it is going well.',
  'Jon: Took a short trip last week to Rome to clear my mind a little before the recital season starts again.',
  'Gina: Sounds lovely, Jon.',
  'Jon: The studio needs new mirrors.',
].join('\n\n');

describe('blocksOf', () => {
  it('splits a body into paragraphs and cuts a long one at sentence ends', () => {
    expect(blocksOf('One.\n\n  \nTwo\nlines.\n\n')).toEqual(['One.', 'Two\nlines.']);
    const long = 'A fairly long sentence about the importer and its feeds. '.repeat(40).trim();
    const blocks = blocksOf(long);
    expect(blocks.length).toBeGreaterThan(2);
    for (const block of blocks) {
      expect(block.length).toBeLessThanOrEqual(700);
      expect(block.endsWith('feeds.')).toBe(true);
    }
    expect(blocks.join(' ')).toBe(long);
  });
});

describe('blockSpans', () => {
  it('gives each block the body line it starts on, for a long paragraph cut at sentences too', () => {
    const long = `${'A sentence of words here. '.repeat(20)}\nStill the same paragraph, line two. ${'More words follow. '.repeat(30)}`;
    const body = `One.\n\n  \nTwo\nlines.\n\n${long.trim()}\n\nLast.`;
    const spans = blockSpans(body);
    const lines = body.split('\n');
    expect(spans.map((s) => s.text)).toEqual(blocksOf(body));
    expect(spans[0]).toEqual({ text: 'One.', line: 0 });
    expect(spans[1]).toEqual({ text: 'Two\nlines.', line: 3 });
    // Every block starts on its line: the cut parts of the long paragraph too (one on the paragraph's second line).
    for (const span of spans) expect(lines[span.line], span.text.slice(0, 20)).toContain(span.text.split('\n')[0]!.slice(0, 15));
    expect(spans.some((s) => s.line === 7)).toBe(true);
    expect(spans.at(-1)).toEqual({ text: 'Last.', line: 9 });
  });

  it('puts the line of its first block on a ranked passage', () => {
    const [passage] = rankPassages(
      [{ path: 'a.md', body: 'Intro.\n\nFiller.\n\nMore filler.\n\nThe zebra crossing.', weight: 1 }],
      'zebra',
      { window: 0 },
    );
    expect(passage).toMatchObject({ first: 3, line: 6 });
  });
});

describe('rankPassages', () => {
  it('returns the hit blocks with a neighbour on each side, best first, never the same block twice', () => {
    const passages = rankPassages([{ path: 'm/chat.md', body: chat, weight: 1 }], 'null currency');
    expect(passages[0]).toMatchObject({ path: 'm/chat.md', first: 2, last: 4, blocks: 7 });
    expect(passages[0]!.text).toBe(
      'Ana: Anything odd?\n\nBen: The ledger export drops rows with a null currency.\n\nAna: Then we patch the mapper.',
    );
    const both = rankPassages([{ path: 'm/chat.md', body: chat, weight: 1 }], 'ledger export');
    const blocks = both.flatMap((p) => Array.from({ length: p.last - p.first + 1 }, (_, i) => p.first + i));
    expect(new Set(blocks).size).toBe(blocks.length);
    expect(blocks).toContain(1);
    expect(blocks).toContain(3);
    expect(blocks).not.toContain(6);
  });

  it('ends a passage that ends on a question with its answer', () => {
    const talk = [
      'Ana: We hiked the ridge trail.',
      'Ben: Nice! Where was that photo taken?',
      'Ana: A nearby park, by the lake.',
      'Ben: Cool.',
    ];
    const [first] = rankPassages([{ path: 'm/talk.md', body: talk.join('\n\n'), weight: 1 }], 'hiked ridge trail');
    // The hit (block 0) and its neighbour, which asks: the reply comes too.
    expect(first).toMatchObject({ first: 0, last: 2 });
    expect(first!.text).toContain('A nearby park');
  });

  it('a hit inside an earlier passage brings the reply after it', () => {
    const passages = rankPassages([{ path: 'm/chat.md', body: chat, weight: 1 }], 'ledger export', { window: 1 });
    const blocks = new Set(passages.flatMap((p) => Array.from({ length: p.last - p.first + 1 }, (_, i) => p.first + i)));
    // "I looked at the ledger export" (1) quotes 1-3 (2 asks, 3 answers); the hit on 3 adds 4, the reply after it.
    expect([...blocks].sort()).toEqual([1, 2, 3, 4]);
  });

  it('takes the block before a hit only when it asks what the hit answers or holds a query word', () => {
    const body = [
      'Ana: Morning all.',
      'Ben: The boiler broke again.',
      'Ana: Oh no.',
      'Cy: Which part failed?',
      'Ben: The boiler valve, a cracked seal.',
      'Ana: Lunch at noon.',
      'Ben: Valve parts cost 40 euros.',
    ].join('\n\n');
    const passages = rankPassages([{ path: 'm/b.md', body, weight: 1 }], 'boiler', { window: 1 });
    // The greeting before the first hit neither asks nor names the boiler: left out. The question before the second is kept.
    expect(passages.slice(0, 2).map((p) => [p.first, p.last])).toEqual([
      [3, 5],
      [1, 2],
    ]);
    expect(passages.some((p) => p.first === 0)).toBe(false);
    // With no question and no query word before a hit, its window starts at the hit (the block after still comes).
    const plain = rankPassages(
      [{ path: 'm/c.md', body: 'Ana: Morning all.\n\nBen: The boiler broke.\n\nAna: Oh no.', weight: 1 }],
      'boiler',
    );
    expect(plain.map((p) => [p.first, p.last])).toEqual([[1, 2]]);
  });

  it('weighs blocks by how well their document matched, stems and prefixes like the search', () => {
    const sources = [
      { path: 'a.md', body: 'Intro.\n\nThe deploys failed twice.', weight: 0.1 },
      { path: 'b.md', body: 'Intro.\n\nThe deploys failed twice.', weight: 1 },
    ];
    const passages = rankPassages(sources, 'deploying', { window: 0 });
    expect(passages.map((p) => p.path)).toEqual(['b.md', 'a.md']);
    expect(passages[0]!.score).toBeGreaterThan(passages[1]!.score);
    expect(rankPassages(sources, 'authentication')).toEqual([]);
  });

  it('takes the match plan the search made (a misspelt word as the index terms near it)', () => {
    const sources = [{ path: 'f.md', body: 'Intro.\n\nAna: The festival was loud.\n\nOutro.', weight: 1 }];
    expect(rankPassages(sources, 'fesetival')).toEqual([]);
    const [passage] = rankPassages(sources, { terms: ['festiv'], prefixes: [] }, { window: 0 });
    expect(passage).toMatchObject({ first: 1, last: 1 });
  });

  it('a second round finds a block in other words than the query, through the words of the first round’s best blocks', () => {
    const filler = (n: number): string[] => Array.from({ length: n }, (_, i) => `Cy: Filler line number ${i} about lunch.`);
    const body = [
      'Ana: We went hiking at Glacier Point near Yosemite.',
      ...filler(4),
      'Ben: Yosemite was packed, Glacier Point especially.',
      ...filler(4),
      'Ben: The printer is broken again.',
    ].join('\n\n');
    const passages = rankPassages([{ path: 'h.md', body, weight: 1 }], 'hiking', { window: 0 });
    expect(passages[0]).toMatchObject({ first: 0, last: 0 });
    // Block 5 has no word of the query; it shares "Yosemite" and "Glacier Point" with the best block. The printer does not come.
    expect(passages.map((p) => p.first)).toEqual([0, 5]);
  });

  it('ranks the turn that names something first when the question asks for a name', () => {
    const source = [{ path: 'm/s.md', body: trip, weight: 1 }];
    // "city" is in no turn; every turn of Jon's holds "jon". The trip to Rome names a place (Gina and Jon, the speakers, do not count).
    const [best] = rankPassages(source, 'Which city has Jon visited?', { window: 0 });
    expect(best!.text).toContain('Rome');
    // A question that asks for no name ranks by its words alone: the short turn first.
    expect(rankPassages(source, 'How is Jon doing?', { window: 0 })[0]!.text).not.toContain('Rome');
  });

  it('asks for a name through the relevant tier too, where the search hands over its match plan', () => {
    const path = 'c/memories/2023-05-01-s1.md';
    const [first] = relevantFor({
      query: 'Which city has Jon visited?',
      terms: { terms: ['citi', 'jon', 'visit'], prefixes: [] },
      hits: [{ path, score: 1 }],
      byPath: new Map([[path, { path, day: '2023-05-01' } as unknown as Memory]]),
      bodyOf: () => trip,
      ladder: (p) => [{ source: p, label: p, text: trip }],
      memoryVersion: (m) => ({ source: m.path, label: m.path, text: trip }),
    });
    expect(first!.versions[0]!.text).toContain('Rome');
  });

  // Both of Ana's turns hold the query's words; the longer one dates (counts) what the question asks when (how many) of.
  it.each([
    {
      kind: 'a time',
      turns: ['The new bakery on the corner has great bread.', 'I went to the bakery opening yesterday (7 May 2023) and got free rolls.'],
      asks: 'When did Ana go to the bakery?',
      other: 'Does Ana like the bakery?',
      answer: '7 May 2023',
    },
    {
      kind: 'a count',
      turns: ['The kids love the park.', 'I have three kids and they all play football on weekends with their friends.'],
      asks: 'How many kids does Ana have?',
      other: 'Do the kids of Ana like the park?',
      answer: 'three kids',
    },
  ])('ranks the turn that holds $kind first when the question asks for one', ({ turns, asks, other, answer }) => {
    const talk = [`Ana: ${turns[0]}`, 'Ben: Nice, Ana.', `Ana: ${turns[1]}`, 'Ben: Lucky you.'].join('\n\n');
    const source = [{ path: 'm/a.md', body: talk, weight: 1 }];
    expect(rankPassages(source, asks, { window: 0 })[0]!.text).toContain(answer);
    expect(rankPassages(source, other, { window: 0 })[0]!.text).not.toContain(answer);
  });

  it('tells the kind of answer a question asks for', () => {
    for (const q of ['Where did Jon go last week?', 'Which city has Jon visited?', 'What books has Gina read?', 'Who gave Ana the card?'])
      expect(answerKinds(q), q).toEqual(['name']);
    for (const q of ['When did Jon open the studio?', 'What year did Ana move?']) expect(answerKinds(q), q).toEqual(['time']);
    expect(answerKinds('When did Jon visit Rome, and where else?')).toEqual(['name', 'time']);
    for (const q of ['How many kids does Ana have?', 'How long has Jon been dancing?']) expect(answerKinds(q), q).toEqual(['count']);
    for (const q of ['What activities does Melanie partake in?', 'Why did Gina open a store?']) expect(answerKinds(q), q).toEqual([]);
  });

  it('is deterministic and respects the limit', () => {
    const body = Array.from({ length: 60 }, (_, i) => `Note ${i}: the cache warmed in ${i} ms.`).join('\n\n');
    const first = rankPassages([{ path: 'c.md', body, weight: 1 }], 'cache warmed', { limit: 5 });
    expect(first).toHaveLength(5);
    expect(rankPassages([{ path: 'c.md', body, weight: 1 }], 'cache warmed', { limit: 5 })).toEqual(first);
  });
});

describe('roundRobinBy', () => {
  it('takes the first of each list, then the second, dropping repeats', () => {
    expect(roundRobinBy([['a', 'b', 'c'], ['b', 'd'], []], (x) => x)).toEqual(['a', 'b', 'd', 'c']);
  });
});
