import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheStamp } from '../../src/read/cache-save.js';
import { CLI, createProject, memory, removeProject, runCli, runCliJson } from '../helpers/project.js';
import { stateRowCount } from '../helpers/state-store.js';

/**
 * Read commands through the shipped bundle: a search loads only its own code and zod (no YAML parser, calendar,
 * phrase parser, full stop-word list or thread pool), the config is kept in `.memvault/config-cache.json`, and a read
 * command that had to parse an edited memory keeps it in the parse cache, so the next one does not parse it again.
 */

const NOW = '2026-03-20T12:00:00Z';
const MEMORY = 'vault/main/memories/2026-03-03-webhooks.md';
/** Written by the session-start hook's test: a pinned memory is in every answer. */
const PINNED = 'vault/main/memories/2026-03-05-rule.md';
let root: string;

/**
 * Preloaded into the CLI: the loader hook (on its own thread) prints every ES module it loads, and at exit the main
 * thread prints the CommonJS files in `require.cache` (what the bundle leaves external, and `createRequire` loads).
 */
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  'export async function load(url, context, next) { process.stderr.write("MODULE " + url + "\\\\n"); return next(url, context); }'));
const require = createRequire('/');
process.on('exit', () => { for (const file of Object.keys(require.cache)) process.stderr.write('MODULE ' + file + '\\n'); });
`)}`;

/** Runs the CLI with the hook: its exit code, stdout, the bundle chunks it loaded (by name) and the other files (by path). */
function runLogged(args: string[], input?: string): Promise<{ code: number; stdout: string; chunks: string[]; files: string[] }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const key of Object.keys(env)) if (key.startsWith('MEMVAULT_')) delete env[key];
    const child = spawn(process.execPath, ['--import', HOOK, CLI, ...args], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // A hook reads its event from stdin; other commands read none (closed at once).
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const all = stderr
        .split('\n')
        .filter((line) => line.startsWith('MODULE '))
        .map((line) => line.slice('MODULE '.length))
        .map((url) => (url.startsWith('file:') ? fileURLToPath(url) : url));
      const bin = path.dirname(CLI);
      const chunks = all.filter((file) => path.dirname(file) === bin).map((file) => path.basename(file));
      resolve({ code: code ?? 1, stdout, chunks, files: all.filter((file) => path.dirname(file) !== bin) });
    });
  });
}

beforeAll(async () => {
  root = createProject({
    [MEMORY]: memory({ date: '2026-03-03T09:00:00Z', title: 'Webhook retries', body: 'Payment webhooks retry three times.' }),
    'vault/main/memories/2026-03-04-deploy.md': memory({ date: '2026-03-04T09:00:00Z', title: 'Deploys', body: 'Deploys need approvals.' }),
  });
  const built = await runCli(['build', '--now', NOW, '--no-commit'], { cwd: root });
  expect(built.code, built.stderr).toBe(0);
  // The first search builds the index (it loads the vault); the one tested finds it.
  await runCliJson(['search', 'webhooks', '--json'], { cwd: root });
});
afterAll(() => removeProject(root));

describe('read commands start fast', () => {
  it('a search loads no YAML parser, calendar, phrase parser, full stop-word list or thread pool', async () => {
    const { code, stdout, chunks, files } = await runLogged(['search', 'webhooks', '--json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { hits: { path: string }[] }).hits[0]?.path).toBe(MEMORY.slice('vault/'.length));
    // Files from node_modules (what the bundle leaves external): the SQLite driver, none of the others.
    expect(files.some((file) => file.includes(`${path.sep}better-sqlite3${path.sep}`))).toBe(true);
    // `bindings` is how better-sqlite3 finds its addon unless told where it is (db.ts tells it).
    for (const name of ['tinypool', 'stopword', 'chrono-node', 'luxon', 'yaml', 'gpt-tokenizer', 'bindings'])
      expect(files.filter((file) => file.includes(`node_modules${path.sep}${name}${path.sep}`))).toEqual([]);
    // The bundle's chunks (esbuild marks each bundled file with a comment naming it): none holds those libraries (the
    // stop list is stopword's English file, bundled: its entry point with 62 languages is what stays out).
    expect(chunks).toContain('main.js');
    for (const chunk of chunks) {
      const text = readFileSync(path.join(path.dirname(CLI), chunk), 'utf8');
      // zod is allowed: the operations layer (src/ops/) checks every input with the schema MCP advertises, so the CLI and
      // MCP refuse the same input with the same words; loading its chunks costs ~14 ms (2026-11-28, load average 15).
      for (const library of ['yaml', 'luxon', 'chrono-node', 'minisearch', 'stopword/dist'])
        expect(text, chunk).not.toContain(`// node_modules/${library}/`);
    }
    // The config was kept for the next command (the state store's `config` row).
    expect(stateRowCount(root, 'config')).toBe(1);
  });

  it('the session-start hook after an edit loads the files it needs without the thread pool, and remark stays out', async () => {
    const input = JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: root });
    // The first answer loads the whole vault and keeps its parts (hooks/start-parts.ts); after an edit, the next one
    // loads the few files its context draws on: their text is what it shows, their markdown is not parsed.
    appendFileSync(
      path.join(root, PINNED),
      memory({ date: '2026-03-05T09:00:00Z', title: 'Rule', importance: 'pinned', body: 'Keep retries idempotent.' }),
    );
    expect((await runLogged(['hook', 'session-start'], input)).code).toBe(0);
    appendFileSync(path.join(root, PINNED), 'Each retry waits twice as long.\n');
    const { code, stdout, files } = await runLogged(['hook', 'session-start'], input);
    expect(code).toBe(0);
    expect(stdout).toContain('Each retry waits twice as long.');
    expect(files.filter((file) => file.includes(`node_modules${path.sep}tinypool${path.sep}`))).toEqual([]);
    expect(files.filter((file) => /remark|unified/.test(path.basename(file)))).toEqual([]);
  });

  it('a read command keeps what its load parsed: the next one parses nothing', async () => {
    const stateDir = path.join(root, '.memvault');
    appendFileSync(path.join(root, MEMORY), 'Then they go to a dead-letter queue.\n');
    const before = cacheStamp(stateDir);
    const zoom = () => runCliJson(['zoom', '2026-03-03', '--json', '--now', NOW], { cwd: root });
    const first = await zoom();
    expect(first.result.stdout).toContain('dead-letter queue');
    const saved = cacheStamp(stateDir);
    expect(saved).not.toBe(before);
    // The second finds every file in the cache: it has nothing to save, and prints the same.
    const second = await zoom();
    expect(cacheStamp(stateDir)).toBe(saved);
    expect(second.result.stdout).toBe(first.result.stdout);
  });
});
