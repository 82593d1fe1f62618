import type { RuleGroup } from '../rule.js';

/** The build lock and git: the build stops before it commits (its files are written), or the history commands stop. */
export const GIT_RULES = {
  'lock/busy': {
    title: 'Another build holds the build lock',
    severity: 'error',
    hint: 'wait for it to finish; if it hung, stop that process and run the build again',
    docs: 'One build at a time per project: `.memvault/build.lock` names the process holding it. A lock of a dead process is taken over.',
  },
  'lock/lost': {
    title: 'The build lock was lost while the build ran',
    severity: 'error',
    hint: 'another process removed or replaced .memvault/build.lock; check that no other build runs, then run the build again',
  },
  'git/dotgit': {
    title: '`.git` is neither a folder nor a `gitdir:` file',
    severity: 'error',
    hint: 'repair the repository',
  },
  'git/backend': {
    title: 'MEMVAULT_GIT_BACKEND names no backend',
    severity: 'error',
    hint: 'set it to `cli` (the git command) or `isomorphic` (isomorphic-git), or unset it',
  },
  'git/in-progress': {
    title: 'A merge, rebase, cherry-pick or revert is in progress',
    severity: 'error',
    hint:
      'finish or abort it first; to resolve conflicts in generated files, run `memvault build --no-commit`, ' +
      'then `git add` them (see docs/git.md)',
  },
  'git/detached': {
    title: 'HEAD is detached',
    severity: 'error',
    hint: 'switch to a branch (`git switch main`), or build with --no-commit',
  },
  'git/head-moved': {
    title: 'The branch moved while the build was running',
    severity: 'error',
    hint: 'run the build again: the files are written, the next build commits them',
  },
  'git/index-locked': {
    title: 'The git index is locked',
    severity: 'error',
    hint: 'remove it if no git command is running, then build again: the files are written, the next build commits them',
  },
  'git/index-update': {
    title: 'The commit is made but the git index could not be brought up to date',
    severity: 'error',
    hint:
      'another git process is running, or a stale .git/index.lock: remove it if no git command is running; ' +
      'the next build brings the index up to date',
  },
  'git/ref-locked': {
    title: 'The branch is locked by another git command',
    severity: 'error',
    hint: 'wait for it to finish; if none is running, delete {lock} and build again',
  },
  'git/command': {
    title: 'A git command memvault ran failed',
    severity: 'error',
    hint: 'run the git command by hand in the repository to see its whole message; this is a bug if git itself is fine',
  },
  'git/worktree': {
    title: 'A linked worktree without the git command',
    severity: 'error',
    hint: 'install git, build in the main work tree, or use --no-commit',
  },
  'git/object-format': {
    title: 'A SHA-256 repository where memvault needs SHA-1',
    severity: 'error',
    hint: 'install git (memvault uses it when it is on PATH), or build with --no-commit',
    docs: 'isomorphic-git reads and writes SHA-1 repositories only: the build commits to a SHA-256 one through the git command.',
  },
  'git/filter': {
    title: 'A `filter=` attribute without the git command',
    severity: 'error',
    hint: 'install git (memvault uses it when it is on PATH), or build with --no-commit and commit with git',
  },
  'git/file-name': {
    title: 'A name that is not UTF-8 or holds a backslash, without the git command',
    severity: 'error',
    hint:
      'rename it (UTF-8, no backslash; `git mv` on a machine with git), or install git (memvault uses it when it is on PATH); ' +
      'the files are written, the next build commits them',
    docs:
      'isomorphic-git reads and writes names as UTF-8 (rewriting the folder would rename such a file in the commit) and ' +
      'refuses names with a backslash. The git command keeps every name as its bytes, so it commits such a folder as it is.',
  },
  'git/not-a-repo': {
    title: 'The project is not in a git repository',
    severity: 'error',
    hint: 'run `git init`, then `memvault build` commits each build',
  },
  'git/no-commits': {
    title: 'The branch has no commits yet',
    severity: 'error',
    hint: 'run `memvault build` (it commits), or commit the vault yourself',
  },
  'git/outside': {
    title: 'The path is outside the repository',
    severity: 'error',
    hint: 'name a file inside it, e.g. vault/main/UPLOAD_PACKAGE.md',
  },
  'git/unknown-path': {
    title: 'The path has no committed version',
    severity: 'error',
    hint: 'check the path: relative to the current folder (vault/main/daily/2026-02-13.md) or to the vault (main/daily/2026-02-13.md)',
  },
  'git/uncommitted': {
    title: 'The file exists but was never committed',
    severity: 'error',
    hint: 'it exists but was never committed: `memvault build` commits what it writes (or commit it yourself)',
  },
  'git/history-format': {
    title: 'log, diff and show on a SHA-256 repository',
    severity: 'error',
    hint: 'use git itself: `git log -p -- {file}`',
    docs: 'The history commands read objects through isomorphic-git, which knows SHA-1 repositories only.',
  },
  'git/revision': {
    title: 'Unknown revision',
    severity: 'error',
    hint: 'use a commit id (see `memvault log PATH`), HEAD~N, a branch or tag, or a date such as 2026-02-13',
  },
  'git/no-commit-then': {
    title: 'No commit on or before the date',
    severity: 'error',
    hint: "the branch's history starts at {first}",
  },
  'git/not-then': {
    title: 'The file did not exist at that commit',
    severity: 'error',
    hint: 'see `memvault log {file}` for the commits that have it',
  },
  'git/one-version': {
    title: 'The file has only one committed version',
    severity: 'error',
    hint: 'nothing to compare; see `memvault log {file}`',
  },
} as const satisfies RuleGroup;
