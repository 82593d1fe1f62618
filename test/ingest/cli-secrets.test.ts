import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { ingestProject, memoryFiles as memories } from '../helpers/ingest.js';
import { readText, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { SECRET_CASES } from '../redact/corpus.js';

/** `memvault ingest` end to end: no secret of the corpus, in any format, reaches a memory file or a commit. */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeProject(root);
});

const project = (): string => ingestProject(roots);

describe('ingest: secrets', () => {
  /** One transcript per format holding every secret of the corpus: in messages, tool inputs and tool output, frontmatter. */
  function transcripts(): Record<string, string> {
    const lines = SECRET_CASES.map((c) => c.line);
    const at = (i: number): string => new Date(Date.UTC(2026, 1, 15, 9, i)).toISOString();
    const session = 'aa11bb22-cc33-4d44-8e55-ff6677889900';
    const claude = lines.flatMap((text, i) => [
      {
        type: i % 2 ? 'assistant' : 'user',
        sessionId: session,
        timestamp: at(i),
        message: i % 2 ? { id: `msg_${i}`, role: 'assistant', content: [{ type: 'text', text }] } : { role: 'user', content: text },
      },
      {
        type: 'assistant',
        sessionId: session,
        timestamp: at(i),
        message: {
          id: `msg_t${i}`,
          role: 'assistant',
          content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: text.split('\n')[0] } }],
        },
      },
      {
        type: 'user',
        sessionId: session,
        timestamp: at(i),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `ok\n${text}` }] },
      },
    ]);
    const openai = lines.flatMap((text, i) => [
      { role: 'user', content: text },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'run', arguments: JSON.stringify({ command: text }) } }],
      },
      { role: 'tool', tool_call_id: `call_${i}`, content: text },
    ]);
    const mapping: Record<string, unknown> = { root: { id: 'root', message: null, parent: null, children: ['m0'] } };
    lines.forEach((text, i) => {
      const id = `m${i}`;
      const role = i % 3 === 2 ? 'tool' : i % 2 ? 'assistant' : 'user';
      mapping[id] = {
        id,
        parent: i === 0 ? 'root' : `m${i - 1}`,
        children: i + 1 < lines.length ? [`m${i + 1}`] : [],
        message: {
          id,
          author: { role, name: role === 'tool' ? 'python' : null },
          create_time: 1771146000 + i * 60,
          content: role === 'tool' ? { content_type: 'execution_output', text } : { content_type: 'text', parts: [text] },
          recipient: 'all',
          metadata: {},
        },
      };
    });
    const chatgpt = [
      {
        title: 'Rotating the leaked keys',
        create_time: 1771146000,
        mapping,
        current_node: `m${lines.length - 1}`,
        conversation_id: 'conv-secrets',
      },
    ];
    const apiKey = SECRET_CASES.find((c) => c.kind === 'api-key')!.secret;
    const note = `---\ndate: 2026-02-15T10:00:00+01:00\ntitle: Credentials inventory\napi_key: ${apiKey}\n---\n${lines.map((l) => `${l}\n`).join('\n')}`;
    return {
      'transcripts/session.jsonl': `${claude.map((l) => JSON.stringify(l)).join('\n')}\n`,
      'transcripts/chat.json': JSON.stringify({ model: 'gpt-4.1', messages: openai }, null, 2),
      'transcripts/conversations.json': JSON.stringify(chatgpt),
      'transcripts/inventory.md': note,
    };
  }

  /** Every byte under `dir`, git objects decompressed (`git cat-file`), as one string. */
  function everything(root: string): string {
    const parts: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory() && entry.name !== '.git') walk(file);
        else if (entry.isFile() && !file.includes(`${path.sep}transcripts${path.sep}`)) parts.push(readFileSync(file, 'utf8'));
      }
    };
    walk(root);
    if (existsSync(path.join(root, '.git'))) {
      const objects = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      parts.push(objects.stdout);
    }
    return parts.join('\n');
  }

  it('writes none of 20+ kinds of secrets from any format into the vault or a commit', async () => {
    const root = project();
    writeFiles(root, transcripts());
    const git = (...args: string[]) =>
      spawnSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Test',
          GIT_AUTHOR_EMAIL: 't@example.com',
          GIT_COMMITTER_NAME: 'Test',
          GIT_COMMITTER_EMAIL: 't@example.com',
        },
      });
    git('init', '-q', '-b', 'main');
    writeFiles(root, { '.gitignore': '.memvault/\ntranscripts/\n' });
    git('add', '.gitignore', 'memory.config.yaml');
    git('commit', '-q', '-m', 'init');

    const { json } = await runCliJson(
      [
        'ingest',
        'transcripts/session.jsonl',
        'transcripts/chat.json',
        'transcripts/conversations.json',
        'transcripts/inventory.md',
        '--date',
        '2026-02-15',
        '--json',
      ],
      { cwd: root },
    );
    expect(json.files.map((f: { status: string }) => f.status)).toEqual(['imported', 'imported', 'imported', 'imported']);
    for (const file of json.files) expect(new Set(file.redactions.map((r: { kind: string }) => r.kind)).size).toBeGreaterThanOrEqual(20);
    // The build commits the memories (and its summaries) to git (in-process: checked by the repository).
    const report = await build({ root, now: new Date('2026-02-20T06:00:00Z') });
    expect(report.commit?.status).toBe('committed');

    const all = everything(root);
    expect(all).toContain('[REDACTED:');
    for (const c of SECRET_CASES) expect(all.includes(c.secret), `${c.kind} secret found in a written file or commit`).toBe(false);
  });

  it('writes them as they are with --no-redact, after a warning', async () => {
    const root = project();
    writeFiles(root, { 'transcripts/inventory.md': transcripts()['transcripts/inventory.md']! });
    const result = await runCli(['ingest', 'transcripts/inventory.md', '--no-redact'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: --no-redact: secrets in these transcripts are written as they are/);
    const written = readText(root, memories(root)[0]!);
    expect(written).toContain(SECRET_CASES[0]!.secret);
  });
});
