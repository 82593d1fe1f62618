import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initRepo } from '../git/helpers.js';
import { createProject, memory, removeProject, runCli } from '../helpers/project.js';

/**
 * Every command reads memory.config.yaml through one function
 * (`loadValidConfig`): an invalid config gives the same lines and exit code
 * whichever command meets it, and nothing is read or written past it.
 */

const BAD_CONFIG = 'timezone: UTC\nupload:\n  max_tokens: many\nnot_a_key: 1\n';
/** Each command with arguments that would otherwise get past argument checks. */
const COMMANDS: string[][] = [
  ['build', '--no-commit'],
  ['build', '--dry-run'],
  ['status'],
  ['search', 'sessions'],
  ['zoom', '2026-02-13'],
  ['context', '--query', 'sessions'],
  ['add', 'a new memory'],
  ['ingest', 'notes.md'],
  ['compact'],
  ['redact', 'vault/main/memories'],
  ['log', 'vault/main/memories/2026-02-13-a.md'],
  ['watch'],
];

let root: string;
beforeAll(() => {
  root = createProject(
    {
      'vault/main/memories/2026-02-13-a.md': memory({
        date: '2026-02-13',
        title: 'Sessions',
        body: 'Server sessions expire after an hour.',
      }),
      'notes.md': '# Notes\n\nWe chose server sessions.\n',
    },
    BAD_CONFIG,
  );
  initRepo(root);
});
afterAll(() => removeProject(root));

describe('an invalid memory.config.yaml', () => {
  it('stops every command with the same lines and exit 1, before it writes anything', async () => {
    const env = { MEMVAULT_NOW: '2026-02-14T06:00:00Z' };
    const results = await Promise.all(COMMANDS.map((args) => runCli(args, { cwd: root, env })));
    const expected = [
      'memory.config.yaml:3:15 error `upload.max_tokens`: Invalid input: expected number, received string',
      'memory.config.yaml:4:1 error unknown key `not_a_key`',
    ];
    results.forEach((result, i) => {
      const label = `memvault ${COMMANDS[i]!.join(' ')}:\n${result.stderr}`;
      expect(result.code, label).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines.length, label).toBe(4);
      expect(lines[0], label).toMatch(new RegExp(`^${escapeRegExp(expected[0]!)} \\(hint: .+\\) \\[config/schema\\]$`));
      expect(lines[1], label).toMatch(new RegExp(`^${escapeRegExp(expected[1]!)} \\(hint: .+\\) \\[config/schema\\]$`));
      expect(lines.slice(2), label).toEqual([
        'memvault: memory.config.yaml is invalid (2 problems)',
        '  hint: fix the lines listed above [config/invalid]',
      ]);
    });
    // The same text from every command, byte for byte, and the vault as it was: no summary, no new memory, no lock.
    expect(new Set(results.map((r) => r.stderr)).size).toBe(1);
    expect(readdirSync(path.join(root, 'vault'), { recursive: true }).map(String).sort()).toEqual([
      'main',
      'main/memories',
      'main/memories/2026-02-13-a.md',
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
