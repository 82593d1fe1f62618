import { describe, expect, it } from 'vitest';
import { cutVersion, followsOn, joinedText, renderGroup } from '../../src/read/context/render.js';
import type { Version } from '../../src/read/context/candidate.js';

/** How a context shows its items (render.ts): pure, in-process, with a word count standing in for the tokenizer. */

const label = 'Wednesday 18 March 2026 09:00 Standup (note)';
const source = 'main/memories/2026-03-18-chat.md';
/** The body starts on line 5 of the file (four lines of frontmatter). */
const bodyLine = (p: string): number | undefined => (p === source ? 5 : undefined);
const excerpt = (first: number, last: number, line: number, text: string): Version => ({
  source,
  label,
  text,
  part: { first, last, of: 12, line },
});
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

describe('renderGroup', () => {
  it('labels every passage of a memory: the heading with the first one’s path:line, each later one after a gap with its own line', () => {
    const text = renderGroup(
      [
        excerpt(7, 8, 14, 'Ana: Then we patch the mapper.\n\nBen: Tonight.'),
        excerpt(2, 3, 4, 'Ben: I looked at the ledger export.\n\nAna: Anything odd?'),
        excerpt(4, 4, 6, 'Ben: It drops rows with a null currency.'),
      ],
      bodyLine,
    );
    expect(text).toBe(
      [
        `### ${label} \`${source}:9\``,
        '',
        '…',
        '',
        'Ben: I looked at the ledger export.',
        '',
        'Ana: Anything odd?',
        '',
        // Blocks 2–3 and 4 are one run: no label between them.
        'Ben: It drops rows with a null currency.',
        '',
        // Blocks 5–6 are left out: the next passage says where it starts (body line 14, file line 19).
        '`:19` Ana: Then we patch the mapper.',
        '',
        'Ben: Tonight.',
        '',
        '…',
        '',
      ].join('\n'),
    );
  });

  it('shows a whole item under its heading, and falls back to `…` where the file has no line to give', () => {
    expect(renderGroup([{ source, label, text: 'All of it.\n' }], bodyLine)).toBe(`### ${label} \`${source}:5\`\n\nAll of it.\n`);
    const elsewhere = { ...excerpt(3, 3, 6, 'Later.'), source: 'main/daily/2026-03-18.md' };
    expect(joinedText(elsewhere, bodyLine)).toBe('…\n\nLater.');
    expect(joinedText(excerpt(3, 3, 6, 'Later.'), bodyLine)).toBe('`:11` Later.');
  });
});

describe('followsOn', () => {
  it('says an excerpt needs no label of its own (and costs its text only) when it starts right after a placed one', () => {
    const placed = [
      { first: 2, last: 3, of: 12, line: 4 },
      { first: 7, last: 8, of: 12, line: 14 },
    ];
    expect(followsOn({ first: 4, last: 4, of: 12, line: 6 }, placed)).toBe(true);
    expect(followsOn({ first: 9, last: 10, of: 12, line: 18 }, placed)).toBe(true);
    // Before the first placed excerpt, or after a gap: it opens with its `:line`.
    expect(followsOn({ first: 0, last: 1, of: 12, line: 0 }, placed)).toBe(false);
    expect(followsOn({ first: 5, last: 5, of: 12, line: 10 }, placed)).toBe(false);
    expect(followsOn({ first: 5, last: 5, of: 12, line: 10 }, [])).toBe(false);
  });
});

describe('cutVersion', () => {
  const summary: Version = {
    source: 'main/monthly/2026-03.md',
    label: 'monthly 2026-03',
    text: ['- Ledger export fixed.', '- Payments moved to the queue. Retries now back off. The old cron is gone.'].join('\n'),
  };
  const size = (v: Version): number => words(`### ${v.label}\n\n${v.text}`);
  const marker = '[…cut to fit; zoom into its period for all of it]';

  it('keeps whole lines, then whole sentences of the next line, never part of a sentence', () => {
    // 14 words of heading and marker, 4 of the first line, 6 of the second line's first sentence: 24.
    const cut = cutVersion(summary, 24, size, words);
    expect(cut.version.text).toBe(`- Ledger export fixed.\n- Payments moved to the queue. ${marker}`);
    expect(cut.tokens).toBe(24);
    // Room for three words more than a sentence brings no part of the next one ("Retries now back").
    expect(cutVersion(summary, 27, size, words).version.text).toBe(cut.version.text);
    expect(cutVersion(summary, 28, size, words).version.text).toBe(
      `- Ledger export fixed.\n- Payments moved to the queue. Retries now back off. ${marker}`,
    );
  });

  it('stops at the last whole line when no sentence of the next fits', () => {
    const cut = cutVersion(summary, 23, size, words);
    expect(cut.version.text).toBe(`- Ledger export fixed. ${marker}`);
    expect(cut.tokens).toBe(18);
    expect(cut.version.part).toBeUndefined();
  });
});
