import type { RuleGroup } from '../rule.js';

/** Problems with one file of the vault: reported with its place; the rest of the vault still builds. */
export const VAULT_RULES = {
  'memory/binary': {
    title: 'A memory file holds binary content',
    severity: 'error',
    hint: 'memories are UTF-8 markdown; move binary files out of `memories/`',
    docs: 'A NUL byte was found; the place is the first one. The file is left out of the build.',
  },
  'memory/encoding': {
    title: 'A memory file is not UTF-8',
    severity: 'error',
    hint: 're-save the file as UTF-8 in your editor',
    docs: 'The place is the first byte that is not valid UTF-8.',
  },
  'memory/empty': {
    title: 'A memory file is empty',
    severity: 'error',
    hint: 'write the memory text (and a `date:` in frontmatter), or delete the file',
  },
  'memory/frontmatter': {
    title: 'The frontmatter is not valid YAML',
    severity: 'error',
    hint: 'fix the YAML between the `---` lines (indentation, quotes, brackets)',
    docs: 'The place is where the YAML parser stopped. Anchors and aliases (`&a`, `*a`) are refused too.',
  },
  'memory/frontmatter-language': {
    title: 'The frontmatter is not YAML or JSON',
    severity: 'error',
    hint: 'frontmatter is data: open it with a plain `---` line and write YAML (or `---json`); it is never run as code',
  },
  'memory/frontmatter-depth': {
    title: 'The frontmatter is nested too deep',
    severity: 'error',
    hint: 'flatten the frontmatter: memories need a few `key: value` lines',
  },
  'memory/too-large': {
    title: 'A file or its frontmatter is over the size limit',
    severity: 'error',
    hint: 'split it into several memories (one per session or topic), or move the raw material out of the vault',
    docs: 'A vault file is read up to 1 MiB; frontmatter up to a fixed number of characters. Larger ones are left out.',
  },
  'memory/conflict-markers': {
    title: 'A memory holds git conflict markers',
    severity: 'error',
    hint:
      'resolve the merge in the file: keep both memories as two files (each side under its own name) or merge them by hand, ' +
      'remove the `<<<<<<<`, `=======` and `>>>>>>>` lines, then build again',
    docs:
      'A merge left `<<<<<<< `, `=======` and `>>>>>>> ` lines (as git writes them, at the start of a line) in the file, ' +
      'in its frontmatter or its body: usually two clones wrote a memory of the same name, or both edited one memory. ' +
      'The file is left out of the build (no summary, package or search holds half-merged text) and no memvault commit ' +
      'takes it. A memory that quotes such lines on purpose can indent them by a space.',
  },
  'memory/too-deep': {
    title: 'The markdown body is nested too deep',
    severity: 'error',
    hint: 'flatten the lists, quotes or emphasis: memories are read as sentences, deep nesting carries nothing',
  },
  'memory/reserved-key': {
    title: 'A memory uses the `memvault` frontmatter key',
    severity: 'error',
    hint: 'remove the `memvault:` line: a file under `memories/` is always a memory',
    docs: 'The `memvault` key marks files memvault generates; a memory claiming it would be read differently once archived.',
  },
  'vault/linked-folder': {
    title: 'A folder of the vault is a symbolic link',
    severity: 'error',
    hint:
      'memvault never reads through links inside the vault, so a file written there would be lost: replace the link ' +
      '`{link}` with a real folder (move in the files it points to), or remove it; nothing was written',
    docs:
      'Checked before `add`, `ingest`, the MCP `add_memory` tool and a build write below the vault: every existing ' +
      'folder between the vault and the file must be a real folder. A link that leads outside the project is `project/outside`.',
  },
  'memory/schema': {
    title: 'A frontmatter value has the wrong type or is not allowed',
    severity: 'error',
    hint: 'fix the value in the frontmatter',
  },
  'memory/invalid-date': {
    title: 'The date of a memory is not a usable ISO 8601 date',
    severity: 'error',
    hint: 'use an existing calendar date of a year from 1000 to 9999, in ISO 8601 form, e.g. `2026-02-13T14:05:00+01:00`',
  },
  'memory/no-date': {
    title: 'A memory has no date',
    severity: 'error',
    hint: 'add `date: YYYY-MM-DD` (or a datetime) to the frontmatter, or put an ISO date in the file name',
  },
  'memory/invalid-id': {
    title: 'The `id` of a memory is not usable',
    severity: 'error',
    hint: 'use letters, digits, `-`, `_`, `.` and `/` between names, e.g. `id: 2026/02/auth-decision`',
  },
  'memory/duplicate-id': {
    title: 'Two memories have the same id',
    severity: 'warning',
    hint: 'give one of them a unique `id:` in its frontmatter',
  },
  'memory/future-date': {
    title: 'A memory is dated after `now`',
    severity: 'info',
    hint: 'a later build includes it; fix the date if it is a typo',
    docs: "Memories dated after the build's `now` (`--now`, `MEMVAULT_NOW`) are left out of this build, not dropped.",
  },
  'memory/symlink-skipped': {
    title: 'A symbolic link in the vault is not followed',
    severity: 'info',
    hint: 'memvault never reads through links (one could point outside the repository): put the file itself in the vault',
  },
  'memory/not-a-file': {
    title: 'A `.md` path in the vault is not a regular file',
    severity: 'info',
    hint: 'only regular `.md` files are read: remove it or rename it',
  },
  'memory/file-name': {
    title: 'A `.md` file or a folder in the vault has a name that is not UTF-8',
    severity: 'error',
    hint: 'rename it to a UTF-8 name (e.g. `git mv`, or `convmv -f latin1 -t utf8`); the rest of the vault builds without it',
    docs:
      'Node.js names such a file with U+FFFD and cannot open it by that name: it is reported and left out of the build ' +
      '(a folder: every file in it). memvault never renames it, and the commit keeps it as git stores it.',
  },
  'memory/unreadable': {
    title: 'A vault file cannot be read',
    severity: 'error',
    hint: 'check its permissions (`chmod u+r`) or remove it; the rest builds without it',
  },
  'record/unreadable': {
    title: 'A shard of the committed record cannot be read',
    severity: 'warning',
    hint: 'nothing to fix by hand: the build reads the files it lists and the next committing build writes it anew',
    docs:
      'The record (`vault/.memvault-record/`) lets a fresh clone skip files committed unchanged (docs/nightly.md). ' +
      'A merge conflict left in a shard makes it unreadable; the build then reads those files as a clone without a record would.',
  },
  'secret/{kind}': {
    title: 'A memory holds a secret',
    severity: 'error',
    hint:
      'redact it (`memvault redact {path}` replaces it with [REDACTED:{kind}]), or if it is no secret, add ' +
      '`memvault:allow-secret` on that line or the value under `secrets.allow` in memory.config.yaml',
    docs:
      "One rule per kind of secret the detector knows (secretlint's recommended preset and memvault's own rules), " +
      'e.g. `secret/aws-access-key`. The memory is held back from summaries, the package, LLM requests and commits.',
  },
  'summary/frontmatter': {
    title: 'A generated summary has unreadable frontmatter',
    severity: 'error',
    hint: 'generated summaries are rebuilt by `memvault build`; restore the frontmatter from git or delete the file',
  },
  'summary/schema': {
    title: "A generated summary's frontmatter is not what memvault writes",
    severity: 'error',
    hint: 'restore the file from git, or delete it and run `memvault build` to regenerate it',
  },
  'vault/changed': {
    title: 'A memory changed while the build was running',
    severity: 'error',
    hint: 'run the build again',
  },
  'vault/cache-damaged': {
    title: 'The parse cache lost a record it lists',
    severity: 'error',
    hint: 'delete {cache} and run the command again: the cache only saves time, everything in it is read again from the vault',
    docs: "A summary's source lists and a memory's citations are kept in the state store's `parse_lists` and `parse_citations` tables; the cache's entry names rows that are not there.",
  },
  'store/newer': {
    title: 'The state store was written by a newer memvault',
    severity: 'error',
    hint: 'run the newer memvault, or delete {file} (it holds caches, rebuilt from the vault, and the record of uncommitted outputs, which `git status` also shows)',
  },
  'build/leftover-temp': {
    title: 'A temporary file of a stopped build was removed',
    severity: 'info',
    hint: 'nothing to do: writes are atomic, so the file it was for is whole; the temp file never was part of the vault',
  },
  'build/moved-aside': {
    title: 'A file memvault did not write sat on a generated path',
    severity: 'warning',
    hint: '{path} is a generated path, rewritten by every build; keep your notes in memories/ (e.g. move {to} there)',
  },
  'build/incomplete': {
    title: 'A `--strict` build had failed or over-budget rollups',
    severity: 'error',
    hint:
      'see the report above; fix the cause and run the build again (it redoes only what is missing), ' +
      'or drop --strict to accept a partial build',
  },
  'build/rollup-failed': {
    title: 'A rollup produced nothing usable',
    severity: 'error',
    hint: 'nothing was written for it and the rest of the vault is built; fix the cause in the report and build again (it redoes only this)',
    docs:
      'The summarizer failed for good, every answer was cut off, or an over-budget answer would have replaced a good ' +
      'previous version. The build report lists it under failed; `--strict` makes the build exit 1 (`build/incomplete`).',
  },
  'package/critical-over-budget': {
    title: 'The pinned memories alone are over the package budget',
    severity: 'error',
    hint: 'unpin some memories (set `importance: high`), largest first: {biggest}',
  },
  'memory/near-duplicate': {
    title: 'A new or changed memory nearly repeats another one',
    severity: 'warning',
    hint: 'merge the copies with `memvault consolidate --stream {stream} --apply` (nothing is deleted: each copy gets `duplicate_of: {keep}`)',
    docs:
      'The build compares the memories of the days it summarizes with those of the 7 days before them (word 3-shingles, ' +
      'Jaccard at least 0.8; see docs/facts.md). A marked copy stays in place, in zoom and in search, and leaves the summaries.',
  },
} as const satisfies RuleGroup;
