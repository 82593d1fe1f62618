import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Running a GitHub Actions job's `run:` steps on this machine, the way a
 * runner does: job-level `env`, then the step's `env`, with `${{ … }}`
 * expressions filled from the given secrets, inputs and github context
 * (a secret that is not set is an empty string, as on GitHub), each step's
 * script run with `bash -e {0}` semantics (`bash --noprofile --norc -eo
 * pipefail`), and `$GITHUB_ENV` / `$GITHUB_PATH` carried to the next steps.
 * `uses:` steps are skipped: the test sets up what they would (a clone, node),
 * and gives their outputs in `context.steps` (e.g. actions/cache's
 * `cache-hit`), which a step's `if: steps.<id>.outputs.<name> != '…'` reads.
 */

export interface RunnerContext {
  secrets?: Record<string, string>;
  inputs?: Record<string, string>;
  github?: Record<string, string>;
  vars?: Record<string, string>;
  /** Outputs of the `uses:` steps by step id: `{ 'memvault-cache': { 'cache-hit': 'true' } }`. */
  steps?: Record<string, Record<string, string>>;
}

/**
 * Whether a step runs: no `if:`, or one comparison of a step output with a
 * string (`steps.x.outputs.y != 'true'`; a missing output is empty, as on
 * GitHub). Anything else is an error rather than a guess.
 */
export function stepRuns(condition: unknown, context: RunnerContext): boolean {
  if (condition === undefined) return true;
  const match = /^steps\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '([^']*)'$/.exec(String(condition).trim());
  if (!match) throw new Error(`unsupported if: ${String(condition)}`);
  const [, id, name, op, value] = match;
  const actual = context.steps?.[id!]?.[name!] ?? '';
  return op === '==' ? actual === value : actual !== value;
}

/** Fills `${{ secrets.X }}`, `${{ inputs.X }}`, `${{ github.X }}` and `${{ vars.X }}` in a value; anything else is an error. */
export function expand(value: unknown, context: RunnerContext): string {
  return String(value).replace(/\$\{\{\s*([a-z_]+)\.([A-Za-z0-9_]+)\s*\}\}/g, (_, scope: string, name: string) => {
    const table = (context as Record<string, Record<string, string> | undefined>)[scope];
    if (scope !== 'secrets' && scope !== 'inputs' && scope !== 'github' && scope !== 'vars') {
      throw new Error(`unsupported expression \${{ ${scope}.${name} }}`);
    }
    return table?.[name] ?? '';
  });
}

export interface StepRun {
  name: string;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `run:` steps of `job` in order in `cwd` and returns what each
 * printed; stops at the first failing step (as a runner does).
 * `baseEnv`: the machine's environment (PATH, HOME); `temp`: RUNNER_TEMP
 * and where the GITHUB_ENV / GITHUB_PATH files live.
 */
export async function runJob(
  job: {
    env?: Record<string, unknown>;
    steps: { name?: string; run?: string; env?: Record<string, unknown>; uses?: string; if?: string }[];
  },
  options: { cwd: string; context: RunnerContext; baseEnv: NodeJS.ProcessEnv; temp: string; before?: (step: string) => void },
): Promise<StepRun[]> {
  const githubEnv = path.join(options.temp, 'github-env');
  const githubPath = path.join(options.temp, 'github-path');
  writeFileSync(githubEnv, '');
  writeFileSync(githubPath, '');
  const jobEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(job.env ?? {})) jobEnv[key] = expand(value, options.context);
  const runs: StepRun[] = [];
  for (const [index, step] of job.steps.entries()) {
    if (step.run === undefined || !stepRuns(step.if, options.context)) continue;
    const name = step.name ?? step.run.split('\n')[0]!;
    options.before?.(name);
    const added = parseEnvFile(readFileSync(githubEnv, 'utf8'));
    const paths = readFileSync(githubPath, 'utf8').split('\n').filter(Boolean).reverse();
    const env: NodeJS.ProcessEnv = { ...options.baseEnv, ...jobEnv, ...added };
    for (const [key, value] of Object.entries(step.env ?? {})) env[key] = expand(value, options.context);
    Object.assign(env, { GITHUB_ENV: githubEnv, GITHUB_PATH: githubPath, RUNNER_TEMP: options.temp, CI: 'true' });
    if (paths.length > 0) env.PATH = `${paths.join(path.delimiter)}${path.delimiter}${env.PATH ?? ''}`;
    const script = path.join(options.temp, `step-${index}.sh`);
    writeFileSync(script, expand(step.run, options.context));
    // Asynchronous: a server the steps talk to (a fake model in the same process) keeps answering meanwhile.
    const result = await runScript(script, options.cwd, env);
    runs.push({ name, ...result });
    if (result.code !== 0) break;
  }
  return runs;
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

/** `NAME=value` lines (and `NAME<<EOF` blocks) of a GITHUB_ENV file. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([A-Za-z_][A-Za-z0-9_]*)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}
