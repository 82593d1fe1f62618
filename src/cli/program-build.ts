import type { Command } from 'commander';

/** `build`, `status`, `compact`, `init` and `watch`: the write side. Declared here, run by lazily imported commands (see main.ts). */
export function declareBuildCommands(program: Command): void {
  declareBuildCommand(program);
  declareStatusCommand(program);
  declareCompactCommand(program);
  declareInitCommand(program);
  declareWatchCommand(program);
}

/** `memvault build`: its arguments, options and help text. Run by the lazily imported `commands/build.ts`. */
function declareBuildCommand(program: Command): void {
  program
    .command('build')
    .description('Roll memories up into daily, weekly, monthly and long-term summaries and write UPLOAD_PACKAGE.md and the index.')
    .option('--now <datetime>', 'fix the clock (ISO 8601); also MEMVAULT_NOW')
    .option('--force', 'also summarize incomplete periods and regenerate fresh summaries (hand edits are still kept)')
    .option('--through <date>', 'treat periods ending on or before this day (YYYY-MM-DD) as complete')
    .option('--dry-run', 'print the plan with estimated LLM calls and tokens per tier; write nothing, call nothing')
    .option(
      '--regenerate <path>',
      'generate this hand-edited summary again (repeatable); the edited version is kept in history/',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--no-commit', 'write the files but do not commit them (default: one git commit per build, see git.commit)')
    .option('--json', 'print the build report as JSON')
    .option('--strict', 'exit 1 when a rollup failed or was flagged over budget (default: report it, build the rest, exit 0)')
    .addHelpText(
      'after',
      `
Examples:
  memvault build                               build with the wall clock
  memvault build --now 2026-02-16T06:00:00Z    reproducible build as of a moment
  memvault build --dry-run                     what would be summarized, nothing written
  memvault build --through 2026-02-15          close the week of 2026-02-15 early
  memvault build --regenerate vault/main/daily/2026-02-13.md   replace a hand-edited summary
  memvault build --no-commit                   write files only; commit them yourself
  memvault build --json | jq .streams
  MEMVAULT_PROFILE=local memvault build        use the \`local\` LLM profile of memory.config.yaml
  memvault build --strict                      CI: fail when a summary could not be made`,
    )
    .action(async (options) => {
      // The pool (and a large vault's scan thread) starts before the pipeline's modules load, so its start-up overlaps theirs.
      const [{ BuildPool }, { findRoot }] = await Promise.all([import('../pipeline/workers/build-pool.js'), import('../config/file.js')]);
      const pool = BuildPool.create({ scanRoot: findRoot(program.opts<{ root?: string }>().root ?? process.cwd()) });
      return (await import('./commands/build.js')).buildCommand({ ...program.opts(), ...options }, pool);
    });
}

/** `memvault status`: its arguments, options and help text. Run by the lazily imported `commands/status.ts`. */
function declareStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Counts and sizes per tier against budgets, coverage, the review queue and invalid files.')
    .option('--stream <name>', 'only this stream (default: all)')
    .option('--now <datetime>', 'fix the clock (ISO 8601); also MEMVAULT_NOW')
    .option('--json', 'print the status as JSON')
    .addHelpText(
      'after',
      `
Examples:
  memvault status
  memvault status --json | jq '.streams[0].tiers'`,
    )
    .action(async (options) => (await import('./commands/status.js')).statusCommand({ ...program.opts(), ...options }));
}

/** `memvault compact`: its arguments, options and help text. Run by the lazily imported `commands/compact.ts`. */
function declareCompactCommand(program: Command): void {
  program
    .command('compact')
    .description(
      'Run the waterfall of agent streams (`waterfall: true`) now: fold the recent summary into the long-term one, ' +
        'summarize what left the verbatim window, rewrite CONTEXT.md.',
    )
    .option('--stream <name>', 'only this stream (default: every waterfall stream)')
    .option('--force', 'compact even if the next trigger count is not reached')
    .option(
      '--rebuild',
      'replay every compaction from the first memory (after memories were edited, deleted or added with old dates); old files are kept',
    )
    .option('--now <datetime>', 'fix the clock (ISO 8601); also MEMVAULT_NOW')
    .option('--dry-run', 'run the compactions with placeholder summaries and write nothing: what would run and be written')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Without --force it runs only the compactions the count calls for (129, 193, 257, … memories by default),
as \`memvault build\` does. It does not roll up calendar tiers nor rewrite INDEX.md (the next build does).

Examples:
  memvault compact                          compactions due, every waterfall stream
  memvault compact --stream agent --force   compact now, whatever the counts say
  memvault compact --rebuild                when \`memvault status\` reports an integrity problem
  memvault compact --dry-run --json`,
    )
    .action(async (options) => (await import('./commands/compact.js')).compactCommand({ ...program.opts(), ...options }));
}

/** `memvault init`: its arguments, options and help text. Run by the lazily imported `commands/init.ts`. */
function declareInitCommand(program: Command): void {
  program
    .command('init')
    .description(
      'Create memory.config.yaml, its JSON Schema, an empty vault, the .gitattributes entries that keep generated ' +
        'files out of line merges and a nightly rollup workflow (.github/workflows/memvault-nightly.yml) in the ' +
        'current folder.',
    )
    .option('--stream <name>', 'name of the first stream', 'main')
    .option('--no-workflow', 'do not write the nightly rollup workflow')
    .option(
      '--install-from <spec>',
      'npm spec the workflow installs memvault from (default: where this memvault came from: git URL + commit, or the registry version)',
    )
    .option('--pr', 'the workflow pushes the rollup to the branch memvault/rollup and opens a pull request (protected default branch)')
    .option('--pages', 'the workflow also publishes `memvault site` to GitHub Pages after the rollup (docs/site.md)')
    .option('--commit', 'commit the files init wrote, exactly those (default: print the git command that does)')
    .option('--json', 'print what was created (and what was kept because it already existed) as JSON')
    .addHelpText(
      'after',
      `
Existing files are never overwritten: they are kept and listed as such; .gitignore and
.gitattributes get memvault's lines appended once.

Examples:
  cd my-repo && memvault init
  memvault init --stream agent-alpha
  memvault init --no-workflow              no GitHub Actions workflow
  memvault init --commit                   and commit what it wrote
  memvault init --pr                       the nightly opens a pull request (protected default branch)
  memvault init --install-from github:ana/memvault#v0.2.0
  memvault init --json`,
    )
    .action(async (options) => (await import('./commands/init.js')).initCommand({ ...program.opts(), ...options }));
}

/** `memvault watch`: its arguments, options and help text. Run by the lazily imported `commands/watch.ts`. */
function declareWatchCommand(program: Command): void {
  program
    .command('watch')
    .description('Rebuild the affected outputs on every change to the vault or memory.config.yaml, until Ctrl-C. One line per rebuild.')
    .option('--now <datetime>', 'fix the clock for every rebuild (ISO 8601); also MEMVAULT_NOW (default: the time of each rebuild)')
    .option('--force', 'also summarize incomplete periods (today, this week) on every rebuild')
    .option('--through <date>', 'treat periods ending on or before this day (YYYY-MM-DD) as complete')
    .option('--debounce <ms>', 'quiet time after the last change before rebuilding (default 50)')
    .option('--commit-every <duration>', 'batch commits, e.g. 10m, 1h (default: no commits while watching)')
    .option('--json', 'one JSON object per rebuild, one per line')
    .addHelpText(
      'after',
      `
Edits settle before a rebuild (editors that save by rename or through temp files are handled);
the build's own writes never trigger one. An invalid edit is reported as path:line:col and the
last good version is used until it is fixed. Ctrl-C stops after the rebuild in progress.

Examples:
  memvault watch                              rebuild as you edit, with the wall clock
  memvault watch --force                      also keep today's daily summary up to date
  memvault watch --json | jq -c '{trigger, outputs, ms}'`,
    )
    .action(async (options) => (await import('./commands/watch.js')).watchCommand({ ...program.opts(), ...options }));
}
