import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INGEST_CONFIG as CONFIG, ingestProject, memoryFiles as memories } from '../helpers/ingest.js';
import { readText, removeProject, runCli, runCliJson, snapshotTree, writeFiles } from '../helpers/project.js';

/**
 * `memvault ingest` end to end when the input changes or is wrong: a session
 * that grew updates its last day in place (a hand edit is kept), a later
 * ChatGPT export is recognised, and bad files are reported with their place
 * while the good ones import.
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeProject(root);
});

const project = (files: Record<string, string> = {}, config = CONFIG): string => ingestProject(roots, files, config);

describe('ingest: sessions that change', () => {
  it('updates the last day of a session that grew, in place; keeps a memory edited by hand', async () => {
    const root = project({ 'session.jsonl': 'ingest-claude-code/session.jsonl' });
    await runCliJson(['ingest', 'transcripts/session.jsonl', '--json'], { cwd: root });
    const [day1, day2] = memories(root);
    const day1Text = readText(root, day1!);
    const log = path.join(root, 'transcripts', 'session.jsonl');
    const line = (record: object): string =>
      `${JSON.stringify({ sessionId: '4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c', cwd: '/home/ana/src/ledgerly', ...record })}\n`;
    appendFileSync(
      log,
      line({ type: 'user', message: { role: 'user', content: 'Open a PR for the backport too.' }, timestamp: '2026-02-13T23:20:00.000Z' }),
    );
    appendFileSync(
      log,
      line({
        type: 'assistant',
        message: { id: 'msg_02', role: 'assistant', content: [{ type: 'text', text: 'Opened PR #483 against release/1.4.' }] },
        timestamp: '2026-02-13T23:21:30.000Z',
      }),
    );

    const { json } = await runCliJson(['ingest', 'transcripts/session.jsonl', '--json'], { cwd: root });
    expect(json.files[0].memories).toEqual([
      { path: day1!.slice('vault/'.length), status: 'unchanged' },
      { path: day2!.slice('vault/'.length), status: 'updated' },
    ]);
    expect(memories(root)).toEqual([day1, day2]);
    expect(readText(root, day1!)).toBe(day1Text);
    expect(readText(root, day2!)).toMatch(/## Outcome\n\n[\s\S]*Opened PR #483 against release\/1\.4\./);
    // The full transcript beside it grew too; a re-ingest of the same file changes nothing.
    expect(readText(root, 'vault/main/transcripts/4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c.md')).toContain(
      '**00:21 assistant:** Opened PR #483 against release/1.4.',
    );

    // A person edits the memory; the session grows again: the edit is kept, and said so.
    writeFileSync(path.join(root, day2!), `${readText(root, day2!)}\nNote: backport approved by Farah.\n`);
    const edited = readText(root, day2!);
    appendFileSync(log, line({ type: 'user', message: { role: 'user', content: 'Merge it.' }, timestamp: '2026-02-13T23:30:00.000Z' }));
    const result = await runCli(['ingest', 'transcripts/session.jsonl'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 unchanged, 1 kept (edited by hand)');
    expect(result.stderr).toContain(
      `transcripts/session.jsonl:1:1 warning ${day2!.slice('vault/'.length)} holds this session (2026-02-14) and was edited by hand`,
    );
    expect(readText(root, day2!)).toBe(edited);
  });

  it('keeps the full transcript out of git when ingest.transcripts is ignored; a second ingest changes nothing', async () => {
    const root = project({ 'session.jsonl': 'ingest-claude-code/session.jsonl' }, `${CONFIG}ingest: { transcripts: ignored }\n`);
    const first = await runCli(['ingest', 'transcripts/session.jsonl'], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    const folder = 'vault/main/transcripts';
    expect(readText(root, `${folder}/.gitignore`)).toMatch(/^\*$/m);
    expect(readText(root, `${folder}/4f6c2a1e-8b0d-4c3e-9a57-1d2e3f4a5b6c.md`)).toContain('**22:40 user:** The invoice totals test fails');
    const before = snapshotTree(path.join(root, 'vault'));
    const again = await runCli(['ingest', 'transcripts/session.jsonl'], { cwd: root });
    expect(again.code).toBe(0);
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(before);
  });

  it('recognises the conversations of a later ChatGPT export', async () => {
    const root = project({ 'conversations.json': 'ingest-chatgpt/conversations.json' });
    await runCliJson(['ingest', 'transcripts/conversations.json', '--json'], { cwd: root });
    const before = snapshotTree(path.join(root, 'vault'));
    // The next export: the same conversations (another order, new bytes) plus a new one.
    const conversations = JSON.parse(readText(root, 'transcripts/conversations.json')) as Record<string, unknown>[];
    const extra = JSON.parse(JSON.stringify(conversations[1])) as Record<string, unknown>;
    Object.assign(extra, {
      id: 'new-conversation',
      conversation_id: 'new-conversation',
      title: 'Quarterly close checklist',
      create_time: 1771400000,
    });
    writeFiles(root, { 'transcripts/export-2.json': JSON.stringify([conversations[1], conversations[0], extra], null, 1) });
    const { json } = await runCliJson(['ingest', 'transcripts/export-2.json', '--json'], { cwd: root });
    expect(json.files[0].memories.map((m: { status: string }) => m.status)).toEqual(['unchanged', 'unchanged', 'new']);
    const after = snapshotTree(path.join(root, 'vault'));
    for (const [file, state] of before) expect(after.get(file)).toEqual(state);
    expect(after.size).toBe(before.size + 1);
  });
});

describe('ingest: bad input', () => {
  it('reports each bad file with its place and what was expected, imports the good ones, exits 1', async () => {
    const root = project({
      'broken-line.jsonl': 'ingest-malformed/broken-line.jsonl',
      'bad-role.json': 'ingest-malformed/bad-role.json',
      'unknown.json': 'ingest-malformed/unknown.json',
      'still-writing.jsonl': 'ingest-malformed/still-writing.jsonl',
      'session.jsonl': 'ingest-claude-code/session.jsonl',
    });
    const result = await runCli(
      [
        'ingest',
        'transcripts/broken-line.jsonl',
        'transcripts/session.jsonl',
        'transcripts/bad-role.json',
        'transcripts/unknown.json',
        'transcripts/still-writing.jsonl',
        'transcripts/missing.jsonl',
      ],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^transcripts\/broken-line\.jsonl:3:\d+ error not valid JSON: .* \[ingest\/claude-code\]$/),
      'transcripts/bad-role.json:4:5 error message 3: expected `role` to be one of system, developer, user, assistant, tool, got `"bot"` ' +
        '(hint: is this an OpenAI chat-completions message list?) [ingest/openai]',
      expect.stringMatching(/^transcripts\/unknown\.json:1:1 error unknown JSON transcript: expected OpenAI chat messages/),
      expect.stringMatching(/^transcripts\/still-writing\.jsonl:3:\d+ warning incomplete last line ignored/),
      expect.stringMatching(/^transcripts\/missing\.jsonl:1:1 error file not found/),
      'memvault: 4 of 6 file(s) could not be ingested (listed above)',
      '  hint: fix them and run ingest again; the other files were imported, and importing them again changes nothing [ingest/failed]',
    ]);
    // The good files are in: the two-day session and the log that was still being written.
    expect(memories(root)).toHaveLength(3);
    expect(result.stdout).toContain('transcripts/session.jsonl (claude-code): 2 memories: 2 new');
  });

  it('rejects an unknown --format and an unusable --date with a hint', async () => {
    const root = project({ 'chat.json': 'ingest-openai/chat.json' });
    const format = await runCli(['ingest', 'transcripts/chat.json', '--format', 'slack'], { cwd: root });
    expect(format.code).toBe(1);
    expect(format.stderr).toContain('unknown format `slack`');
    const date = await runCli(['ingest', 'transcripts/chat.json', '--date', 'last tuesday'], { cwd: root });
    expect(date.code).toBe(1);
    expect(date.stderr).toContain('--date `last tuesday` is not an ISO 8601 date or datetime');
    expect(memories(root)).toEqual([]);
  });

  it('refuses a --stream memory.config.yaml does not declare, listing the declared ones; --create-stream adds it', async () => {
    const root = project({ 'chat.json': 'ingest-openai/chat.json' });
    const refused = await runCli(['ingest', 'transcripts/chat.json', '--stream', 'notes'], { cwd: root });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stream `notes` is not declared in memory.config.yaml (streams: main)');
    expect(memories(root)).toEqual([]);
    const created = await runCliJson(['ingest', 'transcripts/chat.json', '--stream', 'notes', '--create-stream', '--json'], { cwd: root });
    expect(created.result.stderr).toContain('added stream `notes` to memory.config.yaml');
    expect(readText(root, 'memory.config.yaml')).toContain('notes:');
    expect(memories(root).length).toBeGreaterThan(0);
    expect(memories(root).every((file) => file.startsWith('vault/notes/memories/'))).toBe(true);
  });
});
