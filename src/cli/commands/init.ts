import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../../config/load.js';
import { assertStreamName } from '../../config/schema.js';
import { configJsonSchemaText, SCHEMA_FILE } from '../../config/json-schema.js';
import { UserError } from '../../util/errors.js';

export interface InitCommandOptions {
  root?: string;
  stream: string;
  json?: boolean;
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

/** `memvault init`: config, schema and an empty vault; never overwrites an existing file. */
export async function initCommand(options: InitCommandOptions): Promise<void> {
  const root = path.resolve(options.root ?? process.cwd());
  assertStreamName(options.stream);
  if (existsSync(path.join(root, CONFIG_FILE))) {
    throw new UserError(`${CONFIG_FILE} already exists in ${root}`, 'edit it, or delete it first to start over', 'init/exists');
  }
  const created: string[] = [];
  const write = (relative: string, text: string): void => {
    const file = path.join(root, relative);
    if (existsSync(file)) return;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    created.push(relative);
  };
  write(CONFIG_FILE, defaultConfigText(options.stream));
  write(SCHEMA_FILE, configJsonSchemaText());
  write(`vault/${options.stream}/memories/.gitkeep`, '');
  const gitignore = path.join(root, '.gitignore');
  const ignored = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : '';
  if (!/^\.memvault\/?$/m.test(ignored)) {
    appendFileSync(gitignore, `${ignored.length > 0 && !ignored.endsWith('\n') ? '\n' : ''}# memvault parse cache and build lock\n.memvault/\n`);
    created.push('.gitignore (.memvault/)');
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ root, created }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`created in ${root}:\n${created.map((c) => `  ${c}`).join('\n')}\nnext: write a memory into vault/${options.stream}/memories/ and run \`memvault build\`\n`);
}
