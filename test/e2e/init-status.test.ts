import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { build } from '../../src/pipeline/build.js';
import { commitAll, git, gitStatus, initRepo } from '../git/helpers.js';
import { lintWorkflow } from '../helpers/actionlint.js';
import {
  CLI,
  copyProject,
  createProject,
  memory,
  readJsonFile,
  readText,
  removeProject,
  runCli,
  runCliJson,
  writeFiles,
} from '../helpers/project.js';

/** `memvault init`, `memvault status` and the help texts, end to end. */

const roots: string[] = [];
/** A new empty folder, removed after the tests. */
const emptyDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
  roots.push(dir);
  return dir;
};
afterAll(() => roots.forEach(removeProject));

/**
 * `memvault init` run once in a new empty folder per output form, shared by
 * the tests that read what it wrote; a test that changes the folder works on
 * a copy (`copyProject`), so each init is paid for once.
 */
const once = <T>(make: () => Promise<T>): (() => Promise<T>) => {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
};
const initText = once(async () => {
  const root = emptyDir();
  return { root, result: await runCli(['init'], { cwd: root }) };
});
const initJson = once(async () => {
  const root = emptyDir();
  return { root, ...(await runCliJson(['init', '--json'], { cwd: root })) };
});
/** A copy of the folder `init --json` made, for a test that changes it. */
const initJsonCopy = async (): Promise<string> => {
  const copy = copyProject((await initJson()).root);
  roots.push(copy);
  return copy;
};

describe('memvault init', () => {
  it('creates a valid config, its JSON Schema and an empty vault, ignores .memvault/, and refuses to run twice', async () => {
    const { root, result: first } = await initText();
    expect(first.code, first.stderr).toBe(0);

    const config = readText(root, 'memory.config.yaml');
    expect(config.split('\n')[0]).toBe('# yaml-language-server: $schema=./memory.config.schema.json');
    expect(parseYaml(config)).toMatchObject({ vault: 'vault', streams: { main: { calendar: true } } });
    const schema = readJsonFile(root, 'memory.config.schema.json');
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['vault', 'timezone', 'calendar', 'upload', 'llm']));
    expect(statSync(path.join(root, 'vault/main/memories')).isDirectory()).toBe(true);
    expect(readText(root, '.gitignore').split('\n')).toContain('.memvault/');
    expect(first.stdout).toContain('vault/main/memories/');

    // The config it wrote is valid: status and build accept it.
    const status = await runCli(['status'], { cwd: root });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toBe('');

    const second = await runCli(['init'], { cwd: root });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^memvault: memory\.config\.yaml already exists/);
    expect(second.stderr).toContain('hint:');
    expect(readText(root, 'memory.config.yaml')).toBe(config);
  });

  it('appends to an existing .gitignore once, and takes a stream name', async () => {
    const root = emptyDir();
    writeFiles(root, { '.gitignore': 'node_modules' });
    const result = await runCli(['init', '--stream', 'agent-alpha'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    const lines = readText(root, '.gitignore').split('\n');
    expect(lines[0]).toBe('node_modules');
    expect(lines.filter((line) => line === '.memvault/')).toHaveLength(1);
    expect(existsSync(path.join(root, 'vault/agent-alpha/memories'))).toBe(true);
    expect(parseYaml(readText(root, 'memory.config.yaml')).streams).toHaveProperty('agent-alpha');

    const bad = await runCli(['init', '--stream', 'Agent Alpha'], { cwd: emptyDir() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Agent Alpha');
  });
});

describe('memvault init: the git-native files', () => {
  const WORKFLOW = '.github/workflows/memvault-nightly.yml';
  const ATTRIBUTES_LABEL = '.gitattributes (-merge for generated files)';
  const repoFile = (relative: string): string => readFileSync(fileURLToPath(new URL(`../../${relative}`, import.meta.url)), 'utf8');
  /** The commit of the checkout the tests run from: init run from a checkout installs exactly it. */
  const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
  }).trim();
  /** Non-comment, non-blank lines of a .gitattributes text. */
  const patternLines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

  it('writes the -merge block of .gitattributes and the nightly workflow, and lists them in --json and text output', async () => {
    const { root, json } = await initJson();
    expect(json).toEqual({
      root: expect.any(String),
      created: [
        'memory.config.yaml',
        'memory.config.schema.json',
        'vault/main/memories/.gitkeep',
        '.gitignore (.memvault/)',
        ATTRIBUTES_LABEL,
        WORKFLOW,
      ],
      kept: [],
      install: expect.objectContaining({ kind: 'checkout' }),
      commit: {
        status: 'not-committed',
        hint: expect.stringMatching(/^git add memory\.config\.yaml .* && git commit -m "memvault init"$/),
      },
    });
    const attributes = readText(root, '.gitattributes');
    expect(attributes.split('\n')[0]).toMatch(/^# memvault: /);
    expect(attributes).toContain('docs/git.md');
    expect(attributes).toContain('npx memvault build --no-commit');
    // The same patterns and attributes as memvault's own repository, in the same order.
    expect(patternLines(attributes)).toEqual(patternLines(repoFile('.gitattributes')));
    expect(parseYaml(readText(root, WORKFLOW)).jobs.rollup.env.MEMVAULT_INSTALL).toMatch(new RegExp(`#${HEAD}$`));
    expect(json.install).toMatchObject({ kind: 'checkout', spec: expect.stringMatching(new RegExp(`#${HEAD}$`)) });

    const text = (await initText()).result;
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`  ${ATTRIBUTES_LABEL}\n`);
    expect(text.stdout).toContain(`  ${WORKFLOW}\n`);
    expect(text.stdout).not.toContain('kept');
    expect(text.stdout).toContain('MEMVAULT_PROFILE');
  });

  it('appends the block to an existing .gitattributes once, keeping its content', async () => {
    const root = emptyDir();
    const existing = '*.png binary\n*.sh text eol=lf';
    writeFiles(root, { '.gitattributes': existing });
    const first = await runCliJson(['init', '--json'], { cwd: root });
    expect(first.json.created).toContain(ATTRIBUTES_LABEL);
    const after = readText(root, '.gitattributes');
    expect(after.startsWith(`${existing}\n\n# memvault: `)).toBe(true);
    expect(after.match(/^# memvault:/gm)).toHaveLength(1);

    // Run again (after removing the config, which init refuses to overwrite): nothing appended, reported as kept.
    rmSync(path.join(root, 'memory.config.yaml'));
    const second = await runCliJson(['init', '--json'], { cwd: root });
    expect(second.json.kept).toEqual(
      expect.arrayContaining([ATTRIBUTES_LABEL, WORKFLOW, 'memory.config.schema.json', '.gitignore (.memvault/)']),
    );
    expect(second.json.created).toEqual(['memory.config.yaml']);
    expect(readText(root, '.gitattributes')).toBe(after);

    // A block copied by hand from memvault's repository counts as there.
    const copied = emptyDir();
    writeFiles(copied, { '.gitattributes': repoFile('.gitattributes') });
    const third = await runCliJson(['init', '--json'], { cwd: copied });
    expect(third.json.kept).toContain(ATTRIBUTES_LABEL);
    expect(readText(copied, '.gitattributes')).toBe(repoFile('.gitattributes'));
  });

  it('keeps an existing workflow file byte for byte and says so', async () => {
    const root = emptyDir();
    const mine = 'name: my own nightly\r\non: push\r\njobs: {}\r\n# hand-tuned\r\n';
    writeFiles(root, { [WORKFLOW]: mine, '.github/workflows/ci.yml': 'name: CI\n' });
    const result = await runCli(['init'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(root, WORKFLOW), 'utf8')).toBe(mine);
    expect(readText(root, '.github/workflows/ci.yml')).toBe('name: CI\n');
    expect(result.stdout).toMatch(new RegExp(`kept \\(already there\\):\\n(  .*\\n)*  ${WORKFLOW.replace(/\./g, '\\.')}\\n`));
    expect(result.stdout.slice(0, result.stdout.indexOf('kept'))).not.toContain(WORKFLOW);
  });

  it('--no-workflow writes no workflow', async () => {
    const root = emptyDir();
    const { json } = await runCliJson(['init', '--no-workflow', '--json'], { cwd: root });
    expect(existsSync(path.join(root, '.github'))).toBe(false);
    expect(json.created).not.toContain(WORKFLOW);
    expect(json.kept).not.toContain(WORKFLOW);
    expect(json.created).toContain(ATTRIBUTES_LABEL);
  });

  it('passes actionlint and agrees with the repository nightly-rollup.yml: triggers, permissions, concurrency, checkout, secrets, push', async () => {
    const { root } = await initJson();
    const text = readText(root, WORKFLOW);
    expect(await lintWorkflow(text, WORKFLOW)).toEqual([]);

    const ours = parseYaml(text);
    const repo = parseYaml(repoFile('.github/workflows/nightly-rollup.yml'));
    for (const key of ['on', 'permissions', 'concurrency']) expect(ours[key], key).toEqual(repo[key]);
    expect(ours.permissions).toEqual({});
    expect(Object.keys(ours.jobs)).toEqual(Object.keys(repo.jobs));
    const [job, repoJob] = [ours.jobs.rollup, repo.jobs.rollup];
    for (const key of ['runs-on', 'timeout-minutes', 'permissions']) expect(job[key], key).toEqual(repoJob[key]);
    // One set of settings for every build of the job (the retry after a rejected push included): the job's env.
    const { MEMVAULT_INSTALL, ...jobEnv } = job.env;
    expect(jobEnv).toEqual(repoJob.env);
    expect(MEMVAULT_INSTALL).toMatch(new RegExp(`#${HEAD}$`));
    expect(job.env).toMatchObject({
      MEMVAULT_PROFILE: '${{ secrets.MEMVAULT_PROFILE }}',
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
      GIT_AUTHOR_NAME: 'memvault[bot]',
    });
    expect(job.permissions).toEqual({ contents: 'write' });

    const find = (steps: any[], test: (step: any) => boolean, what: string): any => {
      const step = steps.find(test);
      if (!step) throw new Error(`no ${what} step`);
      return step;
    };
    const uses = (action: string) => (step: any) => String(step.uses ?? '').startsWith(`${action}@`);
    const runs = (pattern: RegExp) => (step: any) => pattern.test(step.run ?? '');
    // The repository runs memvault from its checkout (`npx memvault`); a vault repository from the installed package.
    const normalize = (script: string): string => script.replace(/npx memvault build/g, 'memvault build');

    expect(find(job.steps, uses('actions/checkout'), 'checkout')).toEqual(find(repoJob.steps, uses('actions/checkout'), 'checkout'));
    expect(find(job.steps, uses('actions/checkout'), 'checkout').with).toMatchObject({ 'fetch-depth': 0, 'persist-credentials': true });
    const setupNode = find(job.steps, uses('actions/setup-node'), 'setup-node');
    expect(setupNode.with['node-version']).toBe(find(repoJob.steps, uses('actions/setup-node'), 'setup-node').with['node-version']);
    expect(setupNode.with).not.toHaveProperty('cache'); // a vault repository has no package-lock.json
    expect(job.steps.some(runs(/\bnpm ci\b/))).toBe(false);
    expect(setupNode.with['node-version']).toBe(24);
    const install = find(job.steps, runs(/npm install --global/), 'install');
    expect(install.run).toContain('"$MEMVAULT_INSTALL"');
    // Installed once per MEMVAULT_INSTALL: the cache, keyed on it (and on platform and Node major), restores it on later nights.
    const cache = find(job.steps, uses('actions/cache'), 'cache');
    expect(cache.with).toEqual({
      path: '~/.cache/memvault',
      key: 'memvault-${{ runner.os }}-${{ runner.arch }}-node24-${{ env.MEMVAULT_INSTALL }}',
    });
    expect(job.steps.indexOf(cache)).toBeLessThan(job.steps.indexOf(install));
    expect(install.if).toBe(`steps.${cache.id}.outputs.cache-hit != 'true'`);
    expect(install.run).toMatch(/npm install --global --prefix "\$HOME\/\.cache\/memvault" --allow-scripts=better-sqlite3 /);
    expect(find(job.steps, runs(/GITHUB_PATH/), 'PATH').run).toContain('echo "$HOME/.cache/memvault/bin" >> "$GITHUB_PATH"');
    const fixNow = find(job.steps, (s) => s.name === 'Fix the moment the build runs as', 'now');
    expect(fixNow).toEqual(find(repoJob.steps, (s) => s.name === 'Fix the moment the build runs as', 'now'));

    const build = find(job.steps, (s) => s.name === 'Build the vault and commit', 'build');
    const repoBuild = find(repoJob.steps, (s) => s.name === 'Build the vault and commit', 'build');
    expect(build.env).toBeUndefined();
    expect(repoBuild.env).toBeUndefined();
    expect(build.run).toBe(normalize(repoBuild.run));
    const push = find(job.steps, (s) => s.name === 'Push', 'push');
    const repoPush = find(repoJob.steps, (s) => s.name === 'Push', 'push');
    expect(push.env).toEqual(repoPush.env);
    expect(push.run.replace(/memvault's docs\/git\.md/g, 'docs/git.md')).toBe(normalize(repoPush.run));
  });

  it('warns, with the fix, when the workflow would install from a path or git+file: URL GitHub cannot reach', async () => {
    const local = await runCli(['init', '--install-from', `git+file:///srv/memvault#${HEAD}`], { cwd: emptyDir() });
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).toMatch(
      /^memvault: warning: the nightly workflow installs memvault from git\+file:\/\/\/srv\/memvault#[0-9a-f]+, a git repository on this machine, which GitHub's runners cannot reach \(fine on a self-hosted runner that has it\)\. /,
    );
    expect(local.stderr).toContain('Set MEMVAULT_INSTALL in .github/workflows/memvault-nightly.yml to ');
    expect(local.stderr).toContain('https://github.com/OWNER/memvault/releases/download/vX.Y.Z/memvault-X.Y.Z.tgz');
    expect(local.stderr).toContain('--install-from SPEC');

    const tarball = await runCliJson(['init', '--install-from', '../memvault-0.1.0.tgz', '--json'], { cwd: emptyDir() });
    expect(tarball.json.install).toMatchObject({
      kind: 'flag',
      reachable: false,
      warning: expect.stringContaining('a path on this machine'),
    });

    const release = 'https://github.com/ana/memvault/releases/download/v0.2.0/memvault-0.2.0.tgz';
    const reachable = await runCliJson(['init', '--install-from', release, '--json'], { cwd: emptyDir() });
    expect(reachable.json.install).toEqual({ spec: release, kind: 'flag' });
    expect(reachable.result.stderr).toBe('');
  });

  /** `init --pr --commit` once, in a new git repository with no commit yet: the two flags' tests share it. */
  const initPrCommit = once(async () => {
    const root = emptyDir();
    initRepo(root);
    return { root, ...(await runCliJson(['init', '--pr', '--commit', '--json'], { cwd: root })) };
  });

  it('--pr: the workflow passes actionlint, may write pull requests, force-pushes to memvault/rollup and opens a pull request', async () => {
    const { root, json } = await initPrCommit();
    expect(json.created).toContain(WORKFLOW);
    const text = readText(root, WORKFLOW);
    expect(await lintWorkflow(text, WORKFLOW)).toEqual([]);
    const workflow = parseYaml(text);
    expect(workflow.permissions).toEqual({});
    expect(workflow.jobs.rollup.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    const push = workflow.jobs.rollup.steps.find((s: any) => /git push/.test(s.run ?? ''));
    expect(push.name).toBe('Push to memvault/rollup and open a pull request');
    expect(push.run).toContain('git push --force origin "HEAD:refs/heads/memvault/rollup"');
    expect(push.run).toMatch(/gh pr create --base "\$BASE" --head "memvault\/rollup"/);
    expect(push.env).toEqual({ BASE: '${{ github.ref_name }}', GH_TOKEN: '${{ github.token }}' });
    // The rollup never goes to the default branch itself.
    expect(push.run).not.toMatch(/HEAD:\$BRANCH|HEAD:"\$BASE"|HEAD:\$BASE/);
  });

  it('--commit: one commit of exactly the files init wrote, and a clean work tree', async () => {
    const { root, json } = await initPrCommit();
    expect(json.commit).toEqual({
      status: 'committed',
      oid: expect.stringMatching(/^[0-9a-f]{40}$/),
      branch: 'main',
      files: expect.any(Array),
    });
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(json.commit.oid);
    expect(git(root, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    expect(git(root, 'log', '-1', '--format=%s').trim()).toBe('memvault init');
    const files = git(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    expect(files).toEqual(
      [
        '.gitattributes',
        '.github/workflows/memvault-nightly.yml',
        '.gitignore',
        'memory.config.schema.json',
        'memory.config.yaml',
        'vault/main/memories/.gitkeep',
      ].sort(),
    );
    expect([...json.commit.files].sort()).toEqual(files);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it("the workflow's build step, run in an init'ed repository without secrets, builds offline and commits as memvault[bot]", async () => {
    const root = await initJsonCopy();
    writeFiles(root, {
      'vault/main/memories/2026-02-12.md': memory({ date: '2026-02-12T10:00:00Z', title: 'Standup', body: 'Planned the billing rewrite.' }),
    });
    initRepo(root);
    commitAll(root, 'memvault init');

    const job = parseYaml(readText(root, WORKFLOW)).jobs.rollup;
    const step = job.steps.find((s: any) => s.name === 'Build the vault and commit');
    expect(String(step.run).match(/^memvault build$/gm)).toHaveLength(1);
    const script = String(step.run).replace(/^memvault build$/m, `node ${JSON.stringify(CLI)} build --json > report.json`);
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_') && !key.startsWith('GIT_')) env[key] = value;
    // The job's env as GitHub gives it without secrets (empty strings), and the now the previous step fixed.
    for (const [key, value] of Object.entries<string>(job.env)) env[key] = value.startsWith('${{ secrets.') ? '' : value;
    env.MEMVAULT_NOW = '2026-02-16T06:00:00Z';
    execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env, stdio: 'pipe' });
    const report = JSON.parse(readText(root, 'report.json'));
    expect(report.generator.provider).toBe('extractive');
    expect(report.now).toBe('2026-02-16T06:00:00.000Z'); // MEMVAULT_NOW, as the workflow's previous step fixes it
    expect(git(root, 'log', '-1', '--format=%an <%ae>|%s').trim()).toBe(
      'memvault[bot] <memvault@users.noreply.github.com>|memvault: rollup 2026-W07 — 1 daily, 1 weekly',
    );
  });

  it("in an init'ed repository, a generated file both sides changed keeps our side whole (-merge); memories merge as usual", async () => {
    const root = await initJsonCopy();
    const DAILY = 'vault/main/daily/2026-02-12.md';
    writeFiles(root, { [DAILY]: 'base\n' });
    initRepo(root);
    commitAll(root, 'setup');
    expect(git(root, 'check-attr', 'merge', '--', DAILY, 'vault/INDEX.md', 'vault/main/memories/a.md').trim().split('\n')).toEqual([
      `${DAILY}: merge: unset`,
      'vault/INDEX.md: merge: unset',
      'vault/main/memories/a.md: merge: unspecified',
    ]);

    git(root, 'checkout', '-q', '-b', 'server');
    writeFiles(root, {
      [DAILY]: 'base\nfrom the server\n',
      'vault/main/memories/server.md': memory({ date: '2026-02-12T15:00:00Z', body: 'Export done.' }),
    });
    commitAll(root, 'server');
    git(root, 'checkout', '-q', 'main');
    writeFiles(root, {
      [DAILY]: 'base\nfrom the laptop\n',
      'vault/main/memories/laptop.md': memory({ date: '2026-02-12T10:00:00Z', body: 'Fixed rounding.' }),
    });
    commitAll(root, 'laptop');

    expect(gitStatus(root, 'merge', '--no-edit', 'server').code).not.toBe(0);
    expect(git(root, 'diff', '--name-only', '--diff-filter=U').trim().split('\n')).toEqual([DAILY]);
    expect(readText(root, DAILY)).toBe('base\nfrom the laptop\n');
    expect(readText(root, 'vault/main/memories/server.md')).toContain('Export done.');
  });
});

describe('memvault status', () => {
  const M = 'vault/main/memories';
  let root: string;
  afterAll(() => removeProject(root));

  it('reports per-tier counts and the package size after a build', async () => {
    const files: Record<string, string> = {};
    // Mon 2026-02-09 … Wed 2026-02-18: W07 complete, W08 not.
    for (const day of ['2026-02-09', '2026-02-10', '2026-02-11', '2026-02-13', '2026-02-16', '2026-02-17', '2026-02-18']) {
      files[`${M}/${day}.md`] = memory({
        date: `${day}T10:00:00Z`,
        title: `Notes of ${day}`,
        body: `Reviewed the deploy checklist on ${day}.`,
      });
    }
    files[`${M}/rule.md`] = memory({
      date: '2026-02-10T12:00:00Z',
      title: 'Rule',
      importance: 'pinned',
      body: 'Rotate keys every 90 days.',
    });
    root = createProject(files, 'timezone: UTC\ncalendar:\n  daily: { target_tokens: 400, max_bytes: 4096 }\n');

    const before = await runCliJson(['status', '--json'], { cwd: root });
    expect(before.json.streams[0].package).toBeNull();
    expect(before.json.streams[0].tiers.daily.count).toBe(0);

    // The build only sets the scene for `status`: in-process.
    await build({ root, now: new Date('2026-02-18T15:00:00Z') });
    const { json } = await runCliJson(['status', '--json'], { cwd: root });
    const stream = json.streams[0];
    expect(stream).toMatchObject({ name: 'main', memories: 8, pinned: 1, archived: 0 });
    expect(stream.coverage).toEqual({ first_day: '2026-02-09', last_day: '2026-02-18', days_with_memories: 7 });
    expect(Object.fromEntries(Object.entries(stream.tiers).map(([tier, t]: [string, any]) => [tier, t.count]))).toEqual({
      daily: 6,
      weekly: 1,
      monthly: 0,
      longterm: 0,
    });
    expect(stream.tiers.daily.budget_tokens).toBe(400);
    expect(stream.tiers.daily.tokens_max).toBeGreaterThan(0);
    expect(stream.tiers.daily.tokens_max).toBeLessThanOrEqual(stream.tiers.daily.budget_tokens);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(stream.package).toMatchObject({
      path: expect.stringMatching(/^(vault\/)?main\/UPLOAD_PACKAGE\.md$/),
      tokens: manifest.tokens,
      bytes: manifest.bytes,
      max_tokens: 8750,
      max_bytes: 35840,
    });
    expect(stream.package.bytes).toBe(readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.md')).length);
    expect(json.invalid).toEqual([]);

    const text = await runCli(['status'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^main: 8 memories/m);
    expect(text.stdout).toMatch(/^ {2}daily +6 /m);
    expect(text.stdout).toMatch(
      new RegExp(`package: (vault/)?main/UPLOAD_PACKAGE\\.md ${manifest.tokens.toLocaleString('en-US')}/8,750 tokens`),
    );
  });
});

describe('help', () => {
  let root: string;
  afterAll(() => removeProject(root));

  it.each(['build', 'status', 'init'])('`memvault %s --help` exits 0 and shows examples', async (command) => {
    root ??= createProject({});
    const result = await runCli([command, '--help'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: memvault ${command}`);
    expect(result.stdout).toContain('Examples');
    expect(result.stdout).toMatch(new RegExp(`^ +memvault ${command}\\b`, 'm'));
  });
});
