import { afterAll, describe, expect, it } from 'vitest';
import { counted, plural } from '../../src/text/plural.js';
import { createProject, memory, readText, removeProject, runCli } from '../helpers/project.js';

/** Counts as a person reads them: "1 memory", never "1 memories", wherever the CLI prints a count. */

describe('counts and their nouns', () => {
  it('singular for exactly one, plural otherwise, with thousands separators', () => {
    expect(counted(1, 'memory', 'memories')).toBe('1 memory');
    expect(counted(0, 'memory', 'memories')).toBe('0 memories');
    expect(counted(2, 'file')).toBe('2 files');
    expect(counted(1234, 'document')).toBe('1,234 documents');
    expect(plural(1, 'retry', 'retries')).toBe('retry');
  });

  describe('a vault with one memory, built: status, build, search and INDEX.md say "1 memory", "1 day", "1 document"', () => {
    const root = createProject({
      'vault/main/memories/2026-02-12-standup.md': memory({
        date: '2026-02-12T10:00:00Z',
        title: 'Standup',
        body: 'Planned the billing rewrite.',
      }),
    });
    afterAll(() => removeProject(root));
    const ONE_PLURAL = /\b1 (memories|files|days|calls|LLM calls|documents|retries)\b/;

    it('prints no "1 memories" anywhere', async () => {
      const build = await runCli(['build', '--now', '2026-02-16T06:00:00Z', '--no-commit'], { cwd: root });
      expect(build.code, build.stderr).toBe(0);
      expect(build.stdout).toMatch(/main: 1 memory; /);
      const status = await runCli(['status', '--now', '2026-02-16T06:00:00Z'], { cwd: root });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/^main: 1 memory \(0 archived, 0 pinned\), 2026-02-12 to 2026-02-12, 1 day$/m);
      const search = await runCli(['search', 'billing'], { cwd: root });
      expect(search.code, search.stderr).toBe(0);
      const index = readText(root, 'vault/INDEX.md');
      expect(index).toMatch(/\b1 day with memories\b/);
      for (const [what, text] of Object.entries({ build: build.stdout, status: status.stdout, search: search.stdout, index }))
        expect(text, what).not.toMatch(ONE_PLURAL);
    });
  });
});
