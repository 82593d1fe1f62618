import { describe, expect, it } from 'vitest';
import { parseMemoryFile, type MemoryPlace } from '../../src/vault/memory-file.js';
import type { Diagnostic } from '../../src/vault/model.js';

/** parseMemoryFile on hostile input: fence languages, aliases, odd ids and dates, huge bodies. The ordinary cases: memory-file.test.ts. */

/** A file at `main/memories/<inside>`. */
function place(inside = '2026/03/note.md'): MemoryPlace {
  return { path: `main/memories/${inside}`, stream: 'main', location: 'memories', relativeId: inside.replace(/\.md$/, '') };
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('hostile frontmatter and bodies', () => {
  const problem = (text: string | Uint8Array, inside?: string): Diagnostic => {
    const result = parseMemoryFile(typeof text === 'string' ? utf8(text) : text, place(inside), 'UTC');
    if (result.ok) throw new Error('expected a diagnostic');
    expect(result.diagnostics).toHaveLength(1);
    return result.diagnostics[0]!;
  };

  it('refuses every fence language but YAML and JSON, and never evaluates one', () => {
    const g = globalThis as { memvaultRan?: number };
    g.memvaultRan = 0;
    for (const tag of ['js', 'javascript', 'JS', 'coffee', 'cson', 'toml', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const d = problem(`---${tag}\n{ date: (globalThis.memvaultRan = 1) && '2026-02-03' }\n---\nBody.\n`);
      expect(d).toMatchObject({
        line: 1,
        column: 1,
        rule: 'memory/frontmatter-language',
        reason: `unsupported frontmatter language "${tag}"`,
      });
    }
    expect(g.memvaultRan).toBe(0);
  });

  it('reads `---json` and `---yaml` fences as data', () => {
    for (const text of [
      '---json\n{"date": "2026-02-03", "title": "J"}\n---\nBody.\n',
      '---yaml\ndate: 2026-02-03\ntitle: J\n---\nBody.\n',
    ]) {
      const result = parseMemoryFile(utf8(text), place(), 'UTC');
      expect(result.ok && result.content.memory).toMatchObject({ day: '2026-02-03', title: 'J' });
    }
  });

  it('stops at the alias, depth and size limits with a place', () => {
    const bomb = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      ...'bcdefg'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
    ].join('\n');
    expect(problem(`---\ndate: 2026-02-03\n${bomb}\n---\nBody.\n`)).toMatchObject({
      rule: 'memory/frontmatter',
      reason: expect.stringContaining('aliases') as string,
      line: 4,
    });
    // A few aliases are fine.
    expect(parseMemoryFile(utf8('---\ndate: &d 2026-02-03\ncreated: *d\n---\nBody.\n'), place(), 'UTC').ok).toBe(true);
    expect(problem(`---\ndate: 2026-02-03\na: ${'['.repeat(65)}${']'.repeat(65)}\n---\nBody.\n`)).toMatchObject({
      rule: 'memory/frontmatter-depth',
      line: 3,
    });
    expect(problem(`---\ndate: 2026-02-03\na:\n${'- '.repeat(30000)}x\n---\nBody.\n`)).toMatchObject({
      rule: 'memory/frontmatter-depth',
      line: 4,
    });
    const nested = Array.from({ length: 70 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    expect(problem(`---\ndate: 2026-02-03\n${nested} v\n---\nBody.\n`)).toMatchObject({ rule: 'memory/frontmatter-depth' });
    expect(problem(`---\ndate: 2026-02-03\nnote: "${'x'.repeat(70_000)}"\n---\nBody.\n`)).toMatchObject({
      rule: 'memory/too-large',
      line: 1,
    });
  });

  it('refuses ids that could name a path outside the vault', () => {
    for (const id of ['../../etc/passwd', 'a/..', './a', '/etc/passwd', 'a//b', 'C:\\\\x', 'a\\u0000b', 'a\\u001bb', 'x'.repeat(201)]) {
      expect(problem(`---\ndate: 2026-02-03\nid: "${id}"\n---\nBody.\n`), id).toMatchObject({ rule: 'memory/invalid-id', line: 3 });
    }
    for (const id of ['2026/02/auth', 'notes.v2', 'ünï-名前', 'a..b']) {
      expect(parseMemoryFile(utf8(`---\ndate: 2026-02-03\nid: "${id}"\n---\nBody.\n`), place(), 'UTC').ok, id).toBe(true);
    }
  });

  it('keeps the `memvault` key for generated files', () => {
    expect(problem('---\ndate: 2026-02-03\nmemvault: summary\n---\nBody.\n')).toMatchObject({
      rule: 'memory/reserved-key',
      line: 3,
      column: 11,
    });
  });

  it('rejects years outside 1000-9999 and impossible days', () => {
    for (const date of ['0999-06-01', '2026-13-01', '2026-02-30', '+012345-01-01', '9999-12-31T23:59:59-14:00', '0000-01-01']) {
      expect(problem(`---\ndate: "${date}"\n---\nBody.\n`), date).toMatchObject({ rule: 'memory/invalid-date', line: 2 });
    }
    expect(parseMemoryFile(utf8('---\ndate: 1000-01-01\n---\nBody.\n'), place(), 'UTC').ok).toBe(true);
    expect(parseMemoryFile(utf8('---\ndate: 9999-12-31T10:00:00+01:00\n---\nBody.\n'), place(), 'UTC').ok).toBe(true);
  });

  it('reports nesting past the markdown limits at the body line, in bounded time', () => {
    const head = '---\ndate: 2026-02-03\n---\nFirst line.\n';
    const cases: [string, string][] = [
      ['list', `${'- '.repeat(5000)}x`],
      ['indented list', Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}- x`).join('\n')],
      ['quote', `${'>'.repeat(5000)} x`],
      ['quote with spaces', `${'> '.repeat(5000)}x`],
      ['ordered', `${'1. '.repeat(5000)}x`],
      ['emphasis', `${'*'.repeat(5000)}x${'*'.repeat(5000)}`],
      ['mixed emphasis', `${'_*'.repeat(2500)}x`],
      ['emphasis pairs in one paragraph', '*a* '.repeat(2000)],
      ['brackets in one paragraph', `${'[a '.repeat(1001)}`],
    ];
    // The indented list passes the limit on the line indented 64 columns.
    for (const [name, body] of cases)
      expect(problem(`${head}${body}\n`), name).toMatchObject({ rule: 'memory/too-deep', line: name === 'indented list' ? 69 : 5 });
    // Under the limits, and inside fenced code, nothing is refused.
    // The same marks in paragraphs of 100 are fine.
    expect(parseMemoryFile(utf8(`${head}${'*a* '.repeat(100).concat('\n\n').repeat(30)}`), place(), 'UTC').ok).toBe(true);
    const fence = '```';
    const fine =
      `${head}${'- '.repeat(30)}x\n\n${'*'.repeat(3)}bold${'*'.repeat(3)}\n\n${'*'.repeat(200)}\n\n` +
      `${fence}\n${'> '.repeat(500)}\n${' '.repeat(400)}x\n${fence}\n`;
    expect(parseMemoryFile(utf8(fine), place(), 'UTC').ok).toBe(true);
  }, 30_000);
});
