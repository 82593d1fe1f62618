import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConvertedConversation } from './locomo.js';

/**
 * One LoCoMo conversation as a memvault project in a temporary folder, built
 * by the real CLI in a child process: what both modes of `npm run eval`
 * (the package and per question) measure.
 */

// Compiled, this file is dist/scripts/eval/project.js; run from source (tests), scripts/eval/project.ts.
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/scripts/') ? '../../..' : '../..', import.meta.url));
/** The bundled CLI the evaluation runs (`npm run build` makes it). */
export const CLI = path.join(ROOT, 'dist', 'bin', 'memvault.js');
/** The repository root (data/ and the default output live under it). */
export const REPO_ROOT = ROOT;

/** The project config: the defaults, in UTC (LoCoMo has no zones), plus the stream and any `--config` additions. */
export function projectConfig(stream: string, extra: string): string {
  return `timezone: UTC\nstreams:\n  ${stream}: { calendar: true, waterfall: false }\n${extra}`;
}

export interface BuildRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `memvault build --now <now> --no-commit --json` in `root`, with no `MEMVAULT_*` variable of the caller. */
export function runBuild(root: string, now: string): Promise<BuildRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const key of Object.keys(env)) if (key.startsWith('MEMVAULT_')) delete env[key];
    const child = spawn(process.execPath, [CLI, 'build', '--now', now, '--no-commit', '--json'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - started,
      }),
    );
  });
}

/**
 * Writes the conversation's project (config and one memory file per session)
 * into `root` (a new temporary folder unless given) and builds it as of `conversation.now`. Throws
 * when the build fails (the folder removed); else the caller removes `root`.
 */
export async function buildConversation(
  conversation: ConvertedConversation,
  extraConfig: string,
  root = mkdtempSync(path.join(os.tmpdir(), `memvault-eval-${conversation.stream}-`)),
): Promise<{ root: string; build: BuildRun }> {
  writeFileSync(path.join(root, 'memory.config.yaml'), projectConfig(conversation.stream, extraConfig));
  for (const session of conversation.sessions) {
    const file = path.join(root, ...session.path.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, session.file);
  }
  const build = await runBuild(root, conversation.now);
  if (build.code !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`build of ${conversation.stream} failed (exit ${build.code}): ${build.stderr.trim()}`);
  }
  return { root, build };
}

/** The file a kept build leaves in its project: the build's report, so a reuse reads what the build said. */
const BUILT_MARKER = '.eval-build.json';

/**
 * `buildConversation` into `folder` (made if missing), or the build already there: `--projects DIR` keeps one built
 * project per conversation so that changes to the read side are measured again without building again. The caller
 * keeps the folder; delete it after a change to the build side (summaries, index), which a reuse would not see.
 */
export async function buildOrReuse(
  conversation: ConvertedConversation,
  extraConfig: string,
  folder: string,
): Promise<{ root: string; build: BuildRun }> {
  const marker = path.join(folder, BUILT_MARKER);
  if (existsSync(marker)) {
    const build = JSON.parse(readFileSync(marker, 'utf8')) as BuildRun;
    if (readFileSync(path.join(folder, 'memory.config.yaml'), 'utf8') === projectConfig(conversation.stream, extraConfig))
      return { root: folder, build: { ...build, ms: 0 } };
  }
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const built = await buildConversation(conversation, extraConfig, folder);
  writeFileSync(marker, JSON.stringify(built.build));
  return built;
}
