import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText, SCHEMA_FILE } from '../../src/config/json-schema.js';
import { CONFIG_FILE, loadConfig, validateConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILE = 'memory.config.yaml';

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'memvault-config-'));
  tempDirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The single error of a config text (fails the test when there is not exactly one). */
function onlyError(text: string) {
  const { errors } = validateConfig(text, FILE);
  expect(errors, JSON.stringify(errors, null, 2)).toHaveLength(1);
  return errors[0]!;
}

describe('defaults', () => {
  it('an empty file gives every default', () => {
    const { config, errors, warnings } = validateConfig('', FILE);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(config.vault).toBe('vault');
    expect(config.timezone).toBe('UTC');
    expect(config.tokenizer).toBe('o200k_base');
    expect(config.streams).toEqual({ main: { calendar: true, waterfall: false } });
    expect(config.upload.max_tokens).toBe(8750);
    expect(config.upload.max_bytes).toBe(35840);
    expect(config.upload.full_detail_hours).toBe(24);
    expect(config.waterfall).toEqual({
      immediate_window: 64,
      recent_window: 64,
      recent: { target_tokens: 800, max_bytes: 4000 },
      longterm: { target_tokens: 1200, max_bytes: 6000 },
      context_max_tokens: 10000,
    });
    expect(config.llm.profile).toBe('summarizer');
    expect(config.llm.profiles.summarizer?.provider).toBe('extractive');
    expect(config.git.commit).toBe(true);
    expect(config).toEqual(configSchema.parse({}));
  });

  it('a file with only comments gives every default', () => {
    const { config, errors } = validateConfig('# nothing configured yet\n# timezone: Europe/Berlin\n', FILE);
    expect(errors).toEqual([]);
    expect(config).toEqual(configSchema.parse({}));
  });

  it('a missing file gives every default and no error', async () => {
    const dir = await tempDir();
    const result = await loadConfig(dir);
    expect(result.errors).toEqual([]);
    expect(result.root).toBe(dir);
    expect(result.config).toEqual(configSchema.parse({}));
    expect(result.config.timezone).toBe('UTC');
  });

  it('a partial section keeps the defaults of its siblings', () => {
    const { config, errors } = validateConfig(
      'calendar:\n  daily: { target_tokens: 300, max_bytes: 2048 }\nupload:\n  max_tokens: 4000\n',
      FILE,
    );
    expect(errors).toEqual([]);
    const defaults = configSchema.parse({});
    expect(config.calendar.daily).toEqual({ target_tokens: 300, max_bytes: 2048 });
    expect(config.calendar.weekly).toEqual(defaults.calendar.weekly);
    expect(config.calendar.retention).toEqual(defaults.calendar.retention);
    expect(config.upload.max_tokens).toBe(4000);
    expect(config.upload.full_detail_hours).toBe(defaults.upload.full_detail_hours);
    expect(config.upload.monthly_window).toBe(defaults.upload.monthly_window);
  });

  it('loadConfig reads memory.config.yaml from the root it is given', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, CONFIG_FILE), 'timezone: Europe/Berlin\nstreams:\n  agent-1: { waterfall: true }\n');
    const result = await loadConfig(dir);
    expect(result.errors).toEqual([]);
    expect(result.config.timezone).toBe('Europe/Berlin');
    expect(result.config.streams).toEqual({ 'agent-1': { calendar: true, waterfall: true } });
  });

  it('loadConfig reports errors against the config file with its line', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, CONFIG_FILE), 'vault: vault\nupload:\n  max_tokens: -5\n');
    const result = await loadConfig(dir);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: CONFIG_FILE, line: 3, column: 15, severity: 'error', rule: 'config/schema' });
  });
});

describe('YAML syntax errors', () => {
  it('a duplicate key points at the second occurrence', () => {
    const error = onlyError('vault: vault\ntimezone: UTC\nupload:\n  max_tokens: 5\n  max_tokens: 6\n');
    expect(error).toMatchObject({ path: FILE, line: 5, column: 3, severity: 'error', rule: 'config/yaml' });
    expect(error.reason).toMatch(/^invalid YAML/);
    expect(error.hint).toBeTruthy();
  });

  it('a tab used as indentation points at the tab', () => {
    const error = onlyError('vault: vault\n\tupload: 1\n');
    expect(error).toMatchObject({ line: 2, column: 1, rule: 'config/yaml' });
    expect(error.reason).toMatch(/tab/i);
  });

  it('an unclosed flow mapping is reported on the line where the parser gives up, and the config falls back to defaults', () => {
    const { config, errors } = validateConfig('vault: vault\nupload: {max_tokens: 5\n', FILE);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.rule === 'config/yaml')).toBe(true);
    expect(errors[0]).toMatchObject({ line: 3, column: 1 });
    expect(config).toEqual(configSchema.parse({}));
  });
});

describe('schema errors name the key path and the offending node', () => {
  it('a negative number points at the value', () => {
    const error = onlyError('upload:\n  max_tokens: -5\n');
    expect(error).toMatchObject({ path: FILE, line: 2, column: 15, severity: 'error', rule: 'config/schema' });
    expect(error.reason).toContain('`upload.max_tokens`');
  });

  it('an unknown time zone points at the value', () => {
    const error = onlyError('vault: vault\ntimezone: Mars/Olympus\n');
    expect(error).toMatchObject({ line: 2, column: 11, rule: 'config/schema' });
    expect(error.reason).toContain('`timezone`');
    expect(error.reason).toMatch(/time zone/);
  });

  it('a wrong type inside a flow mapping points at the value', () => {
    const error = onlyError('vault: vault\ncalendar:\n  daily: { target_tokens: 0, max_bytes: 1 }\n');
    expect(error).toMatchObject({ line: 3, column: 27, rule: 'config/schema' });
    expect(error.reason).toContain('`calendar.daily.target_tokens`');
  });

  it('an unknown provider points at the value', () => {
    const error = onlyError('llm:\n  profiles:\n    local: { provider: ollama }\n');
    expect(error).toMatchObject({ line: 3, column: 24, rule: 'config/schema' });
    expect(error.reason).toContain('`llm.profiles.local.provider`');
    expect(error.reason).toContain('extractive');
  });

  it('every invalid value is reported, each on its own line', () => {
    const { errors } = validateConfig('upload:\n  max_tokens: -5\n  max_bytes: 0\n', FILE);
    expect(errors.map((e) => [e.line, e.column])).toEqual([
      [2, 15],
      [3, 14],
    ]);
  });

  it('an unknown top-level key (the first key) is reported at that key', () => {
    const error = onlyError('uplaod:\n  max_tokens: 5\n');
    expect(error).toMatchObject({ line: 1, column: 1, rule: 'config/schema' });
    expect(error.reason).toContain('`uplaod`');
  });

  it('an unknown top-level key further down is reported at that key, not at the top of the file', () => {
    const error = onlyError('vault: vault\ntimezone: UTC\nuplaod:\n  max_tokens: 5\n');
    expect(error.reason).toContain('`uplaod`');
    expect([error.line, error.column]).toEqual([3, 1]);
  });

  it('an unknown nested key is reported at that key with its path', () => {
    const error = onlyError('upload:\n  max_tokens: 5\n  bogus: 1\n');
    expect(error.reason).toContain('upload');
    expect(error.reason).toContain('bogus');
    expect([error.line, error.column]).toEqual([3, 3]);
  });

  it('the hint points at a schema file that exists in the repository', () => {
    const error = onlyError('upload:\n  max_tokens: -5\n');
    const mentioned = /[\w./-]*memory\.config\.schema\.json/.exec(error.hint ?? '')?.[0];
    expect(mentioned, `hint: ${error.hint}`).toBeDefined();
    expect(
      existsSync(path.join(repoRoot, mentioned!)),
      `the hint names \`${mentioned}\`, which does not exist; the schema is \`${SCHEMA_FILE}\``,
    ).toBe(true);
  });
});

describe('JSON Schema and the committed files', () => {
  it(`the committed ${SCHEMA_FILE} matches the zod schema`, async () => {
    const committed = await readFile(path.join(repoRoot, SCHEMA_FILE), 'utf8');
    expect(committed, `${SCHEMA_FILE} is out of date: run \`npm run schema\` and commit the result`).toBe(configJsonSchemaText());
  });

  it('the JSON Schema rejects unknown keys and carries the defaults, so editors flag typos and show defaults', () => {
    const schema = configJsonSchema() as {
      additionalProperties?: unknown;
      properties: Record<string, { default?: unknown; additionalProperties?: unknown }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.upload?.additionalProperties).toBe(false);
    expect(schema.properties.timezone?.default).toBe('UTC');
    expect(schema.properties.upload?.default).toEqual(configSchema.parse({}).upload);
  });

  it('the repository memory.config.yaml validates without errors', async () => {
    const text = await readFile(path.join(repoRoot, CONFIG_FILE), 'utf8');
    const { errors, config } = validateConfig(text, CONFIG_FILE);
    expect(errors).toEqual([]);
    const loaded = await loadConfig(repoRoot);
    expect(loaded.errors).toEqual([]);
    expect(loaded.config).toEqual(config);
  });
});
