import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../../config/load.js';
import { assertStreamName } from '../../config/schema.js';
import { configJsonSchemaText, SCHEMA_FILE } from '../../config/json-schema.js';
import { UserError } from '../../util/errors.js';
import { gitattributesBlock, hasGitattributesBlock, nightlyWorkflowText, WORKFLOW_FILE } from './init-templates.js';

export interface InitCommandOptions {
  root?: string;
  stream: string;
  json?: boolean;
  /** false with `--no-workflow`: do not write the nightly rollup workflow. */
  workflow?: boolean;
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
  assertStreamName(options.stream);
  if (existsSync(path.join(root, CONFIG_FILE))) {
    throw new UserError('init/exists', `${CONFIG_FILE} already exists in ${root}`);
  }
  const created: string[] = [];
  const kept: string[] = [];
  const write = (relative: string, text: string): void => {
    const file = path.join(root, relative);
    if (existsSync(file)) {
      kept.push(relative);
      return;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    created.push(relative);
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
  };
  appendOnce(
    '.gitignore',
    '.gitignore (.memvault/)',
    (text) => /^\.memvault\/?$/m.test(text),
    '# memvault parse cache and build lock\n.memvault/\n',
  );
  appendOnce('.gitattributes', '.gitattributes (-merge for generated files)', hasGitattributesBlock, gitattributesBlock(VAULT), true);

  if (options.workflow !== false) write(WORKFLOW_FILE, nightlyWorkflowText());

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ root, created, kept }, null, 2)}\n`);
    return;
  }
  const list = (items: string[]): string => items.map((item) => `  ${item}\n`).join('');
  let text = `created in ${root}:\n${list(created)}`;
  if (kept.length > 0) text += `kept (already there):\n${list(kept)}`;
  if (created.includes(WORKFLOW_FILE)) {
    text += `nightly rollup: uses the config's LLM profile (offline by default); for a model, add a profile and set the repository secrets MEMVAULT_PROFILE and OPENAI_API_KEY\n`;
  }
  text += `next: write a memory into ${VAULT}/${options.stream}/memories/ and run \`memvault build\`\n`;
  process.stdout.write(text);
}
