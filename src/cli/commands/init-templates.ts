import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The git-native files `memvault init` writes into a user's repository: the
 * `.gitattributes` block that keeps generated files out of line merges, and
 * the nightly rollup workflow. Both are adapted from memvault's own
 * repository (`.gitattributes`, `.github/workflows/nightly-rollup.yml`); the
 * e2e tests parse both sides and fail when they drift apart.
 */

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

/**
 * The version of the running memvault, from the nearest `package.json`
 * upwards named `memvault` (`dist/src/cli/commands` and `src/cli/commands`
 * both work); undefined when there is none.
 */
export function memvaultVersion(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
        if (pkg.name === 'memvault' && typeof pkg.version === 'string') return pkg.version;
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The nightly rollup workflow for a user's vault repository. Same triggers,
 * permissions, concurrency group, checkout, secrets and push-or-rebuild logic
 * as memvault's own `nightly-rollup.yml`; it installs memvault from npm at
 * `version` (the release that ran `init`) instead of `npm ci` in memvault's
 * checkout, and needs no package.json or lock file in the repository.
 */
export function nightlyWorkflowText(version: string | undefined = memvaultVersion()): string {
  const spec = version ? `memvault@${version}` : 'memvault';
  return `name: memvault nightly rollup

# Written by \`memvault init\`. Builds the vault once a night (and on demand)
# and pushes memvault's commit back: dailies for the day that ended, weeklies
# and monthlies when their period completes, the package, the index, the
# archive moves. Summaries come from the config's LLM profile (the embedded
# extractive summarizer by default); to use a model, add a profile to
# memory.config.yaml and set the repository secrets MEMVAULT_PROFILE (its
# name) and OPENAI_API_KEY. To upgrade memvault, change the version in the
# "Install memvault" step.

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
      contents: write # the only job here, and it pushes the rollup commit
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # full history: history/, \`memvault log\` and \`diff\` work on the runner too
          persist-credentials: true # needed for the push below

      - uses: actions/setup-node@v4
        with:
          node-version: 20

      - name: Install memvault
        run: npm install --global --no-audit --no-fund ${spec}

      - name: Build the vault and commit
        env:
          # Secrets are optional: without MEMVAULT_PROFILE the build uses the
          # config's profile (the embedded extractive summarizer by default).
          PROFILE: \${{ secrets.MEMVAULT_PROFILE }}
          OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
          NOW: \${{ inputs.now }}
          GIT_AUTHOR_NAME: memvault[bot]
          GIT_AUTHOR_EMAIL: memvault@users.noreply.github.com
        run: |
          if [ -n "$PROFILE" ]; then export MEMVAULT_PROFILE="$PROFILE"; fi
          if [ -n "$NOW" ]; then export MEMVAULT_NOW="$NOW"; fi
          memvault build

      - name: Push
        env:
          BRANCH: \${{ github.ref_name }}
        run: |
          if [ "$(git rev-parse HEAD)" = "$(git rev-parse "origin/$BRANCH")" ]; then
            echo "nothing new to push"
            exit 0
          fi
          # Someone pushed meanwhile: replay our rollup on top. Generated files
          # that conflict are rebuilt, never merged by hand (memvault's docs/git.md).
          if ! git push origin "HEAD:$BRANCH"; then
            git fetch origin "$BRANCH"
            git reset --hard "origin/$BRANCH"
            memvault build
            git push origin "HEAD:$BRANCH"
          fi
`;
}
