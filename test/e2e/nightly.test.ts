import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { CLI, memory, removeProject, runCliJson, writeFiles } from '../helpers/project.js';
import { runJob, type StepRun } from '../helpers/workflow.js';

/**
 * The nightly rollup as GitHub runs it, on this machine: a bare "origin", a
 * vault repository set up with `memvault init` and pushed there, a fresh
 * runner-like clone, memvault packed as a release (scripts/pack-release.mjs)
 * and installed by the workflow's own install step into the runner's home
 * (a temporary folder: what actions/cache would keep), then the workflow's
 * `run:` steps in order with the env the workflow gives them. Someone pushes
 * a memory while the job runs, so the first push is rejected and the retry
 * path rebuilds: both builds must use the same now, profile, API key and
 * author. The model is the fake OpenAI server (the `nightly` profile, chosen
 * by the MEMVAULT_PROFILE secret).
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NOW = '2026-02-16T06:00:00Z';
const WORKFLOW = '.github/workflows/memvault-nightly.yml';
/** A day's notes too long for the daily budget as they are: the summary is the model's (a short day is merged without a call). */
const longDay = (topic: string): string =>
  Array.from(
    { length: 30 },
    (_, i) => `Step ${i + 1} of the ${topic}: checked the ${topic} logs, fixed case ${i + 1}, noted it for review.`,
  ).join(' ');

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  }).trim();

/**
 * better-sqlite3's native addon as its install script (`prebuild-install`) looks for a prebuilt one: a tarball named
 * like the release asset in a `local-prebuilds` folder, made from the addon this checkout's `npm ci` built (the same
 * version). Without it, a machine that cannot download the release asset compiles SQLite in every global install
 * (minutes of CPU); with it the install step still runs npm and the package's install script as a runner does.
 */
function localPrebuilds(work: string): string {
  const dir = path.join(work, 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const addon = path.join(REPO, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(path.join(addon, 'package.json'), 'utf8')) as { version: string };
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(dir, asset), '-C', addon, 'build/Release/better_sqlite3.node']);
  return dir;
}

/** npm's cache of this machine: the runner's HOME is a temporary folder, but the packages come from here when it has them. */
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

/**
 * The machine's environment as a runner has it: no memvault or git identity settings of the test runner; `home`
 * for HOME (where the workflow installs memvault) when given.
 */
function runnerEnv(prefix: string, prebuilds?: string, home?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('MEMVAULT_') && !key.startsWith('GIT_') && !key.startsWith('npm_')) env[key] = value;
  }
  // `npm install --global` goes to the temporary prefix, from npm's cache when it has the packages.
  return {
    ...env,
    ...(home ? { HOME: home } : {}),
    npm_config_cache: NPM_CACHE,
    npm_config_prefix: prefix,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}),
    PATH: `${prefix}/bin:${env.PATH}`,
  };
}

describe('the nightly workflow, played end to end', () => {
  let work: string;
  let server: FakeOpenAI;
  let tarball: string;
  let origin: string;
  let prefix: string;
  let runs: StepRun[];
  let callsBeforePush = 0;
  /** The commit `npm pack` stamped into the tarball (scripts/stamp-source.mjs). */
  let stamped: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'memvault-nightly-'));
    server = await startFakeOpenAI();
    // memvault as a release ships it: the bundle (npm test builds it) stamped with its git source, packed by pack:release.
    const packed = execFileSync(process.execPath, [path.join(REPO, 'scripts/pack-release.mjs'), '--out', work, '--json'], {
      encoding: 'utf8',
    });
    tarball = JSON.parse(packed).file;
    stamped = JSON.parse(readFileSync(path.join(REPO, 'dist/install-source.json'), 'utf8')).commit;

    origin = path.join(work, 'origin.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    const dev = path.join(work, 'dev');
    git(work, 'clone', '-q', origin, dev);
    await runCliJson(['init', '--install-from', tarball, '--json'], { cwd: dev });
    // The profile the MEMVAULT_PROFILE secret picks: the fake server, keyed by OPENAI_API_KEY.
    const profile = `    nightly: { provider: openai, base_url: ${server.url}, model: nightly-model, api_key_env: OPENAI_API_KEY }\n`;
    writeFiles(dev, {
      'memory.config.yaml': `${readFileSync(path.join(dev, 'memory.config.yaml'), 'utf8')}${profile}`,
      'vault/main/memories/2026-02-12-standup.md': memory({
        date: '2026-02-12T10:00:00Z',
        title: 'Standup',
        body: longDay('billing rewrite'),
      }),
      'vault/main/memories/2026-02-13-invoices.md': memory({
        date: '2026-02-13T15:00:00Z',
        title: 'Invoices',
        body: 'Invoice PDFs now embed fonts.',
      }),
    });
    git(dev, 'add', '-A');
    git(dev, 'commit', '-q', '-m', 'memvault init');
    git(dev, 'push', '-q', 'origin', 'main');

    // The runner: a fresh clone with full history (actions/checkout with fetch-depth: 0), node already there (setup-node).
    const runner = path.join(work, 'runner');
    git(work, 'clone', '-q', origin, runner);
    // The runner's home: the workflow installs memvault under it (~/.cache/memvault, what actions/cache keeps).
    const home = path.join(work, 'home');
    mkdirSync(home);
    prefix = path.join(home, '.cache/memvault');
    const temp = path.join(work, 'runner-temp');
    mkdirSync(temp);
    const job = parseYaml(readFileSync(path.join(runner, WORKFLOW), 'utf8')).jobs.rollup;
    runs = await runJob(job, {
      cwd: runner,
      temp,
      // npm's own global prefix is a folder nothing uses: memvault must come from the workflow's --prefix and PATH step.
      baseEnv: runnerEnv(path.join(work, 'npm-global'), localPrebuilds(work), home),
      context: {
        secrets: { MEMVAULT_PROFILE: 'nightly', OPENAI_API_KEY: 'sk-nightly-test' },
        inputs: { now: NOW },
        github: { ref_name: 'main', ref: 'refs/heads/main' },
      },
      before: (step) => {
        if (step !== 'Push') return;
        callsBeforePush = server.calls().length;
        // Someone pushes a memory while the job builds: the job's push is rejected and it takes the retry path.
        writeFiles(dev, {
          'vault/main/memories/2026-02-14-deploy.md': memory({
            date: '2026-02-14T09:00:00Z',
            title: 'Deploy',
            body: longDay('staging deploy'),
          }),
        });
        git(dev, 'add', '-A');
        git(dev, 'commit', '-q', '-m', 'a memory from the laptop');
        git(dev, 'push', '-q', 'origin', 'main');
      },
    });
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    removeProject(work);
  });

  it('the release tarball: the bundle, prompts and licences; two dependencies pinned by a shrinkwrap; no scripts', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/npm-shrinkwrap.json',
        'package/dist/bin/memvault.js',
        'package/dist/bin/build-worker.js',
        'package/dist/bin/vendor/gray-matter.cjs',
        'package/dist/install-source.json',
        'package/prompts/daily.yaml',
        'package/THIRD_PARTY_LICENSES.md',
      ]),
    );
    expect(files.filter((file) => /node_modules|\/src\/|\.ts$|bundle-meta/.test(file))).toEqual([]);
    const read = (file: string) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' });
    const manifest = JSON.parse(read('package.json'));
    expect(Object.keys(manifest.dependencies)).toEqual(['better-sqlite3', 'tinypool']);
    expect(manifest).not.toHaveProperty('scripts');
    expect(manifest).not.toHaveProperty('devDependencies');
    const shrinkwrap = JSON.parse(read('npm-shrinkwrap.json'));
    expect(shrinkwrap.packages['node_modules/better-sqlite3'].version).toBe(manifest.dependencies['better-sqlite3']);
    expect(shrinkwrap.packages).toHaveProperty(['node_modules/prebuild-install']);
    expect(Object.keys(shrinkwrap.packages).length).toBeLessThan(60);
    expect(read('THIRD_PARTY_LICENSES.md')).toMatch(/^## zod@/m);
    expect(statSync(tarball).size).toBeLessThan(10_000_000);
  });

  it('runs every step, the retry after the rejected push included', () => {
    expect(runs.map((r) => [r.name, r.code])).toEqual([
      ['Install memvault', 0],
      ['Put memvault on the PATH', 0],
      ['Fix the moment the build runs as', 0],
      ['Build the vault and commit', 0],
      ['Push', 0],
    ]);
    const push = runs.find((r) => r.name === 'Push')!;
    // The first push was rejected (the laptop's commit came first); the retry rebuilt and pushed.
    expect(push.stderr).toMatch(/rejected|fetch first|non-fast-forward/);
    expect(push.stdout).toMatch(/memvault build as of/);
  });

  it('both builds use the same now and profile, and the same API key', () => {
    const first = runs.find((r) => r.name === 'Build the vault and commit')!.stdout;
    const retry = runs.find((r) => r.name === 'Push')!.stdout;
    for (const output of [first, retry]) {
      expect(output).toContain(`memvault build as of ${new Date(NOW).toISOString()} (openai/nightly-model)`);
    }
    const calls = server.calls();
    expect(callsBeforePush).toBeGreaterThan(0);
    expect(calls.length).toBeGreaterThan(callsBeforePush);
    for (const call of calls) expect(call.headers.authorization).toBe('Bearer sk-nightly-test');
  });

  it("origin's main holds the laptop's memory and, on top, the rollup by memvault[bot], built as of the dispatch's now", () => {
    const log = git(origin, 'log', '-2', '--format=%an <%ae>|%cn|%s', 'main').split('\n');
    expect(log[0]).toMatch(
      /^memvault\[bot\] <memvault@users\.noreply\.github\.com>\|memvault\[bot\]\|memvault: rollup 2026-W07 — 3 daily, 1 weekly$/,
    );
    expect(log[1]).toBe('Ana <ana@example.com>|Ana|a memory from the laptop');
    const message = git(origin, 'log', '-1', '--format=%B', 'main');
    expect(message).toContain(`memvault build as of ${new Date(NOW).toISOString()} (openai/nightly-model)`);
    const files = git(origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(files).toEqual(
      expect.arrayContaining(['vault/main/daily/2026-02-14.md', 'vault/main/weekly/2026-W07.md', 'vault/main/UPLOAD_PACKAGE.md']),
    );
    const daily = git(origin, 'show', 'main:vault/main/daily/2026-02-14.md');
    expect(daily).toMatch(/model: nightly-model/);
  });

  it('a warm night: the cache restored memvault, so the install step is skipped and the next steps use the cached one', async () => {
    const job = parseYaml(readFileSync(path.join(work, 'runner', WORKFLOW), 'utf8')).jobs.rollup;
    const cache = job.steps.find((s: any) => String(s.uses ?? '').startsWith('actions/cache@'));
    // Up to the PATH step: what restoring the cache and installing decide. The prefix the first night filled is "restored".
    const steps = job.steps.slice(0, job.steps.findIndex((s: any) => s.name === 'Put memvault on the PATH') + 1);
    const temp = mkdtempSync(path.join(work, 'warm-temp-'));
    const started = performance.now();
    const warm = await runJob(
      { ...job, steps },
      {
        cwd: path.join(work, 'runner'),
        temp,
        baseEnv: runnerEnv(path.join(work, 'npm-global'), undefined, path.dirname(path.dirname(prefix))),
        context: { steps: { [cache.id]: { 'cache-hit': 'true' } }, github: { ref_name: 'main' } },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(warm.map((r) => [r.name, r.code])).toEqual([['Put memvault on the PATH', 0]]);
    expect(warm[0]!.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(readFileSync(path.join(temp, 'github-path'), 'utf8').trim()).toBe(path.join(prefix, 'bin'));
    // Seconds, not minutes (a loose bound: the machine is shared).
    expect(seconds).toBeLessThan(20);
  });

  it('the installed memvault knows its source: init in another repository installs the same commit', async () => {
    const bin = path.join(prefix, 'bin', 'memvault');
    const empty = mkdtempSync(path.join(work, 'other-'));
    const out = JSON.parse(execFileSync(bin, ['init', '--json'], { cwd: empty, encoding: 'utf8', env: runnerEnv(prefix) }));
    expect(out.install).toMatchObject({ kind: 'git', spec: expect.stringMatching(new RegExp(`#${stamped}$`)) });
    expect(parseYaml(readFileSync(path.join(empty, WORKFLOW), 'utf8')).jobs.rollup.env.MEMVAULT_INSTALL).toBe(out.install.spec);
    // The CLI the tests use runs from this checkout: it names the checkout's commit too.
    expect(CLI.startsWith(REPO)).toBe(true);
  });
});

describe('installed from a git URL', () => {
  // Slow (npm clones, installs the devDependencies and compiles: minutes); `npm run test:slow`.
  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'npm pack <git URL> compiles in the clone; the global install from it runs, and init names that URL and commit',
    () => {
      const work = mkdtempSync(path.join(os.tmpdir(), 'memvault-giturl-'));
      try {
        const clone = path.join(work, 'memvault');
        git(work, 'clone', '-q', REPO, clone);
        const commit = git(clone, 'rev-parse', 'HEAD');
        const prefix = path.join(work, 'prefix');
        const env = runnerEnv(prefix);
        const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work, `git+file://${clone}#${commit}`], {
          cwd: work,
          env,
          encoding: 'utf8',
        });
        const tarball = path.join(work, packed.trim().split('\n').pop()!);
        execFileSync('npm', ['install', '--global', '--no-fund', tarball], { cwd: work, env, stdio: 'pipe' });
        const bin = path.join(prefix, 'bin', 'memvault');
        expect(execFileSync(bin, ['--version'], { encoding: 'utf8', env }).trim()).toMatch(/^\d+\.\d+\.\d+/);
        const project = mkdtempSync(path.join(work, 'project-'));
        const out = JSON.parse(execFileSync(bin, ['init', '--json'], { cwd: project, encoding: 'utf8', env }));
        expect(out.install).toMatchObject({ kind: 'git', spec: expect.stringMatching(new RegExp(`#${commit}$`)) });
      } finally {
        removeProject(work);
      }
    },
    1_800_000,
  );
});
