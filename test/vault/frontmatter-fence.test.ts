import { describe, expect, it } from 'vitest';
import {
  frontmatterFence,
  opensFrontmatter,
  opensGeneratedSummary,
  parseFrontmatter,
  withoutFrontmatter,
} from '../../src/vault/frontmatter.js';
import { addToFrontmatter } from '../../src/vault/frontmatter-edit.js';

describe('frontmatterFence: the one frontmatter splitter', () => {
  it('finds the block between a first `---` line and the next, LF or CRLF, BOM, language tag, trailing spaces', () => {
    const lf = '---\ntitle: A\n---\nBody\n';
    expect(frontmatterFence(lf)).toEqual({ open: '---\n', matterStart: 4, closeStart: 13, bodyStart: 17, matter: 'title: A\n' });
    expect(withoutFrontmatter('---\r\ntitle: A\r\n---  \r\nBody')).toBe('Body');
    expect(withoutFrontmatter('\uFEFF---\ntitle: A\n---\nBody')).toBe('Body');
    expect(frontmatterFence('---yaml\ntitle: A\n---\nBody')?.open).toBe('---yaml\n');
    expect(withoutFrontmatter('---\n---\nBody')).toBe('Body');
    expect(withoutFrontmatter('---\ntitle: A\n---')).toBe('');
  });

  it('finds nothing without an opening fence, or when the fence is never closed', () => {
    for (const text of ['Body\n---\nmore', '----\ntitle: A\n----\nBody', '---\ntitle: A\nBody', ' ---\na: 1\n---\n'])
      expect(frontmatterFence(text)).toBeUndefined();
    expect(opensFrontmatter('---\ntitle: A\nBody')).toBe(true);
    expect(opensFrontmatter('Body')).toBe(false);
    // A `----` line or a `---` inside a value does not close the block.
    expect(withoutFrontmatter('---\na: 1\n----\nb: ---\n---\nBody')).toBe('Body');
  });

  it('gives the body the loader gives, for LF files', () => {
    for (const text of ['---\ntitle: A\ndate: 2026-02-13\n---\nBody\n', '---\n---\n\nBody', '---\ntags: [a, b]\n---\n# H\n\ntext'])
      expect(withoutFrontmatter(text)).toBe(parseFrontmatter(text).body);
  });

  it('tells a generated summary by its first frontmatter line', () => {
    expect(opensGeneratedSummary('---\nmemvault: summary\ntier: daily\n')).toBe(true);
    expect(opensGeneratedSummary("---\r\nmemvault: 'summary'\r\n")).toBe(true);
    expect(opensGeneratedSummary('---\ntitle: summary\n')).toBe(false);
  });

  it('edits keep the BOM and the opening line, and an unclosed block is an error', () => {
    expect(addToFrontmatter('\uFEFF---\ntitle: A\n---\nBody', 'supersedes', 'x', undefined)).toBe(
      '\uFEFF---\ntitle: A\nsupersedes: [x]\n---\nBody',
    );
    expect(() => addToFrontmatter('---\ntitle: A\nBody', 'supersedes', 'x', undefined)).toThrow(/not closed/);
  });
});
