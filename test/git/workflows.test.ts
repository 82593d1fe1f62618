import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIONS, WORKFLOW_NODE } from '../../src/project/init-templates.js';
import { actionlint, lintWorkflow, shellcheckMissing, shellcheckWorkflow } from '../helpers/actionlint.js';
import { CLI, createProject, memory, removeProject } from '../helpers/project.js';
import { git, initRepo } from './helpers.js';

/**
 * The GitHub Actions workflows, linted with actionlint and shellcheck
 * (test/helpers/actionlint.ts), then checked for the least-privilege shape,
 * and the nightly build step run for real in a temporary repository (slow: the
 * same step of the workflow `memvault init` writes runs by default in
 * test/e2e/init-status.test.ts).
 */

const WORKFLOWS = fileURLToPath(new URL('../../.github/workflows/', import.meta.url));
const FILES = ['ci.yml', 'nightly-rollup.yml', 'release.yml'] as const;
const read = (name: string) => readFileSync(`${WORKFLOWS}${name}`, 'utf8');
/** Why the shellcheck tests are skipped, in their names (empty when they run). */
const SKIPPED = shellcheckMissing ? ` (skipped: ${shellcheckMissing})` : '';

describe('GitHub Actions workflows', () => {
  for (const name of FILES) {
    it(`${name} passes actionlint and shellcheck`, async () => {
      expect(await lintWorkflow(read(name), `.github/workflows/${name}`)).toEqual([]);
    });
  }

  it('actionlint does catch mistakes (the check above can fail)', async () => {
    const broken = read('nightly-rollup.yml')
      .replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-latest\n    needs: [nope]')
      .replace('NOW: ${{ inputs.now }}', 'NOW: ${{ inputs.nowz }}')
      .replace(`uses: ${ACTIONS.checkout}`, 'uses: actions/checkout@v1');
    const messages = (await actionlint(broken, 'nightly-rollup.yml')).map((r) => r.message);
    expect(messages.some((m) => m.includes('"nope"'))).toBe(true);
    expect(messages.some((m) => m.includes('nowz'))).toBe(true);
    expect(messages.some((m) => m.includes('too old'))).toBe(true);
  });

  it.skipIf(shellcheckMissing !== undefined)(`shellcheck does catch mistakes in run: scripts${SKIPPED}`, () => {
    const broken = read('nightly-rollup.yml').replace('git push origin "HEAD:$BRANCH"', 'git push origin HEAD:$BRANCH');
    const findings = shellcheckWorkflow(broken);
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(/steps\[\d+\] \(Push\): SC2086: /)]);
    // A masked expression is not a finding (as in actionlint): the same text with ${{ }} in a script passes.
    expect(shellcheckWorkflow(read('release.yml'))).toEqual([]);
  });

  it('every official action at its current major version, Node at the active LTS', () => {
    for (const name of FILES) {
      for (const [job, spec] of Object.entries<any>(parse(read(name)).jobs)) {
        for (const step of spec.steps) {
          const uses = String(step.uses ?? '');
          if (!uses.startsWith('actions/')) continue;
          expect(Object.values(ACTIONS), `${name} ${job}: ${uses}`).toContain(uses);
          if (uses === ACTIONS.setupNode) expect(step.with['node-version'], `${name} ${job}`).toBe(WORKFLOW_NODE);
        }
      }
    }
  });

  it('grants nothing at the top and only what each job needs; only the pushing job may write', () => {
    for (const name of FILES) {
      const workflow = parse(read(name));
      expect(workflow.permissions, name).toEqual({});
      expect(workflow.concurrency?.group, name).toEqual(expect.any(String));
      for (const [job, spec] of Object.entries<any>(workflow.jobs)) {
        expect(spec.permissions, `${name} ${job}`).toBeTypeOf('object');
        const pushes = spec.steps.some((step: any) => /git push/.test(step.run ?? ''));
        const releases = spec.steps.some((step: any) => /gh release create/.test(step.run ?? ''));
        expect(spec.permissions.contents, `${name} ${job}`).toBe(pushes || releases ? 'write' : 'read');
        const checkout = spec.steps.find((step: any) => String(step.uses ?? '').startsWith('actions/checkout@'));
        // Only a job that pushes with git keeps the token in .git/config; the release uploads through gh with GH_TOKEN.
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

  it("nightly is opt-in (off in memvault's own repository unless MEMVAULT_NIGHTLY is true)", () => {
    const nightly = parse(read('nightly-rollup.yml'));
    expect(nightly.jobs.rollup.if).toBe("vars.MEMVAULT_NIGHTLY == 'true'");
    expect(read('nightly-rollup.yml')).toMatch(/^# .*MEMVAULT_NIGHTLY/m);
  });

  it('release: on version tags; checks the tag against package.json, packs with pack:release, installs and runs the tarball, uploads it', () => {
    const release = parse(read('release.yml'));
    expect(release.on).toEqual({ push: { tags: ['v*'] } });
    expect(release.concurrency['cancel-in-progress']).toBe(false);
    const runs = release.jobs.release.steps.map((s: any) => String(s.run ?? '')).join('\n');
    expect(runs).toMatch(/"\$TAG" != "v\$version"/);
    expect(runs).toMatch(
      /npm run pack:release -- --out "\$RUNNER_TEMP\/release" \\\n\s+--release-url "https:\/\/github\.com\/\$GITHUB_REPOSITORY\/releases\/download\/\$TAG\/memvault-\$version\.tgz"/,
    );
    expect(runs).toMatch(/npm install --global --prefix "\$RUNNER_TEMP\/prefix" --allow-scripts=better-sqlite3 .*"\$TARBALL"/);
    expect(runs).toMatch(/gh release create "\$TAG" "\$TARBALL"/);
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

    // The same script in the same job env as the workflow `memvault init` writes (test/e2e/init-status.test.ts checks
    // they agree and runs that one by default in an init'ed repository): this run is slow, MEMVAULT_SLOW=1.
    it.skipIf(process.env.MEMVAULT_SLOW !== '1')('without secrets builds with the embedded summarizer and commits as memvault[bot]', () => {
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
