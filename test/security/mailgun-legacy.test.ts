import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/redact/redact.js';
import { createProject, removeProject, runCli } from '../helpers/project.js';

/**
 * Mailgun's legacy keys (`key-` and 32 of [0-9a-z], not only hex) are
 * secrets: `add` redacts one, also when it is the text's first words, which
 * name the file. Every other path (ingest, a hand-written memory, the package,
 * git, LLM requests) is held by the corpus case in secrets.test.ts.
 */

const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

// Assembled at run time: no source file holds a string a scanner could take for a live credential.
const legacy = ['ke', 'y-', '3ax6xnjp29jd6fds4gc373sgvjxteol0'].join('');

/** Every file under `dir`, relative. */
function files(dir: string, relative = ''): string[] {
  return readdirSync(path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    return entry.isDirectory() ? files(dir, child) : [child];
  });
}

describe('Mailgun legacy keys', () => {
  it('add redacts one that opens the text: not in the memory, nor in its file name', async () => {
    const root = createProject({});
    roots.push(root);
    const added = await runCli(['add', `${legacy} is the old mailer key, rotate it in March`, '--date', '2026-02-17T09:00:00Z'], {
      cwd: root,
    });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('1 secret redacted (mailgun 1)');
    expect(added.stdout + added.stderr).not.toContain(legacy);
    const written = files(path.join(root, 'vault')).filter((file) => file.endsWith('.md'));
    expect(written).toHaveLength(1);
    expect(written[0]).not.toContain(legacy.slice(4, 12));
    const text = readFileSync(path.join(root, 'vault', written[0]!), 'utf8');
    expect(text).not.toContain(legacy);
    expect(text).toContain('[REDACTED:mailgun] is the old mailer key');
  }, 30_000);

  it('the shape is narrow: hex keys still, no word or identifier that merely starts with key-', () => {
    const hex = ['ke', 'y-', '0123456789abcdef0123456789abcdef'].join('');
    expect(redactSecrets(`MAILGUN_KEY=${legacy}`).redactions).toEqual([{ kind: 'mailgun', count: 1 }]);
    expect(redactSecrets(`mailgun ${hex} here`).redactions).toEqual([{ kind: 'mailgun', count: 1 }]);
    for (const ordinary of [
      // 32 letters, no digit: a word.
      'the key-internationalizationlocalization step',
      'see key-value-store-and-other-things-here',
      // 33 characters: longer than a key.
      'the key-3ax6xnjp29jd6fds4gc373sgvjxteol0x slug',
    ])
      expect(redactSecrets(ordinary).count, ordinary).toBe(0);
  });
});
