import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, listFiles, memory, readText, removeProject } from '../helpers/project.js';
import { spawnCli } from '../helpers/spawn-cli.js';

/**
 * The hooks `memvault integrate` writes for Codex, Gemini CLI and Cursor, run
 * as the agent runs them: the documented hook input on stdin (test/fixtures/
 * agents/, paths moved into a temporary project), from another folder. The
 * ingesting hook turns the agent's recorded transcript into memories (once),
 * and session-start gives the memory back in the form the agent reads, within
 * its output limit.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/agents');
const NOW = '2026-03-20T12:00:00Z';
const PINNED = 'Production deploys need two approvals, hotfixes too.';

interface Case {
  agent: 'codex' | 'gemini' | 'cursor';
  transcript: string;
  ingestHooks: { event: string; input: string }[];
  startInput: string;
  /** Pulls the context text out of session-start's stdout. */
  context(stdout: string): string;
  /** Words of the transcript that its memory holds. */
  remembered: string;
}

const additionalContext = (stdout: string) => {
  const answer = JSON.parse(stdout);
  expect(answer.hookSpecificOutput.hookEventName).toBe('SessionStart');
  return answer.hookSpecificOutput.additionalContext as string;
};

const CASES: Case[] = [
  {
    agent: 'codex',
    transcript: 'codex/rollout-2026-03-19T09-12-03-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl',
    ingestHooks: [
      { event: 'session-end', input: 'codex/stop.json' },
      { event: 'pre-compact', input: 'codex/pre-compact.json' },
    ],
    startInput: 'codex/session-start.json',
    context: additionalContext,
    remembered: 'webhook deliveries stop after 5 attempts',
  },
  {
    agent: 'gemini',
    transcript: 'gemini/session-2026-03-19T10-04-0e2c7d1a.jsonl',
    ingestHooks: [
      { event: 'session-end', input: 'gemini/session-end.json' },
      { event: 'pre-compact', input: 'gemini/pre-compress.json' },
    ],
    startInput: 'gemini/session-start.json',
    context: additionalContext,
    remembered: 'streams lines with a database cursor',
  },
  {
    agent: 'cursor',
    transcript: 'cursor/3b9e4f2a-6c1d-4e8f-a7b2-5d0c9e8f7a6b.jsonl',
    ingestHooks: [
      { event: 'session-end', input: 'cursor/session-end.json' },
      { event: 'pre-compact', input: 'cursor/pre-compact.json' },
    ],
    startInput: 'cursor/session-start.json',
    context: (stdout) => JSON.parse(stdout).additional_context,
    remembered: '/healthz answers 200',
  },
];

/** The fixture's hook input with its project and transcript moved to `root`. */
function hookInput(name: string, root: string, transcript: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8')
    .replaceAll('/home/ana/src/ledgerly', root)
    .replace(/"transcript_path":"[^"]*"/, `"transcript_path":${JSON.stringify(transcript)}`);
}

function runHook(args: string[], stdin: string) {
  return spawnCli(['hook', ...args], { cwd: os.tmpdir(), env: { MEMVAULT_NOW: NOW }, stdin });
}

describe.each(CASES)('$agent hooks', (c) => {
  let root: string;
  let transcript: string;
  beforeAll(() => {
    root = createProject(
      {
        'vault/main/memories/2026-01-05-deploy-rule.md': memory({
          date: '2026-01-05T09:00:00Z',
          title: 'Deploy rule',
          importance: 'pinned',
          body: PINNED,
        }),
      },
      // A small cap, so the test sees the text kept within it.
      'timezone: UTC\nhooks:\n  max_chars: 1500\n',
    );
    mkdirSync(path.join(root, 'sessions'));
    transcript = path.join(root, 'sessions', path.basename(c.transcript));
    copyFileSync(path.join(FIXTURES, c.transcript), transcript);
  });
  afterAll(() => removeProject(root));

  it('the ingesting hook turns the recorded transcript into memories, once; its stdout is JSON', async () => {
    const [end, compact] = c.ingestHooks;
    const first = await runHook([end!.event, '--agent', c.agent], hookInput(end!.input, root, transcript));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toEqual({});
    const written = listFiles(root, 'vault/main/memories').filter((file) => !file.includes('deploy-rule'));
    expect(written.length).toBeGreaterThan(0);
    const text = written.map((file) => readText(root, file)).join('\n');
    expect(text).toContain(c.remembered);
    expect(text).toContain(`format: ${c.agent}`);
    // The full transcript is kept beside the distilled memory, as for Claude Code.
    expect(listFiles(root, 'vault/main/transcripts').length).toBe(1);

    const again = await runHook([compact!.event, '--agent', c.agent], hookInput(compact!.input, root, transcript));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(listFiles(root, 'vault/main/memories').filter((file) => !file.includes('deploy-rule'))).toEqual(written);
  });

  it('session-start answers in the form the agent reads, with the memory, within the character cap', async () => {
    const result = await runHook(['session-start', '--agent', c.agent], hookInput(c.startInput, root, transcript));
    expect(result.code, result.stderr).toBe(0);
    const context = c.context(result.stdout);
    expect(context).toMatch(/^Project memory from memvault\./);
    expect(context).toContain(PINNED);
    expect(context.length).toBeLessThanOrEqual(1500);
  });
});

describe("session-start within each agent's own limit", () => {
  let root: string;
  beforeAll(() => {
    // 60 pinned memories (the critical tier takes every pinned one): far more than 10,000 characters.
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`vault/main/memories/m${i}.md`] = memory({
        date: `2026-03-${String(1 + (i % 19)).padStart(2, '0')}T1${i % 10}:00:00Z`,
        title: `Rule ${i}`,
        importance: 'pinned',
        body: `Rule ${i}: service-${i} deploys through queue q${i * 7}, owner team-${i % 9}. ${'Reviewed latency, retries and alerts before each release. '.repeat(4)}`,
      });
    // A cap far above every agent's: what is left is the agent's own.
    root = createProject(files, 'timezone: UTC\nhooks:\n  max_chars: 60000\n  budget: 30000\n');
  });
  afterAll(() => removeProject(root));

  it('Codex (additionalContextLimit, 10,000 characters) gets at most that; Gemini CLI, which documents none, more', async () => {
    const input = JSON.stringify({ session_id: 's', transcript_path: null, cwd: root, hook_event_name: 'SessionStart', source: 'startup' });
    const codex = await runHook(['session-start', '--agent', 'codex'], input);
    expect(codex.code, codex.stderr).toBe(0);
    const codexText = additionalContext(codex.stdout);
    expect(codexText.length).toBeLessThanOrEqual(10_000);
    // The cap is spent, not thrown away.
    expect(codexText.length).toBeGreaterThan(5_000);
    const gemini = await runHook(['session-start', '--agent', 'gemini'], input);
    expect(additionalContext(gemini.stdout).length).toBeGreaterThan(10_000);
  });
});

describe('hook --agent', () => {
  it('an unknown agent is a setup mistake (exit 1) naming the ones there are', async () => {
    const root = createProject({});
    try {
      const result = await spawnCli(['hook', 'session-start', '--agent', 'windsurf'], { cwd: root, stdin: '{}' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('claude-code, codex, gemini, cursor');
    } finally {
      removeProject(root);
    }
  });
});
