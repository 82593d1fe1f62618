import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';

const SESSION = fileURLToPath(new URL('../fixtures/claude-code/v2-session.jsonl', import.meta.url));

describe('memvault zoom --transcripts', () => {
  let root: string;
  beforeAll(async () => {
    root = createProject({});
    await runCliJson(['ingest', SESSION, '--json'], { cwd: root });
  });
  afterAll(() => removeProject(root));

  it('shows a distilled session with its full transcript, in text and JSON; without the flag only the memory', async () => {
    const { json } = await runCliJson(['zoom', '2026-03-01..2026-03-31', '--transcripts', '--json'], { cwd: root });
    const session = json.memories.find((memory: { transcript?: unknown }) => memory.transcript);
    expect(session).toBeDefined();
    expect(session.transcript.path).toMatch(/^main\/transcripts\/[\w.-]+\.md$/);
    expect(session.transcript.text).toBe(readText(root, path.posix.join('vault', session.transcript.path)).trim());
    // The transcript holds the person's words verbatim, which the distilled memory only quotes in part.
    expect(session.transcript.text).toContain('Stripe retries webhooks');

    const text = await runCli(['zoom', '2026-03-01..2026-03-31', '--transcripts'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`#### Full transcript (\`${session.transcript.path}\`)`);
    const plain = await runCliJson(['zoom', '2026-03-01..2026-03-31', '--json'], { cwd: root });
    expect(plain.json.memories.some((memory: { transcript?: unknown }) => memory.transcript)).toBe(false);
  });
});
