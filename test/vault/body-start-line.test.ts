import { describe, expect, it } from 'vitest';
import { bodyStartLine, frontmatterBody } from '../../src/vault/frontmatter.js';

describe('bodyStartLine', () => {
  it('counts the frontmatter and blank lines before the body, with LF or CRLF line breaks', () => {
    const lf = '---\ndate: 2026-02-10\ntitle: a\n---\n\nThe body.\nSecond line.\n';
    expect(bodyStartLine(lf, frontmatterBody(lf).trim())).toBe(6);
    const crlf = lf.replaceAll('\n', '\r\n');
    expect(bodyStartLine(crlf, frontmatterBody(crlf).trim())).toBe(6);
  });

  it('finds the body itself when its words also stand in the frontmatter', () => {
    const text = '---\ntitle: a\n---\na\n';
    expect(bodyStartLine(text, 'a')).toBe(4);
    expect(bodyStartLine(text, 'not there')).toBeUndefined();
  });
});
