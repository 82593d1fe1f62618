import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../../config/load.js';
import { assertStreamName } from '../../config/schema.js';
import { configJsonSchemaText, SCHEMA_FILE } from '../../config/json-schema.js';
import { detectInstallSource, type InstallSource, REACHABLE_SOURCES, unreachableFromGitHub } from '../../project/install-source.js';
import { UserError } from '../../util/errors.js';
import { gitattributesBlock, hasGitattributesBlock, nightlyWorkflowText, WORKFLOW_FILE } from '../../project/init-templates.js';
import { counted } from '../../text/plural.js';
import { renderJson } from '../render/json.js';

export interface InitCommandOptions {
  root?: string;
  stream: string;
  json?: boolean;
  /** false with `--no-workflow`: do not write the nightly rollup workflow. */
  workflow?: boolean;
  /** `--install-from SPEC`: what the workflow installs memvault from (default: where the running memvault came from). */
  installFrom?: string;
  /** `--pr`: the workflow pushes to a branch and opens a pull request (a protected default branch). */
  pr?: boolean;
  /** `--pages`: the workflow also publishes `memvault site` to GitHub Pages (docs/site.md). */
  pages?: boolean;
  /** `--commit`: commit the files init wrote (exactly those) in the repository holding the folder. */
  commit?: boolean;
}

/** The config `memvault init` writes: the defaults that matter, spelled out so people can edit them. */
export function defaultConfigText(stream: string): string {
  return `# yaml-language-server: $schema=./${SCHEMA_FILE}
# memvault configuration. Every key is optional; these are the defaults. See the README.
vault: vault
timezone: UTC
tokenizer: o200k_base
streams:
  ${stream}: { calendar: true, waterfall: false }
calendar:
  daily: { target_tokens: 300, max_bytes: 1400 }
  weekly: { target_tokens: 500, max_bytes: 2400 }
  monthly: { target_tokens: 800, max_bytes: 3600 }
  longterm: { target_tokens: 1200, max_bytes: 5200 }
upload:
  max_tokens: 8750
  max_bytes: 35840
  full_detail_hours: 24
  daily_days: 7
  weekly_days: 30
  monthly_window: 2
llm:
  profile: summarizer
  profiles:
    summarizer: { provider: extractive }
`;
}

/** The vault folder `init` configures (`vault:` in the config it writes). */
const VAULT = 'vault';

/**
 * `memvault init`: config, schema, an empty vault, `.memvault/` ignored, the
 * `-merge` block in `.gitattributes` and the nightly rollup workflow (unless
 * `workflow` is false). Never overwrites a file: an existing one is kept and
 * reported, `.gitignore` and `.gitattributes` are appended to at most once.
 */
export async function initCommand(options: InitCommandOptions): Promise<void> {
  const root = path.resolve(options.root ?? process.cwd());
  if (!isFolder(root))
    throw new UserError('project/folder', `\`${options.root ?? root}\` is not a folder (init writes into an existing folder)`);
  assertStreamName(options.stream);
  if (existsSync(path.join(root, CONFIG_FILE))) {
    throw new UserError('init/exists', `${CONFIG_FILE} already exists in ${root}`);
  }
  const files = writeProjectFiles(root, options);
  const { touched, source } = files;
  const workflow = source && files.created.includes(WORKFLOW_FILE) ? source : undefined;
  const unreachable = workflow ? unreachableWarning(workflow) : undefined;
  const committed = options.commit ? await commitInit(root, touched) : undefined;
  const outcome: InitOutcome = {
    root,
    ...files,
    workflow,
    unreachable,
    committed,
    commitHint: `git add ${touched.map(shellQuote).join(' ')} && git commit -m "memvault init"`,
  };
  process.stdout.write(options.json ? initJson(outcome) : initText(outcome, options));
  if (unreachable) process.stderr.write(`memvault: warning: ${unreachable}\n`);
}

/** What init wrote and did, for its report. */
interface InitOutcome {
  root: string;
  created: string[];
  kept: string[];
  /** Paths (relative to root) init created or appended to: what `--commit` commits and the hint names. */
  touched: string[];
  /** Where the nightly workflow installs memvault from, when init wrote it. */
  workflow: InstallSource | undefined;
  unreachable: string | undefined;
  committed: Awaited<ReturnType<typeof commitInit>> | undefined;
  commitHint: string;
}

/**
 * Writes the config, its JSON schema, the stream's memories folder and the
 * nightly workflow (each kept when already there), and appends the
 * `.gitignore` and `.gitattributes` lines once.
 */
function writeProjectFiles(
  root: string,
  options: InitCommandOptions,
): { created: string[]; kept: string[]; touched: string[]; source: InstallSource | undefined } {
  const created: string[] = [];
  const kept: string[] = [];
  const touched: string[] = [];
  const write = (relative: string, text: string): void => {
    const file = path.join(root, relative);
    if (existsSync(file)) {
      kept.push(relative);
      return;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    created.push(relative);
    touched.push(relative);
  };
  write(CONFIG_FILE, defaultConfigText(options.stream));
  write(SCHEMA_FILE, configJsonSchemaText());
  write(`${VAULT}/${options.stream}/memories/.gitkeep`, '');

  // Lines appended to files the repository may have already, at most once (after a blank line, with `gap`).
  const appendOnce = (relative: string, label: string, present: (text: string) => boolean, block: string, gap = false): void => {
    const file = path.join(root, relative);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (present(text)) {
      kept.push(label);
      return;
    }
    const separator = text.length === 0 ? '' : `${text.endsWith('\n') ? '' : '\n'}${gap ? '\n' : ''}`;
    appendFileSync(file, `${separator}${block}`);
    created.push(label);
    touched.push(relative);
  };
  appendOnce(
    '.gitignore',
    '.gitignore (.memvault/)',
    (text) => /^\.memvault\/?$/m.test(text),
    '# memvault parse cache and build lock\n.memvault/\n',
  );
  appendOnce('.gitattributes', '.gitattributes (-merge for generated files)', hasGitattributesBlock, gitattributesBlock(VAULT), true);

  const source: InstallSource | undefined =
    options.workflow === false
      ? undefined
      : options.installFrom !== undefined
        ? { spec: options.installFrom, kind: 'flag' }
        : detectInstallSource();
  if (source) write(WORKFLOW_FILE, nightlyWorkflowText({ install: source.spec, pr: options.pr === true, pages: options.pages === true }));
  return { created, kept, touched, source };
}

/** The `--json` report: what was created and kept, the install source, the commit or how to make it. */
function initJson(outcome: InitOutcome): string {
  const { root, created, kept, touched, workflow, unreachable, committed, commitHint } = outcome;
  const install = workflow
    ? {
        install: {
          spec: workflow.spec,
          kind: workflow.kind,
          ...(workflow.note ? { note: workflow.note } : {}),
          ...(unreachable ? { reachable: false, warning: unreachable } : {}),
        },
      }
    : {};
  const commit = committed ? { commit: committed } : touched.length > 0 ? { commit: { status: 'not-committed', hint: commitHint } } : {};
  return renderJson({ root, created, kept, ...install, ...commit });
}

/** The report for a person: what was created and kept, the nightly rollup, the commit (or how to make it), what next. */
function initText(outcome: InitOutcome, options: InitCommandOptions): string {
  const { root, created, kept, touched, workflow: source, committed, commitHint } = outcome;
  const list = (items: string[]): string => items.map((item) => `  ${item}\n`).join('');
  let text = `created in ${root}:\n${list(created)}`;
  if (kept.length > 0) text += `kept (already there):\n${list(kept)}`;
  if (source) {
    text += `nightly rollup: installs memvault from ${source.spec}${options.pr ? `, opens a pull request from the branch memvault/rollup` : ''}\n`;
    if (source.note) text += `  note: ${source.note}\n`;
    text += "  uses the config's LLM profile (offline by default); for a model, add a profile and set the repository secrets";
    text += ' MEMVAULT_PROFILE and OPENAI_API_KEY\n';
  }
  if (committed?.status === 'committed')
    text += `committed ${committed.oid.slice(0, 7)} on ${committed.branch}: memvault init (${counted(committed.files.length, 'file')})\n`;
  else if (touched.length > 0) text += `commit these files (the nightly workflow only runs once they are pushed):\n  ${commitHint}\n`;
  text += `next: write a memory into ${VAULT}/${options.stream}/memories/ and run \`memvault build\`\n`;
  return text;
}

/**
 * What to tell a person whose workflow installs memvault from somewhere a
 * GitHub-hosted runner cannot reach (a path or `git+file:` URL on this
 * machine: a local clone with no remote, a locally packed tarball), and how
 * to fix it; undefined when the source is reachable. The workflow is still
 * written (a self-hosted runner may have the path), but it would fail
 * every night on GitHub's runners.
 */
function unreachableWarning(source: InstallSource): string | undefined {
  const why = unreachableFromGitHub(source.spec);
  if (!why) return undefined;
  const selfHosted = source.kind === 'flag' ? ' (fine on a self-hosted runner that has it)' : '';
  return (
    `the nightly workflow installs memvault from ${source.spec}, ${why}, which GitHub's runners cannot reach${selfHosted}. ` +
    `Set MEMVAULT_INSTALL in ${WORKFLOW_FILE} to ${REACHABLE_SOURCES} (next time: \`memvault init --install-from SPEC\`).`
  );
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function shellQuote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** What `--commit` did. */
type InitCommit = { status: 'committed'; oid: string; branch: string; files: string[] } | { status: 'unchanged'; branch: string };

/** `--commit`: one commit of exactly the files init wrote or appended to, through memvault's commit step (git itself). */
async function commitInit(root: string, paths: readonly string[]): Promise<InitCommit | undefined> {
  if (paths.length === 0) return undefined;
  const { openCommitSession, commitPaths } = await import('../../git/commit.js');
  const fail = (why: string): never => {
    throw new UserError('init/commit', `init wrote its files but did not commit them: ${why}`, {
      command: `git add ${paths.map(shellQuote).join(' ')} && git commit -m "memvault init"`,
    });
  };
  const session = await openCommitSession({ vaultDir: root, stateDir: path.join(root, '.memvault'), enabled: true, author: undefined });
  if ('status' in session) return fail(session.note);
  const outcome = await commitPaths(session, {
    paths: [...paths],
    pinned: new Map(),
    keep: new Set(),
    message: 'memvault init\n\nconfig, JSON Schema, vault folder, .gitignore and .gitattributes entries, nightly rollup workflow\n',
    now: new Date(),
  });
  if (outcome.status === 'committed') return { status: 'committed', oid: outcome.oid, branch: outcome.branch, files: outcome.files };
  if (outcome.status === 'unchanged') return { status: 'unchanged', branch: outcome.branch };
  return fail(outcome.note);
}
