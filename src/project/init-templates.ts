/**
 * The git-native files `memvault init` writes into a user's repository: the
 * `.gitattributes` block that keeps generated files out of line merges, and
 * the nightly rollup workflow. Both are adapted from memvault's own
 * repository (`.gitattributes`, `.github/workflows/nightly-rollup.yml`); the
 * e2e tests parse both sides and fail when they drift apart.
 */

import { pagesDeployJob } from '../site/pages-workflow.js';

/** Where `memvault init` writes the workflow; prefixed so it does not collide with the repository's own workflows. */
export const WORKFLOW_FILE = '.github/workflows/memvault-nightly.yml';

/** The first line of the `.gitattributes` block; `init` appends the block only when no line starts with `# memvault:`. */
export const GITATTRIBUTES_MARKER = '# memvault: files the build generates are never merged line by line.';

/** Whether a `.gitattributes` text already holds a memvault block (ours, or one copied by hand from memvault's repository). */
export function hasGitattributesBlock(text: string): boolean {
  return /^# memvault:/m.test(text);
}

/** Generated paths under the vault folder, and their attributes. */
const GENERATED: ReadonlyArray<readonly [string, string]> = [
  ['*/daily/*.md', '-merge'],
  ['*/weekly/*.md', '-merge'],
  ['*/monthly/*.md', '-merge'],
  ['*/longterm.md', '-merge'],
  ['*/history/**', '-merge'],
  ['*/waterfall/**', '-merge'],
  ['*/CONTEXT.md', '-merge'],
  ['*/UPLOAD_PACKAGE.md', '-merge linguist-generated=true'],
  ['*/UPLOAD_PACKAGE.manifest.json', '-merge linguist-generated=true'],
  ['INDEX.md', '-merge linguist-generated=true'],
  ['index.json', '-merge linguist-generated=true'],
  // Usage counts: one line per id, per-clone grow-only counts, so any union of both sides' lines reads right (src/usage/codec.ts).
  ['*/usage.json', 'merge=union'],
  // The committed record (src/vault/committed-record.ts): rewritten by the build that resolves the merge.
  ['.memvault-record/**', '-merge'],
];

/**
 * The `.gitattributes` block for a vault in folder `vault` (the `vault:` key
 * of memory.config.yaml, POSIX, relative to the repository root).
 */
export function gitattributesBlock(vault: string): string {
  const prefix = `${vault.replace(/^\.\/+/, '').replace(/\/+$/, '')}/`;
  const patterns = GENERATED.map(([pattern, attributes]) => [`${prefix}${pattern}`, attributes] as const);
  const width = Math.max(40, ...patterns.map(([pattern]) => pattern.length + 2));
  return `${GITATTRIBUTES_MARKER}
#
# \`-merge\` makes git keep our side of a generated file that both sides of a
# merge changed, with no conflict markers, and report the path as conflicted.
# Resolve by rebuilding, never by hand (memvault's docs/git.md, "Merges of
# generated files"):
#
#   git merge origin/main            # generated files: ours kept, marked conflicted
#   npx memvault build --no-commit   # regenerates them from the merged memories
#   git add ${prefix} && git commit --no-edit
#
# Memories (${prefix}*/memories/, ${prefix}*/archive/) are ordinary text: they merge
# as usual. Adjust the \`${prefix}\` prefix if \`vault:\` in memory.config.yaml changes.
${patterns.map(([pattern, attributes]) => `${pattern.padEnd(width)}${attributes}`.trimEnd()).join('\n')}
`;
}

/** Node.js in the workflow's setup-node: the active LTS line. */
export const WORKFLOW_NODE = 24;

/**
 * The official actions the workflows use, at their current major versions
 * (November 2026: checkout v7, setup-node v7, cache v6, all on the Node 24
 * runtime). memvault's own workflows use the same; a test keeps them equal.
 */
export const ACTIONS = { checkout: 'actions/checkout@v7', setupNode: 'actions/setup-node@v7', cache: 'actions/cache@v6' } as const;

/**
 * Where the nightly installs memvault (`npm install --global --prefix`), and
 * what actions/cache saves and restores: the installed package with its
 * dependencies and compiled native addon. `~` for actions/cache, `$HOME` for
 * the shell.
 */
export const INSTALL_PREFIX = '.cache/memvault';

/** The branch `--pr` pushes the rollup to; force-pushed each night, so one pull request always holds the latest rollup. */
export const PR_BRANCH = 'memvault/rollup';

export interface WorkflowOptions {
  /** The npm spec the workflow installs memvault from (project/install-source.ts): git URL + commit, registry version or tarball. */
  install: string;
  /** Push the rollup to `PR_BRANCH` and open a pull request instead of pushing to the default branch (for protected branches). */
  pr?: boolean;
  /** `--pages`: a second job publishes \`memvault site\` to GitHub Pages after the rollup (src/site/pages-workflow.ts). */
  pages?: boolean;
}

/**
 * The nightly rollup workflow for a user's vault repository. Same triggers,
 * permissions, concurrency group, checkout and job-level settings as
 * memvault's own `nightly-rollup.yml`; it installs memvault from
 * `options.install` instead of `npm ci` in memvault's checkout, and needs no
 * package.json or lock file in the repository. Every setting a build uses
 * (`now`, profile, API key, author) is job-level or in `$GITHUB_ENV`, so the
 * rebuild after a rejected push builds exactly as the first attempt did.
 */
export function nightlyWorkflowText(options: WorkflowOptions): string {
  const install = JSON.stringify(options.install);
  const pr = options.pr === true;
  const header = workflowHeader(pr);
  const push = pushStep(pr);
  return `${header}${prNote(pr)}
on:
  schedule:
    - cron: '17 3 * * *' # 03:17 UTC, off the top of the hour when GitHub's scheduler is busiest
  workflow_dispatch:
    inputs:
      now:
        description: 'Build as of this moment (ISO 8601, e.g. 2026-02-16T06:00:00Z); empty for the clock'
        required: false
        default: ''

permissions: {}

# One rollup at a time per branch; a run in progress is never cancelled (it may be pushing).
concurrency:
  group: memvault-rollup-\${{ github.ref }}
  cancel-in-progress: false

jobs:
  rollup:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: write # the only job here, and it pushes the rollup commit${pr ? '\n      pull-requests: write # and opens the pull request' : ''}
    # Every \`memvault build\` of this job builds the same way: the first attempt and the retry.
    env:
      MEMVAULT_INSTALL: ${install}
      # Secrets are optional: an empty MEMVAULT_PROFILE means the config's profile
      # (the embedded extractive summarizer by default).
      MEMVAULT_PROFILE: \${{ secrets.MEMVAULT_PROFILE }}
      OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
      GIT_AUTHOR_NAME: memvault[bot]
      GIT_AUTHOR_EMAIL: memvault@users.noreply.github.com
      GIT_COMMITTER_NAME: memvault[bot]
      GIT_COMMITTER_EMAIL: memvault@users.noreply.github.com
    steps:
      - uses: ${ACTIONS.checkout}
        with:
          fetch-depth: 0 # full history: history/, \`memvault log\` and \`diff\` work on the runner too
          persist-credentials: true # needed for the push below

      - uses: ${ACTIONS.setupNode}
        with:
          node-version: ${WORKFLOW_NODE}

${installSteps()}      - name: Fix the moment the build runs as
        env:
          NOW: \${{ inputs.now }}
        run: echo "MEMVAULT_NOW=\${NOW:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}" >> "$GITHUB_ENV"

      - name: Build the vault and commit
        run: memvault build

${push}${options.pages ? pagesDeployJob(options.install, WORKFLOW_NODE) : ''}`;
}

/** The workflow's opening comment: what it does, how to use a model, how to upgrade memvault. */
function workflowHeader(pr: boolean): string {
  return `name: memvault nightly rollup

# Written by \`memvault init\`. Builds the vault once a night (and on demand)
# and ${pr ? `opens a pull request from the branch ${PR_BRANCH}` : "pushes memvault's commit back"}: dailies for the day that ended, weeklies
# and monthlies when their period completes, the package, the index, the
# archive moves. Summaries come from the config's LLM profile (the embedded
# extractive summarizer by default); to use a model, add a profile to
# memory.config.yaml and set the repository secrets MEMVAULT_PROFILE (its
# name) and OPENAI_API_KEY. To upgrade memvault, change MEMVAULT_INSTALL
# (any npm spec: a release tarball URL, github:owner/memvault#<commit or
# tag>, a git URL, a version). The installed memvault is cached under that
# spec: a night with an unchanged MEMVAULT_INSTALL restores it in seconds (so
# pin it: a branch such as #main stays at the commit first installed).
`;
}

/** With `--pr`: why the rollup goes to a branch, and the setting that lets the job open the pull request. */
function prNote(pr: boolean): string {
  return pr
    ? `# The default branch is protected: the rollup goes to the branch ${PR_BRANCH}
# (force-pushed each night, so the open pull request always holds the latest
# rollup). Allow it under Settings > Actions > General > "Allow GitHub Actions
# to create and approve pull requests". Pull requests opened with the job's
# token start no other workflow runs.
`
    : '';
}

/** The last step: push the rollup (replayed on top when someone pushed meanwhile), or with `--pr` push its branch and open the pull request. */
function pushStep(pr: boolean): string {
  return pr
    ? `      - name: Push to ${PR_BRANCH} and open a pull request
        env:
          BASE: \${{ github.ref_name }}
          GH_TOKEN: \${{ github.token }}
        run: |
          if [ "$(git rev-parse HEAD)" = "$(git rev-parse "origin/$BASE")" ]; then
            echo "nothing new to push"
            exit 0
          fi
          git push --force origin "HEAD:refs/heads/${PR_BRANCH}"
          if [ "$(gh pr list --head "${PR_BRANCH}" --base "$BASE" --state open --json number --jq length)" = "0" ]; then
            gh pr create --base "$BASE" --head "${PR_BRANCH}" --title "$(git log -1 --format=%s)" \\
              --body "The nightly rollup, built by memvault as of $MEMVAULT_NOW. Merge it as it is; rebuild rather than edit generated files."
          fi
`
    : `      - name: Push
        env:
          BRANCH: \${{ github.ref_name }}
        run: |
          if [ "$(git rev-parse HEAD)" = "$(git rev-parse "origin/$BRANCH")" ]; then
            echo "nothing new to push"
            exit 0
          fi
          # Someone pushed meanwhile: replay our rollup on top, with the same now, profile,
          # key and author (job env and $GITHUB_ENV). Generated files that conflict are
          # rebuilt, never merged by hand (memvault's docs/git.md).
          if ! git push origin "HEAD:$BRANCH"; then
            git fetch origin "$BRANCH"
            git reset --hard "origin/$BRANCH"
            memvault build
            git push origin "HEAD:$BRANCH"
          fi
`;
}

/** The steps that restore memvault from the Actions cache, install it on a miss, and put it on the PATH. */
function installSteps(): string {
  return `      # The installed memvault, keyed on what is installed and on what it runs on
      # (better-sqlite3's native addon is built for one platform and Node major).
      - name: Restore memvault from the cache
        id: memvault-cache
        uses: ${ACTIONS.cache}
        with:
          path: ~/${INSTALL_PREFIX}
          key: memvault-\${{ runner.os }}-\${{ runner.arch }}-node${WORKFLOW_NODE}-\${{ env.MEMVAULT_INSTALL }}

      # Only on a cache miss. npm pack, then install the tarball: a global install straight
      # from a git URL trips over npm's own git-dependency preparation (docs/install.md in
      # memvault). --allow-scripts: better-sqlite3's install script fetches its native addon
      # (npm 11 warns about install scripts not allowed by name, npm 12 skips them).
      - name: Install memvault
        if: steps.memvault-cache.outputs.cache-hit != 'true'
        run: |
          tarball="$(npm pack --silent --pack-destination "$RUNNER_TEMP" "$MEMVAULT_INSTALL" | tail -n 1)"
          npm install --global --prefix "$HOME/${INSTALL_PREFIX}" --allow-scripts=better-sqlite3 --no-audit --no-fund "$RUNNER_TEMP/$tarball"

      - name: Put memvault on the PATH
        run: |
          echo "$HOME/${INSTALL_PREFIX}/bin" >> "$GITHUB_PATH"
          "$HOME/${INSTALL_PREFIX}/bin/memvault" --version

`;
}
