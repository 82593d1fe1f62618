import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createProject, listFiles, readText, removeProject, runCli, runCliJson, snapshotTree, writeFiles } from '../helpers/project.js';
import { SECRET_CASES } from '../redact/corpus.js';

/**
 * `memvault ingest` end to end, on the sample transcripts of each format in
 * test/fixtures/ingest-*: the memories written are compared with the case's
 * `expected/` folder (written on the first run, refreshed with UPDATE=1),
 * importing again is a no-op, a session that grew updates its last day in
 * place, bad files are reported with their place while good ones import, and
 * no secret of the corpus reaches a file or a commit.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const UPDATE = process.env.UPDATE === '1';
const CONFIG = 'timezone: Europe/Berlin\n';
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) removeProject(root);
});

/** A project with the given fixture files copied to `transcripts/`. */
function project(files: Record<string, string> = {}, config = CONFIG): string {
  const root = createProject({}, config);
  roots.push(root);
  mkdirSync(path.join(root, 'transcripts'), { recursive: true });
  for (const [name, fixture] of Object.entries(files)) copyFileSync(path.join(FIXTURES, fixture), path.join(root, 'transcripts', name));
  return root;
}

const memories = (root: string): string[] => listFiles(root, 'vault').filter((file) => file.includes('/memories/'));

interface Case {
  name: string;
  fixture: string;
  files: string[];
  args: string[];
  expected: string;
  count: number;
}

const CASES: Case[] = [
  {
    name: 'Claude Code session spanning midnight',
    fixture: 'ingest-claude-code',
    files: ['session.jsonl'],
    args: [],
    expected: 'expected',
    count: 2,
  },
  {
    name: 'OpenAI messages',
    fixture: 'ingest-openai',
    files: ['chat.json'],
    args: ['--date', '2026-02-14T10:00:00+01:00'],
    expected: 'expected',
    count: 1,
  },
  { name: 'ChatGPT export', fixture: 'ingest-chatgpt', files: ['conversations.json'], args: [], expected: 'expected', count: 2 },
  {
    name: 'markdown and text',
    fixture: 'ingest-markdown',
    files: ['2026-02-10-standup-notes.md', '2026-02-11-pairing-call.txt'],
    args: ['--tag', 'notes'],
    expected: 'expected',
    count: 2,
  },
];

describe.each(CASES)('ingest: $name', (c) => {
  const root = project(Object.fromEntries(c.files.map((file) => [file, `${c.fixture}/${file}`])));
  const args = ['ingest', ...c.files.map((file) => `transcripts/${file}`), ...c.args];
  const first = runCli(args, { cwd: root });

  it('writes the expected memories', async () => {
    const result = await first;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const written = memories(root);
    expect(written).toHaveLength(c.count);
    for (const file of written) expect(result.stdout).toContain(`+ ${file}`);
    const expectedDir = path.join(FIXTURES, c.fixture, c.expected);
    if (UPDATE || !existsSync(expectedDir)) {
      for (const file of written) writeFiles(expectedDir, { [file.slice('vault/'.length)]: readText(root, file) });
    }
    const expectedFiles = listFiles(expectedDir).map((file) => `vault/${file}`);
    expect(written).toEqual(expectedFiles);
    for (const file of written)
      expect(readText(root, file), file).toBe(readFileSync(path.join(expectedDir, file.slice('vault/'.length)), 'utf8'));
  });

  it('writes memories the build reads without a problem', async () => {
    await first;
    const { json } = await runCliJson(['build', '--now', '2026-02-20T06:00:00Z', '--no-commit', '--json'], { cwd: root });
    expect(json.diagnostics).toEqual([]);
    expect(json.streams[0].memories).toBe(c.count);
  });

  it('does nothing when the same file is ingested again', async () => {
    await first;
    const before = snapshotTree(path.join(root, 'vault'));
    const again = await runCli(args, { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already ingested, nothing to do');
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(before);
  });
});

describe('ingest --primer', () => {
  it('writes one session primer from the summarizer instead of the transcript, dated at the last message', async () => {
    const root = project({ 'session.jsonl': 'ingest-claude-code/session.jsonl' });
    const result = await runCli(['ingest', 'transcripts/session.jsonl', '--primer'], { cwd: root });
    expect(result.code).toBe(0);
    const written = memories(root);
    expect(written).toEqual(['vault/main/memories/2026/02/2026-02-14-session-primer-fix-flaky-invoice-totals-test.md']);
    const text = readText(root, written[0]!);
    expect(text).toMatch(
      new RegExp(
        /^---\ndate: 2026-02-14T00:12:15\+01:00\ntitle: "Session primer: Fix flaky invoice totals test"\n/.source +
          /kind: session-primer\ntags: \[ claude-code, primer \]\nsource: \{ [^\n]*mode: primer/.source,
      ),
    );
    expect(text).toContain(
      'Session primer for Claude Code session "Fix flaky invoice totals test" ' +
        '(2026-02-13 22:40 to 2026-02-14 00:12 Europe/Berlin, 5 messages): the full transcript was not stored.',
    );
    // The embedded summarizer keeps decisions; the tool chatter of the transcript is condensed.
    expect(text).toContain("Decision: sum in integer cents and round each line with banker's rounding before adding.");
    expect(text).toMatch(/^## /m);
    expect(text.length).toBeLessThan(readText(root, 'transcripts/session.jsonl').length / 3);
    // Primer and transcript are different memories of the same session: both can be imported.
    const full = await runCli(['ingest', 'transcripts/session.jsonl'], { cwd: root });
    expect(full.stdout).toContain('2 memories: 2 new');
    const again = await runCli(['ingest', 'transcripts/session.jsonl', '--primer'], { cwd: root });
    expect(again.stdout).toContain('already ingested, nothing to do');
  });
});

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
    // The build commits the memories (and its summaries) to git.
    const build = await runCliJson(['build', '--now', '2026-02-20T06:00:00Z', '--json'], { cwd: root });
    expect(build.json.commit.status).toBe('committed');

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
