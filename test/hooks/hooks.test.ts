import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUsageLog } from '../../src/usage/log.js';
import { countTokens } from '../../src/util/tokens.js';
import { createProject, listFiles, memory, removeProject, snapshotTree } from '../helpers/project.js';
import { spawnCli } from '../helpers/spawn-cli.js';

/**
 * `memvault hook …` with the JSON Claude Code sends (test/fixtures/claude-code-hooks/,
 * paths rewritten to a temporary project), run from another folder so the
 * project is found from the input's `cwd`, as Claude Code runs hooks.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/claude-code-hooks');
const NOW = '2026-03-20T12:00:00Z';
const PINNED = 'Production deploys need two approvals, hotfixes too.';

function hookInput(name: string, root: string, transcript: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8')
    .replaceAll('/home/ana/src/ledgerly', root)
    .replace(/"transcript_path":"[^"]*"/, `"transcript_path":${JSON.stringify(transcript)}`);
}

/** `memvault hook …` run from another folder, as Claude Code runs hooks: the project is found from the input's `cwd`. */
function runHook(args: string[], stdin: string, env: Record<string, string> = {}) {
  return spawnCli(['hook', ...args], { cwd: os.tmpdir(), env: { MEMVAULT_NOW: NOW, ...env }, stdin });
}

let root: string;
let transcript: string;

beforeAll(() => {
  const filler = (n: number) =>
    `Routine work on the billing service, part ${n}. ${'Queues, retries and dashboards were reviewed again. '.repeat(12)}`;
  const files: Record<string, string> = {
    'vault/main/memories/2026-01-05-deploy-rule.md': memory({
      date: '2026-01-05T09:00:00Z',
      title: 'Deploy rule',
      importance: 'pinned',
      body: PINNED,
    }),
    'vault/main/memories/2026-02-10-sessions.md': memory({
      date: '2026-02-10T10:00:00Z',
      title: 'ADR-012 sessions',
      kind: 'decision',
      body: 'Decision: server sessions in Postgres replace JWT.',
    }),
  };
  for (let i = 1; i <= 20; i++)
    files[`vault/main/memories/2026-03-${String(i).padStart(2, '0')}-work.md`] = memory({
      date: `2026-03-${String(i).padStart(2, '0')}T08:00:00Z`,
      title: `Work ${i}`,
      body: filler(i),
    });
  root = createProject(files, 'timezone: UTC\nhooks:\n  budget: 700\n');
  mkdirSync(path.join(root, 'transcripts'));
  transcript = path.join(root, 'transcripts', '4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c.jsonl');
  copyFileSync(path.join(FIXTURES, 'transcript.jsonl'), transcript);
});
afterAll(() => removeProject(root));

describe('memvault hook session-start', () => {
  it('prints the pinned memory first, then a context, within the configured budget', async () => {
    const result = await runHook(['session-start'], hookInput('session-start-startup.json', root, transcript));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Project memory from memvault\.\n/);
    expect(countTokens(result.stdout, 'o200k_base')).toBeLessThanOrEqual(700);
    const critical = result.stdout.indexOf('## Critical');
    expect(critical).toBeGreaterThan(0);
    // The first item of the critical tier is the pinned memory.
    expect(result.stdout.slice(critical).split('### ')[1]).toContain(PINNED);
    expect(result.stdout).toContain('Decision: server sessions in Postgres');
    // Served items are counted, as for context, search and zoom.
    expect(readUsageLog(root).events.map((event) => event.via)).toContain('hook:session-start');
  });

  it('prints it again after a compaction, saying so, and takes --budget and --json', async () => {
    const result = await runHook(['session-start', '--budget', '400', '--json'], hookInput('session-start-compact.json', root, transcript));
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const text: string = output.hookSpecificOutput.additionalContext;
    expect(text).toMatch(/^Project memory from memvault \(again after compaction/);
    // As at startup: the first item of the critical tier is the pinned memory.
    const critical = text.indexOf('## Critical');
    expect(critical).toBeGreaterThan(0);
    expect(text.slice(critical).split('### ')[1]).toContain(PINNED);
    expect(countTokens(text, 'o200k_base')).toBeLessThanOrEqual(400);
  });
});

describe('memvault hook pre-compact and session-end', () => {
  it('ingest the transcript once, redacted and without the sub-agent side chain; a second call changes nothing', async () => {
    const before = listFiles(root, 'vault/main/memories').length;
    const first = await runHook(['pre-compact'], hookInput('pre-compact.json', root, transcript));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/1 new/);
    const written = listFiles(root, 'vault/main/memories').filter((f) => /2026-02-13/.test(f));
    expect(written).toHaveLength(1);
    expect(listFiles(root, 'vault/main/memories')).toHaveLength(before + 1);
    const text = readFileSync(path.join(root, written[0]!), 'utf8');
    expect(text).toContain('invoice');
    expect(text).toContain('[REDACTED:');
    expect(text).not.toContain('ghp_8fJ2kLmN4pQrS6tUvW8xYz0aBcDeFgHiJkLm');
    expect(text).not.toContain('Sub-agent: list every test file');
    expect(text).toMatch(/tags:.*claude-code/s);

    const snapshot = snapshotTree(path.join(root, 'vault'));
    const again = await runHook(['session-end'], hookInput('session-end.json', root, transcript));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already ingested, nothing to do');
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(snapshot);
  });

  it('a transcript that is missing or broken: exit 0, the reason on stderr, nothing written', async () => {
    const snapshot = snapshotTree(path.join(root, 'vault'));
    const missing = await runHook(['session-end'], hookInput('session-end.json', root, path.join(root, 'transcripts/gone.jsonl')));
    expect(missing.code).toBe(0);
    expect(missing.stderr).toMatch(/memvault hook session-end: .*gone\.jsonl.*file not found/);
    const garbage = await runHook(['pre-compact'], '{"hook_event_name": "PreCompact", "transcript_path": ');
    expect(garbage.code).toBe(0);
    expect(garbage.stderr).toMatch(/hook input is not JSON/);
    const noPath = await runHook(['pre-compact'], JSON.stringify({ hook_event_name: 'PreCompact', cwd: root }));
    expect(noPath.code).toBe(0);
    expect(noPath.stderr).toMatch(/no transcript_path/);
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(snapshot);
  });

  it('an unknown hook name is a setup mistake: exit 1', async () => {
    const result = await runHook(['post-tool-use'], '{}');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unknown hook `post-tool-use`/);
  });
});
