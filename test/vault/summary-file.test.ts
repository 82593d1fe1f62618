import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/util/hash.js';
import type { Diagnostic, SummaryMeta } from '../../src/vault/model.js';
import { parseSummaryFile, writeSummaryFile, type SummaryParseResult } from '../../src/vault/summary-file.js';

const PATH = 'main/weekly/2026-W07.md';

function weekly(body: string, overrides: Partial<SummaryMeta> = {}): SummaryMeta {
  return {
    memvault: 'summary',
    tier: 'weekly',
    stream: 'main',
    period: '2026-W07',
    start: '2026-02-09',
    end: '2026-02-15',
    sources: [
      { id: 'daily/2026-02-09', sha256: 'ab'.repeat(32) },
      { id: 'daily/2026-02-10', sha256: 'cd'.repeat(32) },
    ],
    memories: 34,
    tokens: 912,
    bytes: 4301,
    generator: { provider: 'openai', model: 'llama3.1:8b', prompt: 'weekly@9c1e' },
    input_hash: 'ef'.repeat(32),
    output_hash: sha256(body),
    ...overrides,
  };
}

function ok(result: SummaryParseResult) {
  if (!result.ok) throw new Error(`expected the summary to parse, got ${JSON.stringify(result.diagnostics)}`);
  return result;
}

function bad(result: SummaryParseResult): Diagnostic {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

const BODY = '## Done\n\n- Shipped `auth.refresh()` on 2026-02-10.\n- Ünïcødé 日本語 🎉\n\n## Open threads\n\n- CI is flaky on macOS.\n';

describe('writeSummaryFile → parseSummaryFile round trip', () => {
  const cases: [string, SummaryMeta, string][] = [
    ['a weekly summary', weekly(BODY), BODY],
    [
      'a long-term summary with review flags and folded monthlies',
      weekly('Long history.\n', {
        tier: 'longterm',
        period: 'longterm',
        start: '2024-01-01',
        end: '2026-01-04',
        review: ['over-budget'],
        folded: [
          { id: 'monthly/2025-10', sha256: '01'.repeat(32) },
          { id: 'monthly/2025-11', sha256: '02'.repeat(32) },
        ],
        generator: { provider: 'extractive', model: 'extractive', prompt: 'longterm@1234' },
      }),
      'Long history.\n',
    ],
    [
      'a daily summary with no sources and an empty body',
      weekly('', {
        tier: 'daily',
        period: '2026-02-10',
        start: '2026-02-10',
        end: '2026-02-10',
        sources: [],
        memories: 0,
        tokens: 0,
        bytes: 0,
      }),
      '',
    ],
    [
      'a body that starts with a blank line and contains a rule',
      weekly('\n\nFirst.\n\n---\n\nSecond.\n'),
      '\n\nFirst.\n\n---\n\nSecond.\n',
    ],
    ['a body without a trailing newline', weekly('No newline at the end'), 'No newline at the end'],
    [
      'a waterfall summary with strings that look like other YAML types',
      weekly('Recent.\n', {
        tier: 'waterfall-recent',
        period: 'recent',
        start: '2026-02-09',
        end: '2026-02-15',
        generator: { provider: 'openai', model: 'true', prompt: '123' },
      }),
      'Recent.\n',
    ],
  ];

  for (const [name, meta, body] of cases) {
    it(`${name}: same meta and body, and an unedited body hashes to output_hash`, () => {
      const text = writeSummaryFile(meta, body);
      const { summary, body: readBody } = ok(parseSummaryFile(text, PATH));
      expect(summary.meta).toEqual(meta);
      expect(readBody).toBe(body);
      expect(summary.path).toBe(PATH);
      expect(summary.sha256).toBe(sha256(text));
      expect(summary.bodyHash).toBe(sha256(body));
      expect(summary.bodyHash).toBe(summary.meta.output_hash);
    });
  }

  it('writing the parsed summary again gives the same file', () => {
    const text = writeSummaryFile(weekly(BODY), BODY);
    const { summary, body } = ok(parseSummaryFile(text, PATH));
    expect(writeSummaryFile(summary.meta, body)).toBe(text);
  });

  it('an empty review list is not written', () => {
    const text = writeSummaryFile(weekly(BODY, { review: [] }), BODY);
    expect(text).not.toMatch(/^review:/m);
    expect(ok(parseSummaryFile(text, PATH)).summary.meta.review).toBeUndefined();
  });
});

describe('hand edits', () => {
  it('editing the body changes bodyHash, so the edit is detected', () => {
    const text = writeSummaryFile(weekly(BODY), BODY);
    const edited = text.replace('CI is flaky on macOS.', 'CI is flaky on macOS and Windows.');
    expect(edited).not.toBe(text);
    const { summary, body } = ok(parseSummaryFile(edited, PATH));
    expect(body).toContain('macOS and Windows');
    expect(summary.bodyHash).toBe(sha256(body));
    expect(summary.bodyHash).not.toBe(summary.meta.output_hash);
    expect(summary.meta).toEqual(weekly(BODY));
  });

  it('adding only a trailing line to the body is an edit too', () => {
    const text = writeSummaryFile(weekly(BODY), BODY);
    const { summary } = ok(parseSummaryFile(`${text}\nA note from me.\n`, PATH));
    expect(summary.bodyHash).not.toBe(summary.meta.output_hash);
  });

  it('changing only the frontmatter is not a body edit', () => {
    const text = writeSummaryFile(weekly(BODY), BODY);
    const retouched = text.replace('tokens: 912', 'tokens: 913');
    expect(retouched).not.toBe(text);
    const { summary } = ok(parseSummaryFile(retouched, PATH));
    expect(summary.meta.tokens).toBe(913);
    expect(summary.bodyHash).toBe(summary.meta.output_hash);
    expect(summary.sha256).not.toBe(sha256(text));
  });
});

describe('files that are not generated summaries', () => {
  it('a file without `memvault: summary` is summary/schema', () => {
    const d = bad(parseSummaryFile('---\ntier: weekly\nstream: main\n---\nA note someone put in weekly/.\n', PATH));
    expect(d).toMatchObject({ path: PATH, severity: 'error', rule: 'summary/schema' });
    expect(d.reason).toContain('memvault');
    expect(d.hint).toBeTruthy();
  });

  it('a plain markdown file without frontmatter is summary/schema', () => {
    expect(bad(parseSummaryFile('# My week\n\nNotes.\n', PATH))).toMatchObject({ rule: 'summary/schema', line: 1, column: 1 });
  });

  it('`memvault: summary` with a missing field names the field', () => {
    const d = bad(parseSummaryFile('---\nmemvault: summary\ntier: weekly\n---\nBody\n', PATH));
    expect(d.rule).toBe('summary/schema');
    expect(d.reason).toContain('stream');
  });

  it('an unknown tier points at the tier line', () => {
    const text = writeSummaryFile(weekly(BODY), BODY).replace('tier: weekly', 'tier: yearly');
    expect(bad(parseSummaryFile(text, PATH))).toMatchObject({ rule: 'summary/schema', line: 3, column: 7 });
  });

  it('broken YAML in the frontmatter is summary/frontmatter at its line', () => {
    const text = writeSummaryFile(weekly(BODY), BODY).replace('stream: main', 'stream: main\nstream: other');
    expect(bad(parseSummaryFile(text, PATH))).toMatchObject({ rule: 'summary/frontmatter', line: 5, column: 1 });
  });
});
