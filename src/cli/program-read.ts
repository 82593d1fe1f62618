import type { Command } from 'commander';

/** `zoom`, `search` and `context`: the read side (read-only, no lock). Declared here, run by lazily imported commands (see main.ts). */
export function declareReadCommands(program: Command): void {
  declareZoomCommand(program);
  declareSearchCommand(program);
  declareContextCommand(program);
  declareVerifyCommand(program);
  declareSiteCommand(program);
}

/** `memvault zoom`: its arguments, options and help text. Run by the lazily imported `commands/zoom.ts`. */
function declareZoomCommand(program: Command): void {
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
    .option('--transcripts', 'with each distilled coding-agent session, its full transcript (transcripts/; not counted in --budget)')
    .option('--json', 'print the zoom as JSON')
    .addHelpText(
      'after',
      `
Writes nothing in the vault. Memories edited since the last build are parsed and kept in the parse cache
(.memvault/cache) when no build holds the lock. Phrases are read in the configured time zone.

Examples:
  memvault zoom 2026-02-13                   one day
  memvault zoom 2026-W07 --budget 2000       a week, 2,000 tokens a page
  memvault zoom 2026-W07 --budget 2000 --page 2
  memvault zoom 2026-Q1 --tier monthly       the monthly summaries of a quarter
  memvault zoom 2026-02-10..2026-02-14
  memvault zoom "last Tuesday" --stream agent
  memvault zoom --memories 65..128 --stream agent
  memvault zoom yesterday --json | jq '.memories[].path'
  memvault zoom 2026-03-10 --transcripts       each ingested session with its full transcript`,
    )
    .action(async (period: string | undefined, options) =>
      (await import('./commands/zoom.js')).zoomCommand(period, { ...program.opts(), ...options }),
    );
}

/** `memvault search`: its arguments, options and help text. Run by the lazily imported `commands/search.ts`. */
function declareSearchCommand(program: Command): void {
  program
    .command('search')
    .argument(
      '<query...>',
      'words, "quoted phrases" and filters: tag:auth kind:decision stream:main tier:weekly since:2026-02 until:2026-03',
    )
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
}

/** `memvault context`: its arguments, options and help text. Run by the lazily imported `commands/context.ts`. */
function declareContextCommand(program: Command): void {
  program
    .command('context')
    .description(
      'Assemble a context for what you are doing, within a token budget: critical (pinned, decisions, recent ' +
        'errors), relevant (search hits for the signals), background (conventions, long-term, latest monthly) and an ' +
        'index of what else to ask.',
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
}

/** `memvault verify`: its arguments, options and help text. Run by the lazily imported `commands/verify.ts`. */
function declareVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      "Check what memories cite (paths, path:line, commits, branches) against the repository's HEAD and list those " +
        'whose citations are gone, moved or changed since, stale first, with the fix.',
    )
    .option('--stream <name>', 'only this stream (default: all)')
    .option('--all', 'list every citing memory, verified ones too')
    .option('--full', 'ask git about every citation again, not only those of files changed since the last check')
    .option('--now <datetime>', 'the time the check is recorded at (ISO 8601); also MEMVAULT_NOW')
    .option('--json', 'print {repo, head, checked_at, stats, stale, memories: [{path, state, stale, citations, fix}]} as JSON')
    .addHelpText(
      'after',
      `
States: verified (nothing touched it since the memory's date), changed (N commits since), moved
(renamed; the new path given), gone (deleted: the commit and day). The build runs the same check;
results are kept in .memvault/state.sqlite. Writes nothing in the vault. See docs/citations.md.

Examples:
  memvault verify
  memvault verify --json | jq '.memories[] | select(.stale) | .path'
  memvault verify --all --stream main`,
    )
    .action(async (options) => (await import('./commands/verify.js')).verifyCommand({ ...program.opts(), ...options }));
}

/** `memvault site`: its arguments, options and help text. Run by the lazily imported `commands/site.ts`. */
function declareSiteCommand(program: Command): void {
  program
    .command('site')
    .description(
      'Write the vault as a static site: timeline per stream (years → months → weeks → days → memories), a page per ' +
        'memory, the package, index, review queue, facts, budget charts and full-text search. Only changed pages are rewritten.',
    )
    .option('--out <folder>', 'where to write it: a folder inside the project, outside the vault (default: site)')
    .option('--now <datetime>', 'the day facts in force are shown for (ISO 8601); also MEMVAULT_NOW')
    .option('--json', 'print {out, pages, written, removed, seconds} as JSON')
    .addHelpText(
      'after',
      `
Writes nothing in the vault; held-back memories (secrets) appear nowhere. Open site/index.html in a browser
(file:// works) or publish the folder (memvault init --pages adds a GitHub Pages deploy). See docs/site.md.

Examples:
  memvault site
  memvault site --out build/site
  memvault site --json | jq '.written | length'`,
    )
    .action(async (options) => (await import('./commands/site.js')).siteCommand({ ...program.opts(), ...options }));
}
