import type { Command } from 'commander';

/** `memvault facts` and `memvault resolve`: declared here, run by lazily imported commands (see main.ts). */
export function declareFactCommands(program: Command): void {
  program
    .command('facts')
    .description('What holds now (or --at a day) per key and scope, each key’s history, and the open contradictions.')
    .option('--key <key>', 'only this key (`Primary DB` and `primary_db` are one key)')
    .option('--scope <scope>', 'only this scope')
    .option('--at <day>', 'the state on this day: a day, or what zoom takes (`2026-03`, `last week`); default today')
    .option('--all', 'also each key’s history: superseded and expired facts, with what replaced them')
    .option('--stream <name>', 'only this stream (default: all)')
    .option('--now <datetime>', 'what "today" is (ISO 8601); also MEMVAULT_NOW')
    .option('--json', 'print { at, facts, history?, contradictions, problems } as JSON')
    .option('--check', 'ask the model of the active LLM profile which decisions on one subject contradict (cached per pair)')
    .option('--max-pairs <n>', 'with --check: most alike pairs asked about (default 50)')
    .addHelpText(
      'after',
      `
Facts are memories of \`kind: fact\` (key, value, scope, supersedes, valid_from, valid_to) and lines
\`Fact: key = value (scope)\` in any memory. Two facts of one key and scope that hold at the same time
with different values are a contradiction until \`memvault resolve\` records a decision. Read-only.

Examples:
  memvault facts                          what holds today, and the open contradictions
  memvault facts --at 2026-03-01          what held on 1 March
  memvault facts --key primary_db --all   one key's history
  memvault facts --json | jq '.contradictions[].id'
  memvault facts --check --max-pairs 20   decisions a model judges contradicting, for you to confirm
  MEMVAULT_PROFILE=local memvault facts --check --json | jq '.contradictions[] | [.a.path, .b.path, .reason]'

--check pairs decisions and facts by search similarity, asks the model about each pair, and caches
the answer per pair of file contents (.memvault/facts-check.json): a rerun asks nothing.`,
    )
    .action(async (options) => (await import('./commands/facts.js')).factsCommand({ ...program.opts(), ...options }));

  program
    .command('resolve')
    .argument('<id>', 'a contradiction id from `memvault facts` (c-1a2b3c4d)')
    .description('Record which fact holds: supersedes (or compatible_with) in the memories’ frontmatter; nothing is deleted.')
    .requiredOption('--keep <a|b|both>', 'a or b: that fact supersedes the other; both: they hold together')
    .option('--note <text>', 'why, kept in resolution_notes of the memory written to')
    .option('--dry-run', 'show the edit, write nothing')
    .option('--now <datetime>', 'the date written with the note (ISO 8601); also MEMVAULT_NOW')
    .option('--json', 'print the contradiction and the edits as JSON')
    .addHelpText(
      'after',
      `
The edit is a normal change to your memory files: review it with git diff; the next build commits it.

Examples:
  memvault resolve c-1a2b3c4d --keep b --note "migrated to MySQL in March"
  memvault resolve c-1a2b3c4d --keep both      both hold (e.g. different services)
  memvault resolve c-1a2b3c4d --keep a --dry-run`,
    )
    .action(async (id: string, options) => (await import('./commands/resolve.js')).resolveCommand(id, { ...program.opts(), ...options }));

  program
    .command('consolidate')
    .description('Find near-duplicate memories; with --apply mark the extra copies `duplicate_of` (kept in place, left out of summaries).')
    .option('--apply', 'write `duplicate_of: <kept id>` into each copy (default: report only)')
    .option('--dry-run', 'report only (the default), for symmetry with build')
    .option('--stream <name>', 'only this stream (default: all)')
    .option('--threshold <0..1>', 'Jaccard similarity of word 3-shingles from which two memories are one (default 0.8)')
    .option('--json', 'print the groups as JSON')
    .addHelpText(
      'after',
      `
The memory kept is the most important, then the earliest. Nothing is deleted: remove a
\`duplicate_of\` line to undo.

Examples:
  memvault consolidate                     what would be merged
  memvault consolidate --apply             mark the copies
  memvault consolidate --threshold 0.9 --json`,
    )
    .action(async (options) => (await import('./commands/consolidate.js')).consolidateCommand({ ...program.opts(), ...options }));
}
