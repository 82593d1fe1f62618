#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { formatFailure } from '../messages/diagnostic.js';
import { declareAgentCommands } from './program-agents.js';
import { declareBuildCommands } from './program-build.js';
import { declareFactCommands } from './program-facts.js';
import { declareMemoryCommands } from './program-memories.js';
import { declareReadCommands } from './program-read.js';
import { UserError } from '../util/errors.js';
import { guardWritesOfThisProcess } from '../util/inside.js';

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

declareBuildCommands(program);
declareMemoryCommands(program);
declareReadCommands(program);
declareAgentCommands(program);
declareFactCommands(program);

async function main(): Promise<void> {
  // `memvault --help | head`: a reader that stops early is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  guardWritesOfThisProcess();
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
    process.stderr.write(formatFailure(error));
    return 1;
  }
  const detail = error instanceof Error ? (process.env.MEMVAULT_DEBUG ? error.stack : error.message) : String(error);
  process.stderr.write(
    `memvault: internal error: ${detail}\n  hint: this is a bug; rerun with MEMVAULT_DEBUG=1 for the stack trace and report it\n`,
  );
  return 2;
}

await main();
