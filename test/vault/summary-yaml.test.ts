import { describe, expect, it } from 'vitest';
import { stringifyFrontmatter } from '../../src/vault/frontmatter.js';
import { plainSummaryFrontmatter } from '../../src/vault/summary-yaml.js';

/** A daily's frontmatter as `writeSummaryFile` orders it. */
const DAILY = {
  memvault: 'summary',
  tier: 'daily',
  stream: 'main',
  period: '2023-11-22',
  start: '2023-11-22',
  end: '2023-11-22',
  sources: [
    {
      id: '2023/11/2023-11-22-timeouts-in-the-billing-service-1',
      sha256: '386ed65e000910a7863c3dfb70f1886c43249a3de3913502306e2a817e95edde',
    },
    { id: 'daily/2024-04-29', sha256: '1234e5678' },
  ],
  memories: 5,
  tokens: 264,
  bytes: 1071,
  generator: { provider: 'extractive', model: 'memvault-extractive-1', prompt: 'daily@2c64a3e2' },
  input_hash: '06f2213887026b26393b82c0e5b2b72a9006344ac33f64f946c336b923aa5783',
  must_keep: 182,
  dropped: [
    'src/http/router.ts',
    '--dry-run',
    'workers: 8',
    '#1762',
    '2007',
    'SELECT ... FOR UPDATE',
    'a "quoted" word',
    "it's",
    'x, y',
    'Décidé…',
  ],
  dropped_total: 159,
};

describe('plainSummaryFrontmatter', () => {
  it('writes a summary frontmatter byte for byte as yaml does', () => {
    const fast = plainSummaryFrontmatter(DAILY, '# main\n');
    expect(fast).toBeDefined();
    expect(fast).toBe(stringifyFrontmatter(DAILY, '# main\n'));
  });

  it('agrees with yaml on random strings and numbers, in every place a summary has them, whenever it answers', () => {
    let seed = 29;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = [
      'a',
      'Z',
      '0',
      '7',
      '1e5',
      '0x1F',
      '0o7',
      '.5',
      '.inf',
      'true',
      'Null',
      '~',
      ' ',
      ':',
      ': ',
      ' #',
      '#',
      '-',
      '- ',
      '?',
      ',',
      '[',
      ']',
      '{',
      '}',
      '"',
      "'",
      '`',
      '%',
      '@',
      '&',
      '*',
      '!',
      '|',
      '>',
      '.',
      '...',
      '---',
      'é',
      '…',
      '\u00a0',
      '\n',
      '\t',
      '\\',
      '/',
    ];
    const text = (): string => {
      let out = '';
      const length = 1 + random(5);
      for (let i = 0; i < length; i++) out += pieces[random(pieces.length)];
      return out;
    };
    const value = (): string | number => (random(6) === 0 ? random(3000) - 1000 : text());
    let answered = 0;
    for (let n = 0; n < 3000; n++) {
      const data = {
        memvault: 'summary',
        stream: value(),
        sources: Array.from({ length: 1 + random(3) }, () => ({ id: value(), sha256: value() })),
        memories: value(),
        generator: { provider: value(), model: value() },
        dropped: Array.from({ length: 1 + random(4) }, value),
      };
      const fast = plainSummaryFrontmatter(data, 'body\n');
      if (fast === undefined) continue;
      answered++;
      expect(fast, JSON.stringify(data)).toBe(stringifyFrontmatter(data, 'body\n'));
    }
    expect(answered).toBeGreaterThan(100);
  });

  it('leaves other shapes to yaml', () => {
    for (const data of [
      { a: [] },
      { a: true },
      { a: 1.5 },
      { a: [[1]] },
      { a: { b: { c: 1 } } },
      { a: 'line\nbreak' },
      { a: '' },
      { a: '--- x' },
    ])
      expect(plainSummaryFrontmatter(data, ''), JSON.stringify(data)).toBeUndefined();
  });
});
