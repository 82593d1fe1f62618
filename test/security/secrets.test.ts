import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { git, initRepo } from '../git/helpers.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { createProject, memory, readText, removeProject, runCli, writeFiles, type CliResult } from '../helpers/project.js';
import { ORDINARY_TEXT, SECRET_CASES, SECRET_SEED } from '../redact/corpus.js';
import { stateRow, stateRowCount } from '../helpers/state-store.js';

/**
 * No secret travels. The secrets corpus (59 kinds,
 * random per run; MEMVAULT_SECRET_SEED replays one) goes through `ingest`,
 * `add`, and a hand-written memory plus a committing `build` that calls an
 * LLM (the fake server records every request). No secret may reach a file
 * memvault writes, a git object or a request; the hand-written memory is
 * reported per secret and held back, the rest is summarized and committed.
 * Then `memvault redact` and a build bring it back with markers; the inline
 * marker and the config allowlist each let a memory through.
 */

const NOW = '2026-02-20T06:00:00Z';
const HELD = 'vault/main/memories/2026/02/2026-02-13-credentials.md';
const CLEAN = 'vault/main/memories/2026/02/2026-02-13-release.md';
const ORDINARY = 'vault/main/memories/2026/02/2026-02-14-ordinary.md';
const MARKED = 'vault/main/memories/2026/02/2026-02-15-marked.md';
const LISTED = 'vault/main/memories/2026/02/2026-02-15-listed.md';
const QUIET = 'vault/main/memories/2026/02/2026-02-18-quiet.md';
const KEY = 'sk-e2e-7Hq2Lw9Zr4Xk1Vb8Nc3Md6Fp';

// Secrets a person allowed (a test fixture key, a documented example): they may travel, the corpus may not.
const markedSecret = `ghp_${'Q7'.repeat(18)}`;
const listedSecret = `xoxb-${'4'.repeat(12)}-${'5'.repeat(13)}-${'Zq9'.repeat(8)}`;
// A reply holding a secret the model made up: it must be redacted before the summary is written.
const replySecret = `sk-ant-api03-${'Rb7'.repeat(30)}AA`;

// A day too long for the daily budget, so the model is asked (a short one is copied as it is), with nothing it must keep.
const QUIET_LINES = [
  'alpha',
  'birch',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'grove',
  'heath',
  'inlet',
  'juniper',
  'kestrel',
  'larch',
].flatMap((w) => [
  `the backup of the ${w} shelf ran quietly and finished before lunch without any warning at all.`,
  `nobody touched the ${w} folder during the afternoon, and the logs stayed calm and short.`,
]);
const HEADER = 'Deploy session notes, credentials pasted by hand.';
const bodyLines = [HEADER, ...SECRET_CASES.map((c) => c.line)];
/** 1-based line in the held file where each case's line starts (frontmatter is 3 lines, paragraphs are one blank line apart). */
const lineOf = (index: number): number =>
  4 + 2 * (index + 1) + SECRET_CASES.slice(0, index).reduce((n, c) => n + c.line.split('\n').length - 1, 0);

function config(url: string): string {
  return `timezone: UTC
calendar:
  daily: { target_tokens: 300, max_bytes: 2400 }
  retention: { memories_days: 3650, daily_days: 3650, weekly_weeks: 520 }
git:
  commit: true
  author: { name: Vault Bot, email: vault-bot@example.org }
secrets:
  allow: ["${listedSecret}"]
llm:
  profile: local
  profiles:
    local: { provider: openai, base_url: "${url}", model: fake-model, api_key_env: FAKE_LLM_KEY, mode: chat }
  retries: 1
  fault_retries: 1
  backoff_ms: 5
  timeout_s: 10
  concurrency: 2
`;
}

/** Every file of the project memvault or the test wrote, but the held memory, `.git` and the local `.memvault` state. */
function projectTexts(root: string, skip: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (child === '.git' || child === '.memvault' || skip.includes(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.set(child, readFileSync(path.join(root, child), 'utf8'));
    }
  };
  walk('');
  return out;
}

function leaksIn(text: string): string[] {
  return SECRET_CASES.filter((c) => text.includes(c.secret)).map((c) => c.name);
}

describe(`secrets never travel (MEMVAULT_SECRET_SEED=${SECRET_SEED})`, () => {
  let server: FakeOpenAI;
  let root: string;
  let first: CliResult;
  let added: CliResult;
  let addedOrdinary: CliResult;
  let ingested: CliResult;
  const env = { FAKE_LLM_KEY: KEY };

  beforeAll(async () => {
    server = await startFakeOpenAI();
    root = createProject(
      {
        [HELD]: memory({ date: '2026-02-13', body: bodyLines.join('\n\n') }),
        [CLEAN]: memory({
          date: '2026-02-13T10:00:00Z',
          body: 'Released ledgerly 1.4.2 with the rounding fix.\n\nThe invoice export is twice as fast.',
        }),
        [ORDINARY]: memory({
          date: '2026-02-14',
          body: ['Ordinary notes that only look a little like secrets.', ...ORDINARY_TEXT].join('\n\n'),
        }),
        [MARKED]: memory({ date: '2026-02-15', body: `The test fixture token ${markedSecret} is public. <!-- memvault:allow-secret -->` }),
        [LISTED]: memory({
          date: '2026-02-15T12:00:00Z',
          body: `The documented example Slack token ${listedSecret} is allowed in the config.`,
        }),
        [QUIET]: memory({ date: '2026-02-18', body: ['Quiet day: only the backup job ran.', ...QUIET_LINES].join('\n\n') }),
        'transcript.md': `# Deploy chat\n\n${SECRET_CASES.map((c) => c.line).join('\n\n')}\n`,
      },
      config(server.url),
    );
    initRepo(root);
    server.inject({
      fault: { kind: 'reply', text: `- Quiet day: only the backup job ran, with ${replySecret} as its key.` },
      match: 'Quiet day',
      times: 3,
    });
    ingested = await runCli(['ingest', 'transcript.md', '--date', '2026-02-16T09:00:00Z'], { cwd: root, env });
    added = await runCli(
      ['add', SECRET_CASES.map((c) => c.line).join('\n\n'), '--date', '2026-02-17T09:00:00Z', '--title', 'pasted credentials'],
      { cwd: root, env },
    );
    addedOrdinary = await runCli(['add', ORDINARY_TEXT.join('\n\n'), '--date', '2026-02-17T10:00:00Z', '--title', 'ordinary text'], {
      cwd: root,
      env,
    });
    first = await runCli(['build', '--now', NOW], { cwd: root, env });
  }, 120_000);

  afterAll(async () => {
    removeProject(root);
    await server?.close();
  });

  it('ingest and add write no secret, and say what they redacted', () => {
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(added.code, added.stderr).toBe(0);
    expect(addedOrdinary.code, addedOrdinary.stderr).toBe(0);
    for (const out of [ingested, added]) expect(leaksIn(out.stdout + out.stderr)).toEqual([]);
    expect(added.stderr).toMatch(/\d+ secrets redacted \(/);
    const written = [...projectTexts(root, [HELD, 'transcript.md'])].filter(([file]) => /memories\/2026\/02\/2026-02-1[67]-/.test(file));
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const [file, text] of written) expect(leaksIn(text), file).toEqual([]);
  });

  it('add leaves ordinary text exactly as it was', () => {
    const file = [...projectTexts(root, [])].find(([name]) => name.includes('2026-02-17-ordinary-text'));
    expect(file).toBeDefined();
    for (const line of ORDINARY_TEXT) expect(file![1]).toContain(line);
  });

  it('the build reports each secret of the hand-written memory as path:line:col with its kind, and holds the memory back', () => {
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stderr.split('\n').filter((l) => l.startsWith(`${HELD.slice('vault/'.length)}:`));
    SECRET_CASES.forEach((c, i) => {
      const match = lines.find((l) => l.startsWith(`${HELD.slice('vault/'.length)}:${lineOf(i)}:`) && l.endsWith(`[secret/${c.kind}]`));
      expect(match, `${c.name} on line ${lineOf(i)}`).toBeDefined();
      expect(match).toMatch(/^\S+:\d+:\d+ error secret in a memory \([\w-]+\): .*\(hint: redact it \(`memvault redact /);
    });
    expect(leaksIn(first.stdout + first.stderr)).toEqual([]);
  });

  it('nothing else is reported: ordinary text, redacted memories and allowed secrets pass', () => {
    const reported = new Set(
      first.stderr
        .split('\n')
        .filter((l) => /^\S+:\d+:\d+ error /.test(l))
        .map((l) => l.split(':')[0]),
    );
    expect([...reported]).toEqual([HELD.slice('vault/'.length)]);
  });

  it('no secret is in any file written, any git object, or any request to the LLM', () => {
    for (const [file, text] of projectTexts(root, [HELD, 'transcript.md'])) expect(leaksIn(text), file).toEqual([]);
    const history = git(root, 'log', '-p', '--all', '--format=%H %s%n%b');
    expect(history).toContain('daily');
    expect(leaksIn(history)).toEqual([]);
    expect(server.calls().length).toBeGreaterThan(0);
    for (const call of server.requests) expect(leaksIn(JSON.stringify(call.body))).toEqual([]);
  });

  it('the rest of the vault is summarized and committed, the held memory is not', () => {
    const daily = readText(root, 'vault/main/daily/2026-02-13.md');
    expect(daily).toContain('Released ledgerly 1.4.2');
    expect(daily).not.toContain(HEADER);
    expect(readText(root, 'vault/main/daily/2026-02-14.md')).toContain('Ordinary notes');
    const tracked = git(root, 'ls-files').split('\n');
    expect(tracked).toContain(CLEAN);
    expect(tracked).toContain('vault/main/daily/2026-02-13.md');
    expect(tracked).not.toContain(HELD);
    const status = git(root, 'status', '--porcelain', '--untracked-files=all');
    expect(status).toContain(`?? ${HELD}`);
  });

  it('a secret in an LLM reply is redacted before the summary is written', () => {
    const daily = readText(root, 'vault/main/daily/2026-02-18.md');
    expect(daily).not.toContain(replySecret);
    expect(daily).toContain('[REDACTED:anthropic]');
  });

  it('the inline marker and the config allowlist each let a memory through', () => {
    const daily = readText(root, 'vault/main/daily/2026-02-15.md');
    expect(daily).toContain(markedSecret);
    expect(daily).toContain(listedSecret);
  });

  it('status counts the memory held back for secrets', async () => {
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.stdout).toContain('held back for secrets: 1 memory');
    expect(leaksIn(status.stdout + status.stderr)).toEqual([]);
  });

  it('memvault redact rewrites the memory with markers; the next build summarizes and commits it', async () => {
    const dry = await runCli(['redact', HELD, '--dry-run'], { cwd: root, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(readText(root, HELD)).toContain(SECRET_CASES[0]!.secret);
    const redacted = await runCli(['redact', 'vault'], { cwd: root, env });
    expect(redacted.code, redacted.stderr).toBe(0);
    expect(redacted.stdout).toBe(dry.stdout);
    SECRET_CASES.forEach((c, i) => expect(redacted.stdout).toMatch(new RegExp(`^${HELD}:${lineOf(i)}:\\d+ ${c.kind}$`, 'm')));
    expect(leaksIn(redacted.stdout + redacted.stderr)).toEqual([]);
    const text = readText(root, HELD);
    expect(leaksIn(text)).toEqual([]);
    expect(text).toContain('[REDACTED:github]');
    // The allowed memories were left alone.
    expect(readText(root, MARKED)).toContain(markedSecret);
    expect(readText(root, LISTED)).toContain(listedSecret);

    const again = await runCli(['build', '--now', NOW], { cwd: root, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('secret/');
    const daily = readText(root, 'vault/main/daily/2026-02-13.md');
    expect(daily).toContain(HEADER);
    expect(git(root, 'ls-files').split('\n')).toContain(HELD);
    expect(leaksIn(git(root, 'log', '-p', '--all'))).toEqual([]);
    for (const call of server.requests) expect(leaksIn(JSON.stringify(call.body))).toEqual([]);
    const clean = await runCli(['redact', 'vault', '--json'], { cwd: root, env });
    expect(JSON.parse(clean.stdout)).toMatchObject({ dry_run: false, files: [] });
  }, 60_000);
});

describe('a warm and a cold build agree on secrets', () => {
  it('a cached parse is not reused across rule sets or allowlists', async () => {
    const github = SECRET_CASES.find((c) => c.name === 'GitHub classic PAT')!;
    const file = 'vault/main/memories/2026-02-13-token.md';
    const root = createProject(
      { [file]: memory({ date: '2026-02-13', body: `Pushed with ${github.line}.` }) },
      'timezone: UTC\ngit: { commit: false }\n',
    );
    try {
      const cold = await runCli(['build', '--now', NOW], { cwd: root });
      expect(cold.stderr).toContain('[secret/github]');
      // Allowed in the config: the same cached parse, a different verdict.
      writeFiles(root, { 'memory.config.yaml': `timezone: UTC\ngit: { commit: false }\nsecrets: { allow: ["${github.secret}"] }\n` });
      // Checked by its files: in-process (the same pipeline and parse cache).
      await build({ root, now: new Date(NOW) });
      expect(readText(root, 'vault/main/daily/2026-02-13.md')).toContain(github.secret);
      // The cache names the rule set it was made with.
      const key = JSON.parse(stateRow(root, 'parse-cache', 'key') as string) as { detector?: string };
      expect(key.detector).toMatch(/^secretlint-preset-recommend@[\d.]+;memvault-rules@\d+$/);
      expect(stateRowCount(root, 'parse-cache')).toBeGreaterThan(0);
    } finally {
      removeProject(root);
    }
  }, 60_000);
});
