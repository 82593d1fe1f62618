import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import { generateHistory } from '../helpers/history.js';
import { CLI, createProject, listFiles, memory, readText, removeProject, runCli, type CliResult } from '../helpers/project.js';
import { KEY_ENV, llmConfig, llmHistory, useFakeOpenAI } from '../llm/llm-project.js';

/**
 * Robustness of the build, end to end through the CLI: the
 * build lock is never taken from a live build, a lost lock stops the build
 * with a message instead of a stack, a killed build's temp files are removed
 * by the next build (and never committed), and a file memvault did not write
 * at a generated path is moved aside, never overwritten. Builds whose output
 * is not checked (set-ups, a takeover checked by its files) run in-process:
 * the same pipeline and lock, another process than the recorded owner.
 */

const NOW = '2026-02-06T06:00:00Z';
const history = llmHistory({ from: '2026-02-02', to: '2026-02-04', seed: 5 });
const fake = useFakeOpenAI();
const roots: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  roots.forEach(removeProject);
});
const track = (root: string): string => {
  roots.push(root);
  return root;
};

/** Starts `memvault <args>` in a child process like `runCli`, but returns at once with the child (its pid) and its result to come. */
function startCli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): { child: ChildProcess; result: Promise<CliResult>; stdout: () => string } {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_')) childEnv[key] = value;
  Object.assign(childEnv, { NO_COLOR: '1' }, env);
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
  return { child, result, stdout: () => Buffer.concat(stdout).toString('utf8') };
}

async function waitFor(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A process that is gone (spawned and reaped): its pid is dead. */
async function deadPid(): Promise<number> {
  const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => dead.on('exit', resolve));
  return dead.pid!;
}

const NO_STACK = /ECOMPROMISED|internal error|\n\s+at .+:\d+:\d+/;

describe('the build lock', () => {
  it('a second build while the first waits on a slow LLM: one line naming the first, exit 1; the first finishes cleanly', async () => {
    const root = track(createProject(history.files, llmConfig({ url: fake.server.url, timeoutS: 30 })));
    // The first build's call is held until the second build has been refused: exactly as slow as the scenario needs.
    fake.server.inject({ fault: { kind: 'hold' }, times: 1 });
    const first = startCli(['build', '--now', NOW], root, KEY_ENV);
    await waitFor(() => fake.server.calls().length > 0, 'build 1 to call the LLM');
    const second = await runCli(['build', '--now', NOW], { cwd: root, env: KEY_ENV });
    fake.server.release();
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `^memvault: another build is running \\(pid ${first.child.pid}, \`memvault build\` started [^\\n]+\\)\\n  hint: [^\\n]+\\n$`,
      ),
    );
    expect(second.stdout).toBe('');
    const done = await first.result;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toMatch(NO_STACK);
    expect(listFiles(root, 'vault/main/daily').length).toBe(history.byDay.size);
    expect(existsSync(path.join(root, '.memvault/build.lock'))).toBe(false);
    expect(existsSync(path.join(root, '.memvault/build.owner.json'))).toBe(false);
  });

  it('a live owner whose lock was not refreshed for an hour (a blocked event loop) keeps it', async () => {
    const root = track(createProject(history.files));
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(sleeper);
    holdLock(root, { pid: sleeper.pid!, started: '2026-02-06T05:00:00.000Z', command: 'memvault build' }, 3600);
    const result = await runCli(['build', '--now', NOW], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`memvault: another build is running (pid ${sleeper.pid}, \`memvault build\``);
    expect(listFiles(root, 'vault/main/daily')).toEqual([]);
    sleeper.kill();
  });

  it('a lock whose pid now belongs to another process (started later) is taken over', async () => {
    if (!existsSync('/proc/self/stat')) return; // start times are read from /proc (Linux)
    const root = track(createProject(history.files));
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(sleeper);
    holdLock(root, { pid: sleeper.pid!, started: '2026-02-06T05:00:00.000Z', command: 'memvault build', pidStart: '1' }, 0);
    await buildInProcess({ root, now: new Date(NOW) });
    expect(listFiles(root, 'vault/main/daily').length).toBe(history.byDay.size);
    sleeper.kill();
  });

  it('two builds finding the same dead owner at once: one takes the lock, the other is refused or runs after it, no stack', async () => {
    const root = track(createProject(history.files));
    holdLock(root, { pid: await deadPid(), started: '2026-02-06T05:00:00.000Z', command: 'memvault build' }, 0);
    const [a, b] = await Promise.all([runCli(['build', '--now', NOW], { cwd: root }), runCli(['build', '--now', NOW], { cwd: root })]);
    for (const result of [a, b]) {
      expect(result.stderr).not.toMatch(NO_STACK);
      if (result.code !== 0) expect(result.stderr).toMatch(/^memvault: another build is running \(pid \d+, `memvault build`/);
    }
    // Either one waited for nothing and was refused, or they ran one after the other: at least one built.
    expect([a.code, b.code]).toContain(0);
    expect(listFiles(root, 'vault/main/daily').length).toBe(history.byDay.size);
    expect(existsSync(path.join(root, '.memvault/build.lock'))).toBe(false);
    expect(existsSync(path.join(root, '.memvault/build.lock.takeover'))).toBe(false);
  });

  it('a lock folder left with no owner record by a build killed at once is taken over once it is a minute old', async () => {
    const root = track(createProject(history.files));
    holdLock(root, undefined, 120);
    await buildInProcess({ root, now: new Date(NOW) });
    expect(listFiles(root, 'vault/main/daily').length).toBe(history.byDay.size);
  });

  it('watch mid-rebuild is named as watch', async () => {
    const root = track(createProject(history.files, llmConfig({ url: fake.server.url, timeoutS: 30 })));
    fake.server.inject({ fault: { kind: 'hold' }, times: 1 });
    const watch = startCli(['watch', '--now', NOW], root, KEY_ENV);
    await waitFor(() => fake.server.calls().length > 0, 'watch to call the LLM');
    const build = await runCli(['build', '--now', NOW], { cwd: root, env: KEY_ENV });
    fake.server.release();
    expect(build.code).toBe(1);
    expect(build.stderr).toContain(`memvault: another build is running (pid ${watch.child.pid}, \`memvault watch\` started `);
    // Stopped once watching (its signal handlers are set after the first rebuild).
    await waitFor(() => watch.stdout().includes('watching'), 'watch to finish its first rebuild');
    watch.child.kill('SIGTERM');
    const stopped = await watch.result;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).not.toMatch(NO_STACK);
  });

  it('a lock removed under a running build: it stops writing and says so, no ECOMPROMISED stack', async () => {
    const root = track(createProject(history.files, llmConfig({ url: fake.server.url, timeoutS: 30 })));
    // The lock is touched every second here (5 s by default), so its loss is noticed within about a second; the answers
    // come well after that.
    fake.server.inject({ fault: { kind: 'hang', ms: 3500 }, times: Infinity });
    const first = startCli(['build', '--now', NOW], root, { ...KEY_ENV, MEMVAULT_TEST_LOCK_UPDATE_MS: '1000' });
    await waitFor(() => fake.server.calls().length > 0, 'the build to call the LLM');
    rmSync(path.join(root, '.memvault/build.lock'), { recursive: true, force: true });
    const done = await first.result;
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/^memvault: the build lock \S+ was lost while this build ran/m);
    expect(done.stderr).toContain('hint: ');
    expect(done.stderr).not.toMatch(NO_STACK);
    // The answers came after the lock was lost: no summary of them was written.
    expect(listFiles(root, 'vault/main/daily').filter((file) => readText(root, file).includes('generator:\n  provider: openai'))).toEqual(
      [],
    );
  });
});

function holdLock(root: string, owner: Record<string, unknown> | undefined, ageSeconds: number): void {
  const state = path.join(root, '.memvault');
  mkdirSync(path.join(state, 'build.lock'), { recursive: true });
  if (owner) writeFileSync(path.join(state, 'build.owner.json'), JSON.stringify(owner));
  const then = new Date(Date.now() - ageSeconds * 1000);
  utimesSync(path.join(state, 'build.lock'), then, then);
}

describe('temp files of a killed build', () => {
  it('the next build removes them, reports each, and commits none', async () => {
    const root = track(createProject(history.files, 'timezone: UTC\ngit: { commit: true }\n'));
    execFileSync('git', ['init', '-q', '-b', 'main', path.join(root, 'vault')]);
    await buildInProcess({ root, now: new Date(NOW) });
    const dead = await deadPid();
    const planted = [
      `vault/main/daily/.2026-02-03.md.${dead}.0.tmp`,
      `vault/main/weekly/.2026-W06.md.${dead}.3.tmp`,
      `vault/main/.UPLOAD_PACKAGE.md.${dead}.7.tmp`,
      `vault/main/history/daily/.2026-02-03-20260206-060000.md.${dead}.1.tmp`,
      `vault/.index.json.${dead}.9.tmp`,
    ];
    // A temp file of a live process (an `add` writing right now) is left alone.
    const live = `vault/main/daily/.2026-02-04.md.${process.pid}.0.tmp`;
    for (const file of [...planted, live]) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), '');
    }
    const result = await runCli(['build', '--now', '2026-02-13T06:00:00Z'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    for (const file of planted) {
      expect(existsSync(path.join(root, file)), file).toBe(false);
      expect(result.stderr).toContain(
        `${file.replace(/^vault\//, '')}:1:1 info removed a temporary file left by a memvault command that was stopped`,
      );
    }
    expect(existsSync(path.join(root, live))).toBe(true);
    const committed = execFileSync('git', ['-C', path.join(root, 'vault'), 'log', '--all', '--name-only', '--format='], {
      encoding: 'utf8',
    });
    expect(committed).toContain('main/weekly/2026-W06.md');
    expect(committed).not.toMatch(/\.tmp$/m);
  });
});

describe('a file memvault did not write at a generated path', () => {
  const HAND = '# My notes for the day\n\nWritten by hand, not by memvault. Keep me.\n';
  const generated = [
    'main/daily/2026-02-03.md',
    'main/weekly/2026-W06.md',
    'main/monthly/2026-02.md',
    // longterm.md and waterfall/*.md are written through the same writer, once their month or compaction comes.
    'main/UPLOAD_PACKAGE.md',
    'main/UPLOAD_PACKAGE.manifest.json',
    'agent/CONTEXT.md',
    'INDEX.md',
    'index.json',
  ];
  let root: string;
  let result: CliResult;
  const hand = (file: string): string =>
    file.endsWith('.json') ? `{ "mine": "${file}" }\n` : HAND.replace('Keep me.', `Keep me (${file}).`);

  it('is moved aside with a warning naming both paths, and the move is committed with the build', async () => {
    const files: Record<string, string> = { ...history.files };
    files['vault/agent/memories/2026-02-03-note.md'] = memory({
      date: '2026-02-03T10:00:00Z',
      title: 'Agent note',
      body: 'The agent learned a thing.',
    });
    for (const file of generated) files[`vault/${file}`] = hand(file);
    files['outside.txt'] = 'outside the vault\n';
    root = track(
      createProject(
        files,
        'timezone: UTC\ngit: { commit: true }\nstreams:\n  main: { calendar: true, waterfall: false }\n  agent: { calendar: false, waterfall: true }\n',
      ),
    );
    execFileSync('git', ['init', '-q', '-b', 'main', path.join(root, 'vault')]);
    // A link out of the vault and a FIFO at generated paths: never read (nor written through), moved aside, not committed.
    symlinkSync(path.join(root, 'outside.txt'), path.join(root, 'vault/main/daily/2026-02-04.md'));
    execFileSync('mkfifo', [path.join(root, 'vault/main/daily/2026-02-02.md')]);
    result = await runCli(['build', '--now', '2026-03-03T06:00:00Z'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    const tree = execFileSync('git', ['-C', path.join(root, 'vault'), 'ls-tree', '-r', '--name-only', 'HEAD'], { encoding: 'utf8' }).split(
      '\n',
    );
    for (const file of generated) {
      const now = readFileSync(path.join(root, 'vault', file), 'utf8');
      expect(now, file).not.toBe(hand(file));
      const warning = new RegExp(
        `^${escapeRegExp(file)}:1:1 warning not written by memvault \\(no \`memvault:\` frontmatter\\): moved to (\\S+) before writing the generated file`,
        'm',
      ).exec(result.stderr);
      expect(warning, `${file}\n${result.stderr}`).not.toBeNull();
      const movedTo = warning![1]!;
      expect(movedTo).toMatch(
        file.includes('/')
          ? new RegExp(`^${escapeRegExp(file.slice(0, file.indexOf('/')))}/history/hand-written/`)
          : /^[A-Za-z]+\.hand-written-\d{8}-\d{6}\./,
      );
      expect(readFileSync(path.join(root, 'vault', movedTo), 'utf8'), movedTo).toBe(hand(file));
      expect(tree, movedTo).toContain(movedTo);
    }
    for (const [file, why] of [
      ['main/daily/2026-02-04.md', 'a symbolic link'],
      ['main/daily/2026-02-02.md', 'not a regular file'],
    ] as const) {
      const warning = new RegExp(`^${escapeRegExp(file)}:1:1 warning not written by memvault \\(${why}\\): moved to (\\S+) `, 'm').exec(
        result.stderr,
      );
      expect(warning, `${file}\n${result.stderr}`).not.toBeNull();
      expect(lstatSync(path.join(root, 'vault', file)).isFile()).toBe(true);
      expect(readFileSync(path.join(root, 'vault', file), 'utf8')).toMatch(/^---\nmemvault: summary\n/);
      expect(tree).not.toContain(warning![1]);
    }
    expect(lstatSync(path.join(root, 'vault/main/history/hand-written/daily')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(root, 'outside.txt'), 'utf8')).toBe('outside the vault\n');
  });

  it('the next build moves nothing: what is there now memvault wrote', async () => {
    const again = await runCli(['build', '--now', '2026-03-04T06:00:00Z'], { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('not written by memvault');
    // The regular files, the link and the FIFO.
    expect(
      readdirSync(path.join(root, 'vault/main/history/hand-written'), { recursive: true }).filter(
        (f) => String(f).endsWith('.md') || String(f).endsWith('.json'),
      ).length,
    ).toBe(generated.filter((file) => file.startsWith('main/')).length + 2);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('random kill -9 during builds (slow: MEMVAULT_SLOW=1)', () => {
  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    '20 builds killed at random moments, then one build: no temp file anywhere, output equal to an uninterrupted build',
    async () => {
      const big = generateHistory({ from: '2026-01-05', to: '2026-03-20', seed: 11 });
      const config = 'timezone: UTC\ngit: { commit: false }\n';
      const clean = track(createProject(big.files, config));
      const killed = track(createProject(big.files, config));
      const at = '2026-03-21T06:00:00Z';
      const reference = await runCli(['build', '--now', at], { cwd: clean });
      expect(reference.code, reference.stderr).toBe(0);
      let random = 7;
      const next = (): number => (random = (random * 48271) % 2147483647) / 2147483647;
      let interrupted = 0;
      for (let round = 0; round < 20; round++) {
        const run = startCli(['build', '--now', at, ...(round % 3 === 0 ? ['--force'] : [])], killed);
        await new Promise((resolve) => setTimeout(resolve, 150 + next() * 2500));
        if (run.child.exitCode === null) {
          run.child.kill('SIGKILL');
          interrupted++;
        }
        await run.result;
      }
      expect(interrupted).toBeGreaterThan(5);
      const last = await runCli(['build', '--now', at], { cwd: killed });
      expect(last.code, last.stderr).toBe(0);
      const leftovers = [...listFiles(killed, 'vault'), ...listFiles(killed, '.memvault')].filter((file) => /\.tmp$/.test(file));
      expect(leftovers).toEqual([]);
      // history/ keeps the versions a --force build replaced: it depends on where the kills fell.
      const outputs = (root: string): Map<string, string> =>
        new Map(
          listFiles(root, 'vault')
            .filter((file) => !file.includes('/history/'))
            .map((file) => [file, readText(root, file)]),
        );
      expect(outputs(killed)).toEqual(outputs(clean));
    },
    300_000,
  );
});
