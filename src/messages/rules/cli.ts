import type { RuleGroup } from '../rule.js';

/** Flags and arguments of a command: it stops before it reads or writes anything. */
export const CLI_RULES = {
  'cli/now': {
    title: '`--now` (or MEMVAULT_NOW) is not an ISO 8601 datetime',
    severity: 'error',
    hint: 'use e.g. --now 2026-02-13T18:00:00Z or --now 2026-02-13',
  },
  'cli/through': {
    title: '`--through` is not a date',
    severity: 'error',
    hint: 'use YYYY-MM-DD, e.g. --through 2026-02-15',
  },
  'cli/date': {
    title: '`--date` is not an ISO 8601 date or datetime',
    severity: 'error',
    hint: 'use e.g. --date 2026-02-13 or --date 2026-02-13T14:05:00+01:00',
  },
  'cli/duration': {
    title: 'A duration flag is not a duration',
    severity: 'error',
    hint: 'use e.g. {flag} 10m, {flag} 90s or {flag} 1h',
  },
  'cli/number': {
    title: 'A number flag is not a positive whole number',
    severity: 'error',
    hint: 'e.g. {flag} {example}',
  },
  'ops/input': {
    title: 'An argument of a command or MCP tool does not fit the operation',
    severity: 'error',
    hint: "see `memvault <command> --help`, or the tool's inputSchema in `tools/list`; docs/operations.md lists every operation's arguments",
    docs: "The CLI and the MCP server check an operation's arguments against one zod schema (src/ops/) and give the same reason: `budget must be at least 100 (got 5)`. Nothing was read or written.",
  },
  'cli/stream': {
    title: 'A stream name is not allowed',
    severity: 'error',
    hint: 'use lowercase letters, digits, `.`, `_` and `-`',
  },
  'cli/kind': {
    title: 'A memory kind is not allowed',
    severity: 'error',
    hint: 'use a word such as note, decision, error, fact, session',
  },
  'cli/format': {
    title: '`--format` names no transcript format',
    severity: 'error',
    hint: 'use one of: {formats}',
  },
  'cli/ingest': {
    title: '`memvault ingest` got no files',
    severity: 'error',
    hint: 'pass one or more transcripts: memvault ingest session.jsonl conversations.json notes.md',
  },
  'cli/out': {
    title: '`--out` of `memvault site` is not a folder of its own inside the project',
    severity: 'error',
    hint: 'memvault writes only inside the project, never into the vault: --out site (the default) or --out build/site',
  },
  'cli/regenerate': {
    title: '`--regenerate` names no generated summary',
    severity: 'error',
    hint:
      'name a daily, weekly, monthly or long-term summary file, e.g. --regenerate vault/main/daily/2026-02-13.md ' +
      '(see `memvault status` for edited ones)',
  },
  'init/exists': {
    title: 'memory.config.yaml already exists',
    severity: 'error',
    hint: 'edit it, or delete it first to start over',
  },
  'add/empty': {
    title: 'No memory text',
    severity: 'error',
    hint: 'pass it as an argument (memvault add "what happened") or pipe it in (echo "…" | memvault add)',
  },
  'add/too-large': {
    title: 'The memory is over the 1 MiB a memory file may hold',
    severity: 'error',
    hint: 'split it into several memories, or keep the large file outside the vault and write a memory that points to it',
    docs: 'The build reports a memory file over 1 MiB (`memory/too-large`) and leaves it out, so `add` and the MCP tool `add_memory` refuse it before writing.',
  },
  'add/control': {
    title: 'The memory holds a NUL byte or another control character',
    severity: 'error',
    hint: 'memories are plain UTF-8 text: remove it (strip terminal colour codes from command output first)',
    docs: 'The build reads a file with a NUL byte as binary (`memory/binary`); other control characters would reach terminals that show the memory.',
  },
  'add/field': {
    title: 'A title, tag or kind is not one short line',
    severity: 'error',
    hint: 'a title is one line of at most 1,000 characters, a tag or kind one of at most 100 (100 tags at most); put the rest in the text',
  },
  'add/stream': {
    title: '`--stream` names a stream memory.config.yaml does not declare',
    severity: 'error',
    hint: 'use one of: {streams}; or declare it under `streams:` in memory.config.yaml, or pass --create-stream to add it there',
    docs: 'A typo in `--stream` would otherwise start a stream nobody summarizes the way they meant.',
  },
  'project/none': {
    title: 'Not a memvault project: no memory.config.yaml here or above',
    severity: 'error',
    hint: 'run `memvault init` in the repository that should hold the vault, or pass -C <folder> of an existing one',
    docs:
      'Every command but `init` works on a project: the nearest folder upwards holding `memory.config.yaml`. ' +
      'Without one, nothing is read, created or committed.',
  },
  'project/folder': {
    title: 'The folder given with `-C` does not exist or is not a folder',
    severity: 'error',
    hint: 'check the path: `-C` takes the project folder (or a folder inside it); nothing was created',
  },
  'project/state': {
    title: '`.memvault` in the project folder is not a folder',
    severity: 'error',
    hint: 'move or rename that file (memvault keeps its caches, search index and locks in a folder of that name), then run the command again',
    docs: 'Checked when a command finds its project, before anything is read or written.',
  },
  'project/outside': {
    title: 'A write would leave the project folder (a symbolic link or a path outside it)',
    severity: 'error',
    hint:
      'memvault writes only inside the project folder: replace the link `{link}` with a real folder inside the project ' +
      '(remove the link, e.g. `git rm {link}`, then create the folder and move in what belongs there); nothing was written',
    docs:
      'Every write resolves the real path of the deepest folder of its target that exists and refuses it when that is ' +
      'not inside the real project folder, before any folder is created: a folder committed as a link to ' +
      '`/tmp/elsewhere` or `~/.ssh` cannot make `add`, `ingest`, the MCP `add_memory` tool or a build write there.',
  },
  'init/commit': {
    title: '`memvault init --commit` could not commit the files it wrote',
    severity: 'error',
    hint: 'the files are written; commit them yourself: {command}',
  },
  'redact/missing': {
    title: 'A path given to `memvault redact` does not exist',
    severity: 'error',
    hint: 'pass memory files or folders, e.g. memvault redact vault/main/memories',
  },
  'compact/stream': {
    title: 'The stream of `memvault compact` is not a waterfall stream',
    severity: 'error',
    hint: 'set `waterfall: true` for it under `streams:` in memory.config.yaml',
  },
  'compact/unknown-stream': {
    title: 'The stream of `memvault compact` is not configured',
    severity: 'error',
    hint: 'add it under `streams:` in memory.config.yaml with `waterfall: true`{others}',
  },
  'compact/no-stream': {
    title: 'No stream has `waterfall: true`',
    severity: 'error',
    hint: 'set `waterfall: true` for an agent stream under `streams:` in memory.config.yaml',
  },
  'watch/limit': {
    title: 'The system limit of file watches was reached',
    severity: 'error',
    hint: 'raise the limit ({how}), then start watch again',
  },
  'read/period': {
    title: 'Not a period zoom understands',
    severity: 'error',
    hint: 'use a day, ISO week, month, quarter, range or phrase, e.g. {examples}',
  },
  'read/range': {
    title: '`--memories` is not a memory number range',
    severity: 'error',
    hint: 'use FROM..TO with 1-based numbers, e.g. --memories 65..128, or 65.. for the rest',
  },
  'read/stream': {
    title: 'No such stream in the vault',
    severity: 'error',
    hint: 'streams found: {known}; pass one with --stream',
  },
  'search/empty': {
    title: 'A search with neither words nor a filter',
    severity: 'error',
    hint: 'e.g. memvault search "server sessions" tag:auth',
  },
  'search/tier': {
    title: 'A search tier that does not exist',
    severity: 'error',
    hint: 'e.g. tier:weekly or --tier memories',
  },
  'search/too-large': {
    title: 'A search query past its size limits',
    severity: 'error',
    hint: 'a query takes at most {limit}; search with fewer words or filters (a document must carry every `tag:` given, so a few narrow it as much as many)',
    docs: 'A query is bounded before any SQL is built: at most 100 filters (`tag:`, `kind:`, `stream:`, `tier:`, `since:`, `until:`) and 10,000 characters. Each filter is one condition of the SQL statement, and SQLite refuses a statement nested past 1,000 levels.',
  },
  'search/unwritable': {
    title: 'The build could not update the search index',
    severity: 'warning',
    hint: 'check that `.memvault/search/` can be written (space, permissions); until then `memvault search` indexes the vault in memory',
  },
  'search/rebuilt': {
    title: 'The search index was rebuilt from the vault',
    severity: 'info',
    hint: 'nothing to do: the index is derived from the vault; {why}',
    docs: "The search index (`.memvault/search/index.sqlite`) is derived from the vault and disposable. A file that is damaged (on open, on a query or on a write), cut short or another program's SQLite database is rebuilt from the vault beside it and swapped in; `memvault build` says so once with this note, `memvault search` in its first line. When the file cannot be written at all, the build goes on without it and a search indexes the vault in memory.",
  },
} as const satisfies RuleGroup;
