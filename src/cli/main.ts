#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { UserError } from '../util/errors.js';

/**
 * The CLI entry: declares commands and flags, lazy-imports each command so
 * `--help` and small commands start fast, and is the only place that exits.
 * Exit codes: 0 success, 1 a user error (one line with a hint), 2 internal.
 */

const program = new Command()
  .name('memvault')
  .description('A git-native memory vault for LLM agents: markdown memories rolled up into a bounded temporal pyramid.')
  .version('0.1.0')
  .option('-C, --root <dir>', 'project folder (default: nearest folder upwards with memory.config.yaml)')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

program
  .command('build')
  .description('Roll memories up into daily, weekly, monthly and long-term summaries and write UPLOAD_PACKAGE.md and the index.')
  .option('--now <datetime>', 'fix the clock (ISO 8601); also MEMVAULT_NOW')
  .option('--force', 'also summarize incomplete periods and regenerate fresh summaries (hand edits are still kept)')
  .option('--through <date>', 'treat periods ending on or before this day (YYYY-MM-DD) as complete')
  .option('--dry-run', 'print the plan and write nothing')
  .option('--no-commit', 'do not commit the result (commits come with git support; builds only write files for now)')
  .option('--json', 'print the build report as JSON')
  .addHelpText(
    'after',
    `
Examples:
  memvault build                               build with the wall clock
  memvault build --now 2026-02-16T06:00:00Z    reproducible build as of a moment
  memvault build --dry-run                     what would be summarized, nothing written
  memvault build --through 2026-02-15          close the week of 2026-02-15 early
  memvault build --json | jq .streams`,
  )
  .action(async (options) => (await import('./commands/build.js')).buildCommand({ ...program.opts(), ...options }));

program
  .command('status')
  .description('Counts and sizes per tier against budgets, coverage, the review queue and invalid files.')
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

program
  .command('init')
  .description('Create memory.config.yaml, its JSON Schema and an empty vault in the current folder.')
  .option('--stream <name>', 'name of the first stream', 'main')
  .option('--json', 'print what was created as JSON')
  .addHelpText(
    'after',
    `
Examples:
  cd my-repo && memvault init
  memvault init --stream agent-alpha`,
  )
  .action(async (options) => (await import('./commands/init.js')).initCommand({ ...program.opts(), ...options }));

async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed help, the version or the usage error.
    return error.exitCode === 0 ? 0 : 1;
  }
  if (error instanceof UserError) {
    process.stderr.write(`memvault: ${error.message}\n${error.hint ? `  hint: ${error.hint}\n` : ''}`);
    return 1;
  }
  const detail = error instanceof Error ? (process.env.MEMVAULT_DEBUG ? error.stack : error.message) : String(error);
  process.stderr.write(`memvault: internal error: ${detail}\n  hint: this is a bug; rerun with MEMVAULT_DEBUG=1 for the stack trace and report it\n`);
  return 2;
}

await main();
