import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import {
  CLI,
  createProject,
  listFiles,
  readText,
  removeProject,
  runCli,
  runCliJson,
  splitFrontmatter,
  type CliResult,
} from '../helpers/project.js';
import { SECRET_CASES } from '../redact/corpus.js';

/**
 * `memvault add` end to end: a well-formed memory under a readable, unique
 * name, text from the argument or stdin, every flag in the frontmatter,
 * secrets redacted before anything is written.
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) removeProject(root);
});

function project(config = 'timezone: Europe/Berlin\n'): string {
  const root = createProject({}, config);
  roots.push(root);
  return root;
}

const NOW = { MEMVAULT_NOW: '2026-02-13T13:05:00Z' };

/**
 * The name `add` gives a file under `<folder>/<day>-<slug>`: then the first six hex digits of the SHA-256 of what the
 * file holds (so two clones that add the same title the same day never write the same name), then `-n` for the n-th.
 */
function addedName(root: string, relative: string, prefix: string, n = 1): string {
  const id = createHash('sha256').update(readText(root, relative)).digest('hex').slice(0, 6);
  return `${prefix}-${id}${n > 1 ? `-${n}` : ''}.md`;
}

/** Runs `memvault add` with `input` on stdin. */
function addWithStdin(args: string[], cwd: string, input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...NOW };
    const child = spawn(process.execPath, [CLI, 'add', ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('memvault add', () => {
  it('writes a memory dated now in the configured zone, named after its first words, and prints the path', async () => {
    const root = project();
    const result = await runCli(
      ['add', 'Replaced JWT with server sessions: tokens grew past the cookie limit.', '--tag', 'auth', '--tag', 'backend'],
      { cwd: root, env: NOW },
    );
    const written = result.stdout.trim();
    expect(result).toEqual({
      code: 0,
      stdout: `${addedName(root, written, 'vault/main/memories/2026/02/2026-02-13-replaced-jwt-with-server-sessions-tokens-grew-past')}\n`,
      stderr: '',
    });
    expect(readText(root, result.stdout.trim())).toBe(
      '---\ndate: 2026-02-13T14:05:00+01:00\ntags: [ auth, backend ]\n---\nReplaced JWT with server sessions: tokens grew past the cookie limit.\n',
    );
  });

  it('writes every flag to the frontmatter, names the file after the title, and reports JSON', async () => {
    // --stream names a stream the config declares (an undeclared one is refused: test/e2e/nightly-guard.test.ts).
    const root = project('timezone: Europe/Berlin\nstreams:\n  main: { calendar: true }\n  ops: { calendar: true }\n');
    const { json } = await runCliJson(
      [
        'add',
        'Deploys need a green staging run first.',
        '--title',
        'Deploy rule',
        '--kind',
        'decision',
        '--importance',
        'pinned',
        '--tag',
        'deploy,ci',
        '--stream',
        'ops',
        '--date',
        '2026-02-10T09:30:00+01:00',
        '--json',
      ],
      { cwd: root, env: NOW },
    );
    const name = addedName(root, json.path, '2026-02-10-deploy-rule');
    expect(json).toEqual({
      path: `vault/ops/memories/2026/02/${name}`,
      vault_path: `ops/memories/2026/02/${name}`,
      id: `2026/02/${name.replace(/\.md$/, '')}`,
      stream: 'ops',
      date: '2026-02-10T09:30:00+01:00',
      redactions: [],
    });
    const { front, body } = splitFrontmatter(readText(root, json.path));
    expect(front).toBe('date: 2026-02-10T09:30:00+01:00\ntitle: Deploy rule\nkind: decision\ntags: [ deploy, ci ]\nimportance: pinned');
    expect(body).toBe('Deploys need a green staging run first.\n');
    // The build reads it: a pinned memory leads the package of its stream (in-process: checked by its report and package).
    const report = await build({ root, now: new Date('2026-02-14T06:00:00Z'), commit: false });
    expect(report.diagnostics).toEqual([]);
    expect(readText(root, 'vault/ops/UPLOAD_PACKAGE.md')).toContain(
      '## Critical (pinned)\n\n### 2026-02-10 09:30 Deploy rule (decision) [deploy, ci]',
    );
  });

  it('never overwrites: the same title and day get names of their own, the same text again gets -2, -3', async () => {
    const root = project();
    const paths: string[] = [];
    for (let i = 0; i < 3; i++)
      paths.push((await runCli(['add', `Standup note ${i}`, '--title', 'Standup', '--date', '2026-02-13'], { cwd: root })).stdout.trim());
    const prefix = 'vault/main/memories/2026/02/2026-02-13-standup';
    expect(paths).toEqual(paths.map((p) => addedName(root, p, prefix)));
    expect(new Set(paths).size).toBe(3);
    expect(paths.map((p) => splitFrontmatter(readText(root, p)).body)).toEqual([
      'Standup note 0\n',
      'Standup note 1\n',
      'Standup note 2\n',
    ]);
    const same: string[] = [];
    for (let i = 0; i < 2; i++)
      same.push((await runCli(['add', 'Standup note 0', '--title', 'Standup', '--date', '2026-02-13'], { cwd: root })).stdout.trim());
    expect(same).toEqual([addedName(root, paths[0]!, prefix, 2), addedName(root, paths[0]!, prefix, 3)]);
    expect(same.map((p) => readText(root, p))).toEqual([readText(root, paths[0]!), readText(root, paths[0]!)]);
  });

  it('reads the text from stdin when there is no text argument, or it is -', async () => {
    const root = project();
    const text = '## Release 1.4.2\n\n- Invoice totals summed in integer cents.\n- Export runs in batches of 10,000 rows.\n';
    const first = await addWithStdin(['--title', 'Release notes'], root, text);
    expect(first.code).toBe(0);
    expect(splitFrontmatter(readText(root, first.stdout.trim())).body).toBe(text);
    const second = await addWithStdin(['-'], root, 'Piped note about the replica lag.');
    const piped = second.stdout.trim();
    expect(piped).toBe(addedName(root, piped, 'vault/main/memories/2026/02/2026-02-13-piped-note-about-the-replica-lag'));
  });

  it('redacts secrets before writing, and says so', async () => {
    const root = project();
    const lines = SECRET_CASES.map((c) => c.line).join('\n\n');
    const result = await addWithStdin(['--title', 'Env dump'], root, lines);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^\d+ secrets redacted \(/);
    const written = readText(root, result.stdout.trim());
    for (const c of SECRET_CASES) expect(written.includes(c.secret), c.kind).toBe(false);
    expect(written).toContain('DATABASE_URL=postgres://ledgerly:[REDACTED:database-password]@db.internal:5432/ledgerly');
  });

  it('writes a secret as it is with --no-redact, after a warning', async () => {
    const root = project();
    const secret = SECRET_CASES[0]!;
    const result = await runCli(['add', secret.line, '--no-redact'], { cwd: root, env: NOW });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: --no-redact/);
    expect(readText(root, result.stdout.trim())).toContain(secret.secret);
  });

  it('refuses bad input with a one-line reason and a hint, and writes nothing', async () => {
    const root = project();
    const cases: [string[], string][] = [
      [['add', '   '], 'memvault: the memory text is empty'],
      [['add', 'x', '--importance', 'urgent'], 'memvault: importance must be one of low, normal, high, pinned (got "urgent")'],
      [['add', 'x', '--date', '2026-02-30'], 'memvault: --date `2026-02-30` is not an ISO 8601 date or datetime'],
      [['add', 'x', '--stream', 'My Stream'], 'memvault: stream name `My Stream` is not allowed'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd: root, env: NOW });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.split('\n')[0]).toBe(message);
      expect(result.stderr).toContain('hint: ');
    }
    expect(listFiles(root, 'vault')).toEqual([]);
  });
});
