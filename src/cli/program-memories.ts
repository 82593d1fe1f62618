import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `add`, `ingest`, `redact` and the history commands `log`, `diff`, `show`. Declared here, run by lazily imported commands (see main.ts). */
export function declareMemoryCommands(program: Command): void {
  declareAddCommand(program);
  declareIngestCommand(program);
  declareRedactCommand(program);
  declareLogCommand(program);
  declareDiffCommand(program);
  declareShowCommand(program);
}

/** `memvault add`: its arguments, options and help text. Run by the lazily imported `commands/add.ts`. */
function declareAddCommand(program: Command): void {
  program
    .command('add')
    .argument('[text]', 'the memory (markdown); read from stdin when missing or `-`')
    .description('Write a memory file: vault/<stream>/memories/YYYY/MM/YYYY-MM-DD-<slug>-<id>.md, secrets redacted. Prints its path.')
    .option('--title <title>', 'title (also names the file; default: the first words of the text)')
    .option('--tag <tag>', 'tag (repeatable, or comma-separated)', collect)
    .option('--kind <kind>', 'note, decision, error, fact, session, … (default: note)')
    .option('--importance <level>', 'low, normal, high or pinned (pinned: always in the package)')
    .option('--stream <name>', 'stream to write to, one memory.config.yaml declares (default: the first stream of the config)')
    .option('--create-stream', 'add the --stream to memory.config.yaml when it is not declared (default: refuse and list the streams)')
    .option('--date <date>', 'ISO date or datetime of the memory (default: now; also MEMVAULT_NOW)')
    .option('--no-redact', 'write secrets as they are (warns; they would end up in git history)')
    .option('--json', 'print the path and id as JSON')
    .addHelpText(
      'after',
      `
Examples:
  memvault add "Replaced JWT with server sessions: tokens grew past the cookie limit." --tag auth
  memvault add "Deploys need a green staging run." --importance pinned --kind decision
  git log -1 --format=%B | memvault add --title "Release notes" --tag release
  memvault add "Call with Farah about invoicing" --date 2026-02-13T14:05:00+01:00 --json`,
    )
    .action(async (text: string | undefined, options) =>
      (await import('./commands/add.js')).addCommand(text, { ...program.opts(), ...options }),
    );
}

/** `memvault ingest`: its arguments, options and help text. Run by the lazily imported `commands/ingest.ts`. */
function declareIngestCommand(program: Command): void {
  program
    .command('ingest')
    .argument('<files...>', 'transcripts: Claude Code .jsonl, OpenAI messages .json, ChatGPT conversations.json, .md/.txt')
    .description(
      'Import session transcripts as session memories, one per session and day, secrets redacted. Importing a file again changes nothing.',
    )
    .option('--stream <name>', 'stream to write to, one memory.config.yaml declares (default: the first stream of the config)')
    .option('--create-stream', 'add the --stream to memory.config.yaml when it is not declared (default: refuse and list the streams)')
    .option('--tag <tag>', 'tag every memory (repeatable)', collect)
    .option(
      '--format <format>',
      'claude-code, codex, gemini, cursor, openai, chatgpt or markdown (default: from the extension and content)',
    )
    .option('--primer', 'write a session primer (summary of what the next session needs) instead of the transcript')
    .option('--date <date>', 'date of messages without timestamps (OpenAI messages, undated notes; default: the file time)')
    .option('--no-redact', 'write secrets as they are (warns; they would end up in git history)')
    .option('--dry-run', 'show what would be written, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Formats: see docs/ingest.md. A session spanning several days gives one memory per day.
A file that cannot be read is reported as path:line:col with what was expected (exit 1);
the other files are imported all the same.

Examples:
  memvault ingest ~/.claude/projects/-home-ana-ledgerly/*.jsonl
  memvault ingest conversations.json --tag chatgpt --stream research
  memvault ingest chat.json --format openai --date 2026-02-13T14:00:00Z
  memvault ingest session.jsonl --primer        one summary instead of the transcript
  memvault ingest notes/*.md --dry-run`,
    )
    .action(async (files: string[], options) =>
      (await import('./commands/ingest.js')).ingestCommand(files, { ...program.opts(), ...options }),
    );
}

/** `memvault redact`: its arguments, options and help text. Run by the lazily imported `commands/redact.ts`. */
function declareRedactCommand(program: Command): void {
  program
    .command('redact')
    .argument('<paths...>', 'memory files, or folders to search for .md files')
    .description(
      'Replace secrets in memory files by [REDACTED:kind] markers, in place (atomically), and print what was ' +
        'replaced. The build holds back a memory holding a secret until it is redacted or allowed.',
    )
    .option('--dry-run', 'print what would be replaced, write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Prints path:line:col kind per secret replaced. What is allowed is left as it is: a line
holding memvault:allow-secret, and values listed under secrets.allow in memory.config.yaml
(exact text or /regex/). See docs/security.md.

Examples:
  memvault redact vault/main/memories/2026/02/2026-02-13-deploy.md
  memvault redact vault --dry-run
  memvault redact vault/main/memories --json | jq '.files[].path'`,
    )
    .action(async (paths: string[], options) =>
      (await import('./commands/redact.js')).redactCommand(paths, { ...program.opts(), ...options }),
    );
}

/** `memvault log`: its arguments, options and help text. Run by the lazily imported `commands/log.ts`. */
function declareLogCommand(program: Command): void {
  program
    .command('log')
    .description('The commits that changed a file (a summary, the package, a memory), newest first, with the generator of each version.')
    .argument('<path>', 'file path, relative to the current folder or to the vault')
    .option('--limit <n>', 'show at most this many versions')
    .option('--json', 'print the versions as JSON')
    .addHelpText(
      'after',
      `
Archived files are followed back to where they were before the archive moved them.

Examples:
  memvault log vault/main/weekly/2026-W07.md
  memvault log main/UPLOAD_PACKAGE.md --limit 5
  memvault log vault/main/daily/2026-02-13.md --json | jq '.versions[].generator'`,
    )
    .action(async (file: string, options) => (await import('./commands/log.js')).logCommand(file, { ...program.opts(), ...options }));
}

/** `memvault diff`: its arguments, options and help text. Run by the lazily imported `commands/diff.ts`. */
function declareDiffCommand(program: Command): void {
  program
    .command('diff')
    .description('A unified diff of a file between two committed versions (default: its last two versions).')
    .argument('<path>', 'file path, relative to the current folder or to the vault')
    .option(
      '--from <rev>',
      'older side: a commit id, HEAD~N, a branch or tag, or a date (YYYY-MM-DD = end of that day, or an ISO datetime)',
    )
    .option('--to <rev>', 'newer side (default: the newest committed version)')
    .option('--context <n>', 'lines of context around each change', '3')
    .addHelpText(
      'after',
      `
Examples:
  memvault diff vault/main/weekly/2026-W07.md                     what the last rebuild changed
  memvault diff vault/main/UPLOAD_PACKAGE.md --from 2026-02-13    the package then vs now
  memvault diff main/monthly/2026-02.md --from HEAD~3 --to HEAD~1`,
    )
    .action(async (file: string, options) => (await import('./commands/diff.js')).diffCommand(file, { ...program.opts(), ...options }));
}

/** `memvault show`: its arguments, options and help text. Run by the lazily imported `commands/show.ts`. */
function declareShowCommand(program: Command): void {
  program
    .command('show')
    .description('A file as it was committed at a date or revision, e.g. the UPLOAD_PACKAGE.md an agent saw on a given day.')
    .argument('<path>', 'file path, relative to the current folder or to the vault')
    .option(
      '--at <date|rev>',
      'a date (YYYY-MM-DD = the end of that day in the configured time zone, or an ISO datetime) or a revision (default: HEAD)',
    )
    .addHelpText(
      'after',
      `
Examples:
  memvault show vault/main/UPLOAD_PACKAGE.md --at 2026-02-13
  memvault show main/daily/2026-02-10.md --at 3f2a9c1
  memvault show vault/main/memories/2026/01/standup.md --at 2026-01-31T18:00:00Z   (archived since)`,
    )
    .action(async (file: string, options) => (await import('./commands/show.js')).showCommand(file, { ...program.opts(), ...options }));
}
