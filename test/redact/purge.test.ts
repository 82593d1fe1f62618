import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitAll, git, gitConfig, initRepo, shortHistory } from '../git/helpers.js';
import { createProject, memory, readText, removeProject, runCli, writeFiles } from '../helpers/project.js';

/**
 * After `memvault redact` and a build, no redacted secret is left in any
 * file under `.memvault/`: the parse cache (entries, log, content pack), the
 * search index (SQLite, whose free pages keep deleted rows) and the
 * session-start cache held the text as it was. Checked byte for byte: the
 * secret's random part as written and lowercased (the search index stores
 * its tokens case-folded). The secrets: a GitHub token in a hand-written memory (held
 * back by the build) and a Stripe key a person had allowed on its
 * line, then redacted (summarized, indexed and cached first).
 */

const NOW = '2026-02-16T06:00:00Z';
const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

// Assembled at run time: no source file holds a string a scanner could take for a live credential.
// The random part is what a search index keeps as a token, case-folded (`sk`, `live` and `51hq7lw9…`).
const githubRandom = 'Q7aB9cD3eF5gH7iJ9kL1mN3oP5qR7sT9uV1w';
const stripeRandom = '51Hq7Lw9Zr4Xk1Vb8Nc3Md6Fp2Tg5Ys0';
const github = ['gh', 'p_', githubRandom].join('');
const stripe = ['sk', '_live_', stripeRandom].join('');
const HELD = 'vault/main/memories/2026-02/2026-02-13-pushed.md';
const ALLOWED = 'vault/main/memories/2026-02/2026-02-12-mailer.md';

/** Files under `.memvault/` holding a secret's random part, as bytes (latin1 keeps every byte), as written or lowercased. */
function leaks(root: string): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) {
        const bytes = readFileSync(path.join(root, child), 'latin1');
        const folded = bytes.toLowerCase();
        for (const random of [githubRandom, stripeRandom])
          if (bytes.includes(random) || folded.includes(random.toLowerCase())) out.push(`${child}: ${random.slice(0, 4)}…`);
      }
    }
  };
  walk('.memvault');
  return out.sort();
}

describe('memvault redact leaves no secret under .memvault/', () => {
  it('after redact and a build, no file of the parse cache, the search index or the hook cache holds it', async () => {
    const root = createProject({ '.gitignore': '.memvault/\n' }, gitConfig());
    roots.push(root);
    initRepo(root);
    writeFiles(root, shortHistory('2026-02-09', '2026-02-13').files);
    commitAll(root, 'memories');
    writeFiles(root, {
      [HELD]: memory({ date: '2026-02-13T18:00:00Z', body: `Pushed the release with ${github} from the build box.` }),
      [ALLOWED]: memory({
        date: '2026-02-12T18:00:00Z',
        title: 'Mailer',
        body: `The mailer bills through ${stripe} for now. <!-- memvault:allow-secret -->\n\nThe mailer retries twice.`,
      }),
    });
    const run = async (args: string[]) => {
      const result = await runCli(args, { cwd: root });
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
      return result;
    };
    const built = await run(['build', '--now', NOW]);
    expect(built.stderr).toContain('[secret/github]');
    await run(['search', 'mailer bills', '--now', NOW]);
    await run(['context', '--query', 'mailer', '--now', NOW]);
    const hook = await runCli(['hook', 'session-start'], { cwd: root });
    expect(hook.code, hook.stderr).toBe(0);
    // The stores hold both: what the build parsed (held back or not) and what it indexed.
    const before = leaks(root);
    expect(before.some((leak) => leak.startsWith('.memvault/state.sqlite'))).toBe(true);
    expect(before.some((leak) => leak.startsWith('.memvault/search/'))).toBe(true);

    // The person takes the allowance back, and redacts.
    writeFiles(root, { [ALLOWED]: readText(root, ALLOWED).replace(' <!-- memvault:allow-secret -->', '') });
    const redacted = await run(['redact', 'vault']);
    expect(redacted.stdout).toMatch(/2026-02-13-pushed\.md:\d+:\d+ github/);
    expect(redacted.stdout).toMatch(/2026-02-12-mailer\.md:\d+:\d+ stripe/);
    const rebuilt = await run(['build', '--now', NOW]);
    expect(rebuilt.stderr).not.toContain('[secret/');
    await run(['search', 'mailer bills', '--now', NOW]);
    await run(['context', '--query', 'mailer', '--now', NOW]);
    expect((await runCli(['hook', 'session-start'], { cwd: root })).code).toBe(0);
    expect(leaks(root)).toEqual([]);
    expect(redacted.stderr).toContain('removed the caches that may hold the text as it was');
    // The redacted memories are summarized and committed now.
    expect(git(root, 'ls-files').split('\n')).toContain(HELD);
  }, 120_000);
});
