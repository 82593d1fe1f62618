import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * End-to-end test helpers: real projects in temporary folders and the real
 * CLI (the shipped bundle `dist/bin/memvault.js`) in a child process. Nothing here
 * imports `src/`, so the tests see the tool exactly as a user does.
 */

/** The compiled CLI entry; `npm test` compiles it before running vitest. */
export const CLI = fileURLToPath(new URL('../../dist/bin/memvault.js', import.meta.url));

/** The config `createProject` writes when none is given. */
export const DEFAULT_CONFIG = 'timezone: UTC\n';

/**
 * Writes a project into a new temporary folder: `memory.config.yaml` (default
 * `timezone: UTC\n`) and `files`, keyed by POSIX path relative to the project
 * root (e.g. `vault/main/memories/2026-02-13-x.md`). Returns the folder;
 * remove it with `removeProject`.
 *
 * @example
 *   const root = createProject({ 'vault/main/memories/a.md': memory({ date: '2026-02-13', body: 'Hi.' }) });
 */
export function createProject(files: Record<string, string | Buffer>, config: string = DEFAULT_CONFIG): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
  writeFileSync(path.join(root, 'memory.config.yaml'), config);
  writeFiles(root, files);
  return root;
}

/** Writes (or overwrites) files relative to `root`, creating folders as needed. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, ...relative.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Copies a whole project (build state included) to a new temporary folder, so scenarios can branch off one build. */
export function copyProject(root: string): string {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
  cpSync(root, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

/** Removes a folder made by `createProject` or `copyProject`; refuses anything outside the temp dir. */
export function removeProject(root: string | undefined): void {
  if (!root) return;
  const tmp = path.resolve(os.tmpdir());
  if (!path.resolve(root).startsWith(`${tmp}${path.sep}`)) throw new Error(`refusing to remove \`${root}\`: not under ${tmp}`);
  rmSync(root, { recursive: true, force: true });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `memvault <args>` in a child process (no shell) with `NO_COLOR=1`,
 * capturing its output. `MEMVAULT_*` variables of the test runner are not
 * passed on, so a stray `MEMVAULT_NOW` cannot change a result; set them in
 * `options.env`. `uid`/`gid` run it as another user (the test runner must be
 * root): how a test makes a file unreadable when the runner itself is root.
 */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; uid?: number; gid?: number },
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
  Object.assign(env, { NO_COLOR: '1' }, options.env);
  return new Promise((resolve, reject) => {
    const user = options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid };
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/** Runs the CLI and parses its stdout as JSON; fails with the output when the command failed. */
export async function runCliJson<T = any>(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ result: CliResult; json: T }> {
  const result = await runCli(args, options);
  if (result.code !== 0) throw new Error(`memvault ${args.join(' ')} exited ${result.code}\n${result.stderr}${result.stdout}`);
  try {
    return { result, json: JSON.parse(result.stdout) as T };
  } catch {
    throw new Error(`memvault ${args.join(' ')} did not print JSON:\n${result.stdout}`);
  }
}

export interface MemoryFields {
  /** `date:` as written, e.g. `2026-02-13` or `2026-02-13T14:05:00+01:00`. */
  date: string;
  title?: string;
  body: string;
  importance?: 'low' | 'normal' | 'high' | 'pinned';
  tags?: string[];
  kind?: string;
}

/** The text of a memory file as a person would write it: YAML frontmatter, then the markdown body. */
export function memory(fields: MemoryFields): string {
  const lines = ['---', `date: ${fields.date}`];
  if (fields.title !== undefined) lines.push(`title: ${JSON.stringify(fields.title)}`);
  if (fields.kind !== undefined) lines.push(`kind: ${fields.kind}`);
  if (fields.tags !== undefined) lines.push(`tags: [${fields.tags.join(', ')}]`);
  if (fields.importance !== undefined) lines.push(`importance: ${fields.importance}`);
  lines.push('---');
  return `${lines.join('\n')}\n${fields.body.trim()}\n`;
}

export interface FileState {
  sha256: string;
  mtimeMs: number;
}

/**
 * Every file under `dir` (POSIX relative path → content hash and mtime),
 * without the `.memvault/` state folder: two equal snapshots mean no byte
 * on disk changed and no file was even rewritten.
 */
export function snapshotTree(dir: string): Map<string, FileState> {
  const out = new Map<string, FileState>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (child === '.memvault') continue;
      if (entry.isDirectory()) walk(child);
      else {
        const absolute = path.join(dir, child);
        out.set(child, { sha256: createHash('sha256').update(readFileSync(absolute)).digest('hex'), mtimeMs: statSync(absolute).mtimeMs });
      }
    }
  };
  walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Files under `root/relative` (POSIX paths relative to `root`), sorted; [] when the folder does not exist. */
export function listFiles(root: string, relative = ''): string[] {
  const base = path.join(root, relative);
  try {
    statSync(base);
  } catch {
    return [];
  }
  return [...snapshotTree(base).keys()].map((file) => (relative ? `${relative.replace(/\/$/, '')}/${file}` : file));
}

/** Reads a UTF-8 file relative to `root`. */
export function readText(root: string, relative: string): string {
  return readFileSync(path.join(root, ...relative.split('/')), 'utf8');
}

/** Reads a JSON file relative to `root`. */
export function readJsonFile<T = any>(root: string, relative: string): T {
  return JSON.parse(readText(root, relative)) as T;
}

/**
 * Splits a generated markdown file into its frontmatter lines and body
 * without the tool's parser: `{ front: 'key: value…', body }`.
 */
export function splitFrontmatter(text: string): { front: string; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`no frontmatter in:\n${text.slice(0, 200)}`);
  return { front: match[1]!, body: match[2]! };
}
