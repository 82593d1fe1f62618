import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { FIXTURES, ingestProject, memoryFiles as memories } from '../helpers/ingest.js';
import { type CliResult, listFiles, readText, removeProject, runCli, snapshotTree, writeFiles } from '../helpers/project.js';

/**
 * `memvault ingest` end to end, on the sample transcripts of each format in
 * test/fixtures/ingest-*: the memories written are compared with the case's
 * `expected/` folder (written on the first run, refreshed with UPDATE=1),
 * importing again is a no-op, and the build reads what was written. All
 * formats go into one project, one after the other, so one build reads them
 * all. Sessions that change and bad files: cli-changes.test.ts; secrets:
 * cli-secrets.test.ts.
 */

const UPDATE = process.env.UPDATE === '1';
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) removeProject(root);
});

const project = (files: Record<string, string> = {}): string => ingestProject(roots, files);

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

const argsOf = (c: Case): string[] => ['ingest', ...c.files.map((file) => `transcripts/${file}`), ...c.args];

/** The one project every format is ingested into, and per case what its first ingest printed and wrote. */
let root: string;
const firsts = new Map<string, { result: CliResult; written: string[] }>();

beforeAll(async () => {
  root = project(Object.fromEntries(CASES.flatMap((c) => c.files.map((file) => [file, `${c.fixture}/${file}`]))));
  for (const c of CASES) {
    const before = new Set(memories(root));
    const result = await runCli(argsOf(c), { cwd: root });
    firsts.set(c.name, { result, written: memories(root).filter((file) => !before.has(file)) });
  }
});

describe.each(CASES)('ingest: $name', (c) => {
  it('writes the expected memories', () => {
    const { result, written } = firsts.get(c.name)!;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
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

  it('does nothing when the same file is ingested again', async () => {
    const before = snapshotTree(path.join(root, 'vault'));
    const again = await runCli(argsOf(c), { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already ingested, nothing to do');
    expect(snapshotTree(path.join(root, 'vault'))).toEqual(before);
  });
});

describe('ingest: every format', () => {
  it('writes memories the build reads without a problem', async () => {
    // Checked by its report: in-process (the same pipeline, no CLI start).
    const report = await build({ root, now: new Date('2026-02-20T06:00:00Z'), commit: false });
    expect(report.diagnostics).toEqual([]);
    expect(report.streams[0]!.memories).toBe(CASES.reduce((sum, c) => sum + c.count, 0));
    expect(memories(root)).toHaveLength(CASES.reduce((sum, c) => sum + c.count, 0));
  });
});

describe('ingest --primer', () => {
  it('writes one session primer from the summarizer instead of the transcript, dated at the last message', async () => {
    const root = project({ 'session.jsonl': 'ingest-claude-code/session.jsonl' });
    const result = await runCli(['ingest', 'transcripts/session.jsonl', '--primer'], { cwd: root });
    expect(result.code).toBe(0);
    const written = memories(root);
    const text = readText(root, written[0]!);
    // The name ends with six hex digits of the file's SHA-256 (a name of its own in every clone, writer.ts).
    const id = createHash('sha256').update(text).digest('hex').slice(0, 6);
    expect(written).toEqual([`vault/main/memories/2026/02/2026-02-14-session-primer-fix-flaky-invoice-totals-test-${id}.md`]);
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
