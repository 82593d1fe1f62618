#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { formatFailure } from '../messages/diagnostic.js';
import { declareFactCommands } from './program-facts.js';
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
    const [{ BuildPool }, { findRoot }] = await Promise.all([import('../pipeline/build-pool.js'), import('../config/file.js')]);
    const pool = BuildPool.create({ scanRoot: findRoot(program.opts<{ root?: string }>().root ?? process.cwd()) });
    return (await import('./commands/build.js')).buildCommand({ ...program.opts(), ...options }, pool);
  });

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
  .command('compact')
  .description(
    'Run the waterfall of agent streams (`waterfall: true`) now: fold the recent summary into the long-term one, summarize what left the verbatim window, rewrite CONTEXT.md.',
  )
  .option('--stream <name>', 'only this stream (default: every waterfall stream)')
  .option('--force', 'compact even if the next trigger count is not reached')
  .option(
    '--rebuild',
    'replay every compaction from the first memory (after memories were edited, deleted or added with old dates); old files are kept',
  )
  .option('--now <datetime>', 'fix the clock (ISO 8601); also MEMVAULT_NOW')
  .option('--dry-run', 'print the compactions that would run and write nothing')
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

program
  .command('init')
  .description(
    'Create memory.config.yaml, its JSON Schema, an empty vault, the .gitattributes entries that keep generated files out of line merges and a nightly rollup workflow (.github/workflows/memvault-nightly.yml) in the current folder.',
  )
  .option('--stream <name>', 'name of the first stream', 'main')
  .option('--no-workflow', 'do not write the nightly rollup workflow')
  .option(
    '--install-from <spec>',
    'npm spec the workflow installs memvault from (default: where this memvault came from: git URL + commit, or the registry version)',
  )
  .option('--pr', 'the workflow pushes the rollup to the branch memvault/rollup and opens a pull request (protected default branch)')
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

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

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

program
  .command('add')
  .argument('[text]', 'the memory (markdown); read from stdin when missing or `-`')
  .description('Write a memory file: vault/<stream>/memories/YYYY/MM/YYYY-MM-DD-<slug>.md, secrets redacted. Prints its path.')
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

program
  .command('ingest')
  .argument('<files...>', 'transcripts: Claude Code .jsonl, OpenAI messages .json, ChatGPT conversations.json, .md/.txt')
  .description(
    'Import session transcripts as session memories, one per session and day, secrets redacted. Importing a file again changes nothing.',
  )
  .option('--stream <name>', 'stream to write to (default: the first stream of the config)')
  .option('--tag <tag>', 'tag every memory (repeatable)', collect)
  .option('--format <format>', 'claude-code, openai, chatgpt or markdown (default: from the extension and content)')
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

program
  .command('redact')
  .argument('<paths...>', 'memory files, or folders to search for .md files')
  .description(
    'Replace secrets in memory files by [REDACTED:kind] markers, in place (atomically), and print what was replaced. The build holds back a memory holding a secret until it is redacted or allowed.',
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

program
  .command('diff')
  .description('A unified diff of a file between two committed versions (default: its last two versions).')
  .argument('<path>', 'file path, relative to the current folder or to the vault')
  .option('--from <rev>', 'older side: a commit id, HEAD~N, a branch or tag, or a date (YYYY-MM-DD = end of that day, or an ISO datetime)')
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

program
  .command('zoom')
  .argument('[period]', 'a day, ISO week, month, quarter, range A..B, or a phrase (today, yesterday, last week, last Tuesday)')
  .description('The full memories behind a period, from memories/ and archive/ alike, in time order, with the summaries that cover it.')
  .option('--stream <name>', 'stream to zoom into (default: the first stream of the config)')
  .option('--budget <tokens>', 'at most this many tokens of memories per page (configured tokenizer)')
  .option('--page <n>', 'page to show with --budget (default 1)')
  .option('--tier <tier>', 'show the daily, weekly or monthly summaries of the period instead of the memories')
  .option('--memories <from..to>', 'memories by number in the stream (1-based, e.g. 65..128), for waterfall streams')
  .option('--now <datetime>', 'what "today" and "last week" are relative to (ISO 8601); also MEMVAULT_NOW')
  .option('--json', 'print the zoom as JSON')
  .addHelpText(
    'after',
    `
Read-only: takes no lock, writes nothing. Phrases are read in the configured time zone.

Examples:
  memvault zoom 2026-02-13                   one day
  memvault zoom 2026-W07 --budget 2000       a week, 2,000 tokens a page
  memvault zoom 2026-W07 --budget 2000 --page 2
  memvault zoom 2026-Q1 --tier monthly       the monthly summaries of a quarter
  memvault zoom 2026-02-10..2026-02-14
  memvault zoom "last Tuesday" --stream agent
  memvault zoom --memories 65..128 --stream agent
  memvault zoom yesterday --json | jq '.memories[].path'`,
  )
  .action(async (period: string | undefined, options) =>
    (await import('./commands/zoom.js')).zoomCommand(period, { ...program.opts(), ...options }),
  );

program
  .command('search')
  .argument('<query...>', 'words, "quoted phrases" and filters: tag:auth kind:decision stream:main tier:weekly since:2026-02 until:2026-03')
  .description(
    'Ranked full-text search (BM25, stemmed, prefix and typo tolerant) over memories, the archive and summaries; hits of one day are grouped.',
  )
  .option('--stream <name>', 'only this stream (default: all)')
  .option('--tier <tier>', 'memories, daily, weekly, monthly, longterm or all (default: all)')
  .option('--since <period>', 'only what is about this day or later (a day, week, month, or phrase such as "last month")')
  .option('--until <period>', 'only what is about this period or earlier')
  .option('--limit <n>', 'at most this many days (groups) of hits (default 10)')
  .option('--reindex', 'bring the search index up to date with the vault first (build and watch do it on every run)')
  .option('--now <datetime>', 'what phrases in --since/--until are relative to (ISO 8601); also MEMVAULT_NOW')
  .option('--json', 'print the hits as JSON')
  .addHelpText(
    'after',
    `
Each hit: path:line, the period (zoom into it with \`memvault zoom <period>\`), a snippet with the
matched words marked **like this**, and the BM25 score. The index lives in .memvault/search/.

Examples:
  memvault search authentication
  memvault search "server sessions" tag:auth
  memvault search deploy kind:decision --since 2026-01
  memvault search payments --tier weekly --limit 5
  memvault search rollback --json | jq '.hits[] | "\\(.path):\\(.line)"'`,
  )
  .action(async (query: string[], options) =>
    (await import('./commands/search.js')).searchCommand(query, { ...program.opts(), ...options }),
  );

program
  .command('context')
  .description(
    'Assemble a context for what you are doing, within a token budget: critical (pinned, decisions, recent errors), relevant (search hits for the signals), background (conventions, long-term, latest monthly) and an index of what else to ask.',
  )
  .option('--budget <tokens>', 'at most this many tokens (configured tokenizer)', '8000')
  .option('--query <text>', 'what you are asking or working on')
  .option('--file <path>', 'the file being edited: its path, module and name are searched')
  .option('--error <text>', 'an error message: its first line is searched')
  .option('--branch <name>', 'the git branch (default: the checked-out branch, if any)')
  .option('--activity <kind>', 'debugging (widens critical), feature, review or planning')
  .option('--stream <name>', 'stream (default: the first stream of the config)')
  .option('--now <datetime>', 'what "the last 24 hours" is relative to (ISO 8601); also MEMVAULT_NOW')
  .option('--json', 'print {context, token_count, tiers, items: [{tier, source, tokens}]} as JSON')
  .addHelpText(
    'after',
    `
Shares: critical 25%, relevant 37.5%, background 25%, index 12.5%; a tier with less to say gives
its room to the others. Every item names its source so a model can \`memvault zoom\` into it.
Same vault, signals and --now: same output.

Examples:
  memvault context --budget 8000 --query "how do sessions expire?"
  memvault context --file src/auth/session.ts --activity feature
  memvault context --error "TypeError: token is undefined" --activity debugging --budget 4000
  memvault context --query payments --json | jq '.items[] | "\\(.tier) \\(.source)"'`,
  )
  .action(async (options) => (await import('./commands/context.js')).contextCommand({ ...program.opts(), ...options }));

program
  .command('mcp')
  .description(
    'Serve the vault to agents over the Model Context Protocol (stdio): tools context, search, zoom, add_memory, status; the packages and summaries as resources.',
  )
  .option('--no-watch', 'do not follow file changes (default: edits and new memories are answered within a second or two)')
  .addHelpText(
    'after',
    `
stdout carries protocol messages only; logs go to stderr. An MCP client starts it; register it with
\`memvault integrate claude-code\` or see the README for Claude Desktop, Cursor and Codex.

Examples:
  memvault mcp                                  what .mcp.json runs
  memvault -C ~/src/ledgerly mcp                serve another project's vault
  npx @modelcontextprotocol/inspector memvault mcp   try the tools by hand`,
  )
  .action(async (options) => (await import('./commands/mcp.js')).mcpCommand({ ...program.opts(), ...options }));

program
  .command('hook')
  .argument('<event>', 'session-start, pre-compact or session-end')
  .description(
    "Run a coding agent's session hook, reading the hook's JSON on stdin: session-start prints the memory the session starts with; pre-compact and session-end ingest the transcript.",
  )
  .option('--stream <name>', 'stream (default: hooks.stream of the config, else the first stream)')
  .option('--budget <tokens>', 'session-start: at most this many tokens (default: hooks.budget, 8000)')
  .option('--json', "print a JSON report instead (session-start: Claude Code's hookSpecificOutput form)")
  .addHelpText(
    'after',
    `
Never fails the agent's session: problems go to stderr and the exit code is 0. The project is the
one found from the hook's \`cwd\` (else the current folder).

Examples:
  echo '{"hook_event_name":"SessionStart","source":"startup","cwd":"."}' | memvault hook session-start
  memvault hook pre-compact < hook-input.json
  memvault integrate claude-code               writes these hooks into .claude/settings.json`,
  )
  .action(async (event: string, options) => (await import('./commands/hook.js')).hookCommand(event, { ...program.opts(), ...options }));

program
  .command('integrate')
  .argument('<agent>', 'claude-code')
  .description(
    'Register memvault with a coding agent: for claude-code, the MCP server in .mcp.json and the session hooks in .claude/settings.json, merged with what is there.',
  )
  .option('--dry-run', 'print the files as they would be, write nothing')
  .option('--command <cmd>', 'how the agent starts memvault (default: memvault; e.g. "npx memvault")')
  .option('--json', 'print what was added and kept as JSON')
  .addHelpText(
    'after',
    `
Existing servers, hooks and settings are kept; running it again changes nothing.

Examples:
  memvault integrate claude-code
  memvault integrate claude-code --dry-run
  memvault integrate claude-code --json | jq .files`,
  )
  .action(async (agent: string, options) =>
    (await import('./commands/integrate.js')).integrateCommand(agent, { ...program.opts(), ...options }),
  );

declareFactCommands(program);

async function main(): Promise<void> {
  // `memvault --help | head`: a reader that stops early is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
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
