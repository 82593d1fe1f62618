import { spawn } from 'node:child_process';
import { CLI } from './project.js';

/** What a CLI run ended with, the signal included (a kill shows as `SIGKILL`, not as an exit code). */
export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * `memvault <args>` in a child process, like `runCli`, with what the ingest
 * tests need besides: stdin from a string or an open file descriptor, a kill
 * after `killAfterMs`, a `timeoutMs` that kills a run hanging (on a FIFO, say)
 * so the test fails instead of waiting, and the signal that ended it.
 */
export function spawnCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; stdin?: string | number; killAfterMs?: number; timeoutMs?: number },
): Promise<SpawnResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) env[key] = value;
  Object.assign(env, { NO_COLOR: '1' }, options.env);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const stdin = typeof options.stdin === 'number' ? options.stdin : options.stdin === undefined ? 'ignore' : 'pipe';
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    const timers = [options.killAfterMs, options.timeoutMs]
      .filter((ms): ms is number => ms !== undefined)
      .map((ms) => setTimeout(() => child.kill('SIGKILL'), ms));
    child.on('close', (code, signal) => {
      for (const timer of timers) clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      });
    });
    if (typeof options.stdin === 'string') child.stdin!.end(options.stdin);
  });
}
