import { describe, expect, it } from 'vitest';
import { headingSpans, parseMarkdown } from '../../src/vault/markdown.js';
import type { Sentence } from '../../src/vault/model.js';
import { extractSentences, MAX_SENTENCE_CHARS, splitSentences, splitSentencesBySegmenter } from '../../src/vault/sentences.js';

const sentences = (markdown: string, pinned = false): Sentence[] => extractSentences(parseMarkdown(markdown), { pinned });
const texts = (markdown: string): string[] => sentences(markdown).map((s) => s.text);
const one = (markdown: string): Sentence => {
  const all = sentences(markdown);
  expect(all, JSON.stringify(all)).toHaveLength(1);
  return all[0]!;
};
const backticks = (text: string): number => text.split('`').length - 1;

describe('splitting into sentences', () => {
  it('never cuts inside a code span with dots', () => {
    const all = texts('use `a.b()` here. Next.');
    expect(all.some((t) => t.includes('`a.b()`'))).toBe(true);
    for (const t of all) expect(backticks(t) % 2, t).toBe(0);
    expect(all.join(' ')).toBe('use `a.b()` here. Next.');
  });

  it('splits after a code span at the real sentence end', () => {
    expect(texts('Call `config.load()` then `x.y.z`. After that the build works fine.')).toEqual([
      'Call `config.load()` then `x.y.z`.',
      'After that the build works fine.',
    ]);
  });

  it('splits plain prose into sentences of the same block', () => {
    const all = sentences('The first sentence is here. The second sentence is here.');
    expect(all.map((s) => s.text)).toEqual(['The first sentence is here.', 'The second sentence is here.']);
    expect(all.map((s) => s.block)).toEqual([0, 0]);
  });

  it('joins soft-wrapped lines of a paragraph into one sentence', () => {
    expect(texts('This sentence is wrapped\nacross two lines.')).toEqual(['This sentence is wrapped across two lines.']);
  });

  it('keeps link text and drops the URL', () => {
    expect(texts('See [the runbook](https://example.com/runbook) for details.')).toEqual(['See the runbook for details.']);
  });

  it('leaves fenced code blocks out', () => {
    const all = texts('Before the code block.\n\n```js\nconst a = b.c(); // not prose.\n```\n\nAfter the code block.');
    expect(all).toEqual(['Before the code block.', 'After the code block.']);
  });
});

describe('the one-sentence shortcut', () => {
  it('cuts what the segmenter cuts, on random short texts of terminators, closers, code spans and non-ASCII', () => {
    // A fixed seed (mulberry32): the same texts on every run.
    let seed = 29;
    const random = (): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pieces = [
      'word',
      'Word',
      'v1',
      '2.5',
      ' ',
      ' ',
      '\n',
      '.',
      '!',
      '?',
      '"',
      "'",
      ')',
      ']',
      '(',
      '`a.b()`',
      '`x`',
      ';',
      ':',
      ',',
      'é',
      '。',
      '…',
      'e.g.',
      'Mr.',
      '\u0000',
      '\u00000\u0000',
    ];
    for (let n = 0; n < 5000; n++) {
      let text = '';
      const length = 1 + Math.floor(random() * 12);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
      expect(splitSentences(text), JSON.stringify(text)).toEqual(splitSentencesBySegmenter(text));
    }
  });

  it('keeps a closing run of terminators and closers with its sentence', () => {
    for (const text of ['Shipped it.', 'Is it done?!', 'He said "ok."', "It was 'fine.')", 'See `a.b()` and `c.d`.', 'No stop at all'])
      expect(splitSentences(text), text).toEqual(splitSentencesBySegmenter(text));
  });
});

describe('blocks', () => {
  it('paragraphs and list items are separate blocks, nested items too', () => {
    const all = sentences(
      'First paragraph here. Still the first.\n\nSecond paragraph.\n\n- item one is here\n- item two is here\n  - nested item here\n',
    );
    expect(all.map((s) => [s.text, s.block])).toEqual([
      ['First paragraph here.', 0],
      ['Still the first.', 0],
      ['Second paragraph.', 1],
      ['item one is here', 2],
      ['item two is here', 3],
      ['nested item here', 4],
    ]);
  });

  it('an ordered list and a blockquote give blocks too', () => {
    const all = sentences('1. Step one happens.\n2. Step two happens.\n\n> A quoted remark here.\n');
    expect(all.map((s) => [s.text, s.block])).toEqual([
      ['Step one happens.', 0],
      ['Step two happens.', 1],
      ['A quoted remark here.', 2],
    ]);
  });
});

describe('sections', () => {
  it('headings set the section path and are not sentences themselves', () => {
    const all = sentences(
      '# Project\n\n## Backend\n\n### Auth\n\nText one is here.\n\n## Frontend\n\nText two is here.\n\n# Other\n\nText three is here.\n',
    );
    expect(all.map((s) => [s.text, s.section])).toEqual([
      ['Text one is here.', 'Project / Backend / Auth'],
      ['Text two is here.', 'Project / Frontend'],
      ['Text three is here.', 'Other'],
    ]);
  });

  it('text before any heading has no section', () => {
    expect(one('Just a note without headings.').section).toBe('');
  });
});

describe('roles', () => {
  it('a `Decision:` line is a decision and must be kept', () => {
    const s = one('Decision: sessions stored in Postgres, 30-day expiry.');
    expect(s.role).toBe('decision');
    expect(s.mustKeep).toContain('decision');
  });

  it('a bold **Decision:** line is a decision', () => {
    expect(one('**Decision:** go with Redis for the cache.').role).toBe('decision');
  });

  it('"we decided" wording is a decision', () => {
    expect(one('After a long call we decided to drop the v1 endpoint.').role).toBe('decision');
  });

  it('a bullet under `## Decisions` is a decision, whatever its wording', () => {
    const all = sentences('# Session\n\n## Decisions\n\n- Postgres for sessions\n- Thirty-day expiry\n');
    expect(all.map((s) => s.role)).toEqual(['decision', 'decision']);
    expect(all.every((s) => s.mustKeep.includes('decision'))).toBe(true);
  });

  it('the nearest heading decides: a bullet under `## Open questions` is state', () => {
    expect(sentences('## Decisions\n\n- Use Postgres\n\n## Open questions\n\n- Which region to host in\n').map((s) => s.role)).toEqual([
      'decision',
      'state',
    ]);
  });

  it('`blocked on …` is state', () => {
    expect(one('We are blocked on the vendor API key.').role).toBe('state');
  });

  it('`Fixed …` is done', () => {
    expect(one('Fixed the flaky login test.').role).toBe('done');
  });

  it('`Fixed …` stays done when the sentence names what was failing', () => {
    expect(one('Fixed the failing login test.').role).toBe('done');
  });

  it('a bullet under `## Done` is done', () => {
    expect(one('## Done\n\n- The login page\n').role).toBe('done');
  });

  it('a heading that merely contains "open" (OpenAPI) does not make its text state', () => {
    expect(one('## OpenAPI client\n\n- Added retries to the generated client.\n').role).toBe('done');
  });

  it('plain prose is context and not must-keep', () => {
    const s = one('The weather was nice during the offsite.');
    expect(s.role).toBe('context');
    expect(s.mustKeep).toEqual([]);
  });
});

describe('must-keep reasons', () => {
  it('#critical', () => {
    expect(one('Never run the pruner against prod #critical.').mustKeep).toContain('critical');
  });

  it('an identifier in a code span', () => {
    expect(one('Call `resetCache()` before the import.').mustKeep).toContain('code');
  });

  it('an ISO date', () => {
    expect(one('The certificate expires on 2026-05-01 at noon.').mustKeep).toContain('date');
  });

  it('a named date', () => {
    expect(one('The audit is due on Feb 13, 2026 for the team.').mustKeep).toContain('date');
  });

  it('pinned: the lead sentence of a pinned memory', () => {
    const all = sentences('Always answer in German here. The user is in Berlin.', true);
    expect(all[0]!.mustKeep).toContain('pinned');
    expect(sentences('Always answer in German here. The user is in Berlin.', false).some((s) => s.mustKeep.includes('pinned'))).toBe(false);
  });

  it('several reasons at once', () => {
    expect(one('Decision: ship `v2.0` on 2026-05-01 #critical.').mustKeep).toEqual(['decision', 'critical', 'code', 'date']);
  });
});

describe('long paragraphs (hostile input)', () => {
  it('splits long paragraphs (0.25 and 0.75 MB) in time linear in their size', () => {
    const time = (text: string): number => {
      const started = performance.now();
      expect(splitSentences(text).length).toBeGreaterThan(0);
      return performance.now() - started;
    };
    // Before pieces, 200 kB of "Ok. " took ~3 minutes in Intl.Segmenter; now ~2 s a MB. A quarter and three quarters of
    // a MB tell linear from quadratic as well (hundreds of 2,000-character pieces each) at a quarter of the CPU.
    const one = time('Ok. '.repeat(62_500));
    const three = time('Ok. '.repeat(187_500));
    expect(three).toBeLessThan(one * 6);
    for (const text of ['We fixed the login bug today. '.repeat(25_000), 'word '.repeat(150_000)]) {
      const pieces = splitSentences(text);
      expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(2 * MAX_SENTENCE_CHARS);
    }
  }, 120_000);

  it('never cuts a code span when it cuts a long sentence', () => {
    const text = `${'word '.repeat(399)}\`a.b.c()\` ${'more '.repeat(800)}`;
    const pieces = splitSentences(text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join(' ')).toContain('`a.b.c()`');
    expect(pieces.join(' ')).not.toContain('\u0000');
  });
});

describe('long markdown parsed in pieces (hostile input)', () => {
  // The same text through remark in one call: what the pieces must add up to.
  const whole = async (text: string): Promise<ReturnType<typeof parseMarkdown>> => {
    const { unified } = await import('unified');
    const remarkParse = (await import('remark-parse')).default;
    return unified().use(remarkParse).parse(text);
  };

  it('gives the same sentences and headings as one parse', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 120; i++) {
      parts.push(
        `## Section ${i}\n\nWe fixed bug ${i} today. It took \`npm test\` twice.\n\n` +
          `- item ${i} one\n  - sub ${i}\n- item ${i} two\ncontinued lazily.\n\n1. first ${i}\n2. second ${i}\n`,
      );
      if (i % 10 === 0) parts.push('```\n- not a list\n\n- still code\n```\n');
    }
    const text = parts.join('\n');
    const [pieces, one] = [parseMarkdown(text), await whole(text)];
    expect(text.split('\n').length).toBeGreaterThan(1000);
    expect(extractSentences(pieces, { pinned: false })).toEqual(extractSentences(one, { pinned: false }));
    expect(headingSpans(pieces)).toEqual(headingSpans(one));
  });

  it('parses a long list of sub-lists in linear time', () => {
    const time = (items: number): number => {
      const started = performance.now();
      const tree = parseMarkdown('- a\n  - b\n'.repeat(items));
      expect(tree.children.length).toBeGreaterThan(0);
      return performance.now() - started;
    };
    time(500);
    // One call took ~30 s for 4,000 items (quadratic: ~7 s for 2,000); in pieces 4,000 cost about 8 times 500.
    // Sizes 8x apart and the best of three each, so a busy machine does not make linear look quadratic (64x).
    const best = (items: number): number => Math.min(time(items), time(items), time(items));
    const [small, large] = [best(500), best(4000)];
    expect(large).toBeLessThan(small * 24);
    expect(large).toBeLessThan(10_000);
  }, 60_000);
});
