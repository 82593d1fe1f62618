import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCitationStep } from '../../src/citations/build-step.js';
import type { CitedEntry } from '../../src/citations/store.js';
import { loadValidConfig } from '../../src/config/load.js';
import { MAX_PRE_TOOL_CHARS, preTool, preToolPayload, preToolText, SEEN_FOR_SECONDS } from '../../src/hooks/pre-tool.js';
import { vaultLoadOptions } from '../../src/pipeline/workers/build-pool.js';
import { openStateStore } from '../../src/store/database.js';
import { loadVault } from '../../src/load/load.js';
import { createProject, removeProject } from '../helpers/project.js';
import { spawnCli } from '../helpers/spawn-cli.js';
import { citedProject, PATHS } from './repo.js';

/** A PreToolUse payload as Claude Code sends it (https://code.claude.com/docs/en/hooks). */
const payload = (root: string, tool: string, file: string, session = 'session-1') =>
  JSON.stringify({
    session_id: session,
    transcript_path: path.join(root, '.claude/transcript.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input:
      tool === 'Edit' ? { file_path: path.join(root, file), old_string: 'a', new_string: 'b' } : { file_path: path.join(root, file) },
    tool_use_id: 'toolu_01',
  });

const contextOf = (answer: string | undefined): string => JSON.parse(answer!).hookSpecificOutput.additionalContext;

describe('memvault hook pre-tool', () => {
  let root: string;
  beforeAll(async () => {
    root = citedProject().root;
    const config = await loadValidConfig(root);
    const loaded = await loadVault(vaultLoadOptions(root, config));
    await runCitationStep({
      root,
      vaultDir: path.join(root, 'vault'),
      streams: loaded.state.streams.values(),
      now: new Date('2026-01-06T00:00:00Z'),
    });
  });
  afterAll(() => removeProject(root));

  it('gives the memories citing the file, with their state, once per file per session', () => {
    const answer = preTool(root, preToolPayload(payload(root, 'Edit', 'src/auth/session.ts'))!);
    expect(JSON.parse(answer!).hookSpecificOutput.hookEventName).toBe('PreToolUse');
    const text = contextOf(answer);
    expect(text).toContain('Session expiry');
    expect(text).toContain('[changed: 1 commit since]');
    expect(text).toContain(`vault/${PATHS.session}`);
    expect(text.length).toBeLessThanOrEqual(MAX_PRE_TOOL_CHARS);
    // The same file again in the same session: already said. Another session: said again.
    expect(preTool(root, preToolPayload(payload(root, 'Read', 'src/auth/session.ts'))!)).toBeUndefined();
    expect(preTool(root, preToolPayload(payload(root, 'Read', 'src/auth/session.ts', 'session-2'))!)).toBeDefined();
  });

  it('forgets what it said after a day, and keeps no mark older than a day', () => {
    const read = preToolPayload(payload(root, 'Read', 'src/auth/session.ts', 'long-session'))!;
    const start = Date.now();
    const hour = 60 * 60 * 1000;
    expect(preTool(root, read, start)).toBeDefined();
    expect(preTool(root, read, start + 23 * hour)).toBeUndefined();
    expect(preTool(root, read, start + 25 * hour)).toBeDefined();
    // A day after the last mark, one more answer: every older mark (this test's and the other tests' sessions) is gone.
    const later = start + 50 * hour;
    expect(preTool(root, preToolPayload(payload(root, 'Read', 'src/stable.ts', 'next-session'))!, later)).toBeDefined();
    const { db } = openStateStore(path.join(root, '.memvault'));
    expect(db.prepare('SELECT session, path FROM pre_tool_seen').all()).toEqual([{ session: 'next-session', path: 'src/stable.ts' }]);
    expect(SEEN_FOR_SECONDS).toBe(24 * 60 * 60);
  });

  it('finds a renamed file under its new name, and memories citing a folder above the file', () => {
    expect(contextOf(preTool(root, preToolPayload(payload(root, 'Read', 'src/net/backoff.ts'))!))).toContain(
      'Legacy backoff `BACKOFF` [moved: renamed to src/net/backoff.ts',
    );
  });

  it('says nothing for a file no memory cites, a tool that names no file, or input that is not a payload', () => {
    expect(preTool(root, preToolPayload(payload(root, 'Read', 'src/uncited.ts'))!)).toBeUndefined();
    expect(preToolPayload(JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' } }))).toBeUndefined();
    expect(preToolPayload('{"tool_name": "Read"')).toBeUndefined();
    expect(preToolPayload('[1, 2]')).toBeUndefined();
  });

  it('says nothing in a project never built, and does not create its state store', () => {
    const fresh = createProject({});
    try {
      expect(preTool(fresh, preToolPayload(payload(fresh, 'Read', 'src/stable.ts'))!)).toBeUndefined();
      expect(existsSync(path.join(fresh, '.memvault', 'state.sqlite'))).toBe(false);
    } finally {
      removeProject(fresh);
    }
  });

  it('keeps within 1,500 characters however many memories cite the file', () => {
    const entries: CitedEntry[] = Array.from({ length: 200 }, (_, i) => ({
      m: `main/memories/2026/01/m-${i}.md`,
      day: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
      kind: 'decision',
      title: `A decision about the retry logic, number ${i}, with a long title that goes on`,
      state: i % 2 ? 'verified' : 'gone',
      ...(i % 2 ? {} : { detail: 'deleted in 3f2a1c0 on 2026-10-02' }),
    }));
    const text = preToolText('src/net/retry.ts', new Map([['src/net/', entries]]), 'vault')!;
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).toMatch(/… \d+ more: memvault verify --all$/);
    expect(text).toContain('(cites `src/net/`)');
  });

  it('through the CLI: answers a realistic payload, prints nothing and exits 0 on malformed input', async () => {
    const cited = await spawnCli(['hook', 'pre-tool'], { cwd: root, stdin: payload(root, 'Write', 'src/stable.ts', 'cli-session') });
    expect(cited.code).toBe(0);
    expect(contextOf(cited.stdout)).toContain('Stable timeouts');
    // The mark written by a process that ended without closing the store (its commit in the WAL) holds for the next.
    const again = await spawnCli(['hook', 'pre-tool'], { cwd: root, stdin: payload(root, 'Read', 'src/stable.ts', 'cli-session') });
    expect([again.code, again.stdout, again.stderr]).toEqual([0, '', '']);
    for (const input of ['{"tool_name": "Read", "tool_input": {', '\u0000\u0001binary', '']) {
      const bad = await spawnCli(['hook', 'pre-tool'], { cwd: root, stdin: input });
      expect([bad.code, bad.stdout, bad.stderr]).toEqual([0, '', '']);
    }
  });
});
