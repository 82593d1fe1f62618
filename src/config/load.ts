import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { core } from 'zod/mini';
import { diagnostic } from '../messages/diagnostic.js';
import { UserError } from '../util/errors.js';
import type { Diagnostic } from '../vault/model.js';
import { CONFIG_FILE } from './file.js';
import { configSchema, type Config } from './schema.js';

export { CONFIG_FILE };

export interface ConfigResult {
  config: Config;
  /** Absolute directory holding the config file: vault, cache and lock paths are relative to it. */
  root: string;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/**
 * Validates the text of a config file. Errors point at the YAML node's real
 * position (line and column from the `yaml` parser), not a guess.
 *
 * @example
 *   const { config, errors } = validateConfig('timezone: Europe/Berlin\n', 'memory.config.yaml');
 */
export function validateConfig(text: string, file: string): { config: Config; errors: Diagnostic[]; warnings: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const errors: Diagnostic[] = [];
  for (const error of doc.errors) {
    const pos = lineCounter.linePos(error.pos[0]);
    errors.push(diagnostic('config/yaml', { path: file, line: pos.line, column: pos.col }, `invalid YAML: ${firstLine(error.message)}`));
  }
  if (errors.length > 0) return { config: configSchema.parse({}), errors, warnings: [] };

  const raw: unknown = doc.toJS() ?? {};
  const vault = typeof raw === 'object' && raw !== null ? (raw as { vault?: unknown }).vault : undefined;
  const outside = typeof vault === 'string' ? vaultOutside(vault) : undefined;
  if (outside) {
    const place = locate(doc, lineCounter, ['vault']);
    errors.push(diagnostic('config/vault', { path: file, line: place.line, column: place.col }, `\`vault\`: \`${vault}\` ${outside}`));
  }
  const parsed = configSchema.safeParse(raw);
  if (parsed.success)
    return errors.length > 0 ? { config: configSchema.parse({}), errors, warnings: [] } : { config: parsed.data, errors: [], warnings: [] };
  for (const issue of parsed.error.issues) {
    // An unknown key is reported on its parent's path: point at the key itself.
    const keyPath = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
    const place = locate(doc, lineCounter, keyPath, issue.code === 'unrecognized_keys');
    const reason = `${issue.path.length > 0 ? `\`${issue.path.join('.')}\`: ` : ''}${describeIssue(issue)}`;
    errors.push(diagnostic('config/schema', { path: file, line: place.line, column: place.col }, reason));
  }
  return { config: configSchema.parse({}), errors, warnings: [] };
}

/** Reads and validates `memory.config.yaml` in `root`; a missing file means every default. */
export async function loadConfig(root: string): Promise<ConfigResult> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { config: configSchema.parse({}), root, errors: [], warnings: [] };
    }
    throw error;
  }
  return { ...validateConfig(text, CONFIG_FILE), root };
}

/**
 * Why a `vault:` value is not a folder inside the project, or undefined when
 * it is one: the vault is `path.resolve(root, vault)`, so an absolute path
 * (POSIX or Windows) or one that climbs out with `..` would put every build
 * and `add` outside the repository.
 */
export function vaultOutside(vault: string): string | undefined {
  if (path.posix.isAbsolute(vault) || path.win32.isAbsolute(vault)) return 'is an absolute path';
  const normal = path.posix.normalize(vault.replace(/\\/g, '/'));
  if (normal === '..' || normal.startsWith('../')) return 'leads out of the project folder';
  return undefined;
}

function locate(doc: Document, counter: LineCounter, issuePath: readonly PropertyKey[], atKey = false): { line: number; col: number } {
  const keys = issuePath.map((key) => (typeof key === 'symbol' ? String(key) : key));
  if (atKey && keys.length > 0) {
    const parent = keys.length === 1 ? doc.contents : doc.getIn(keys.slice(0, -1), true);
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === keys[keys.length - 1]);
      if (pair && isNode(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]);
    }
  }
  // Walk down as far as the document has nodes: a missing key points at its parent map.
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(keys.slice(0, depth), true);
    if (isNode(node) && node.range) return counter.linePos(node.range[0]);
  }
  return { line: 1, col: 1 };
}

function describeIssue(issue: core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
  return issue.message;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** `memory.config.yaml` has problems; `diagnostics` holds each with its place (the CLI prints them one per line). */
export class ConfigInvalidError extends UserError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super(
      'config/invalid',
      `memory.config.yaml is invalid (${diagnostics.length} problem${diagnostics.length > 1 ? 's' : ''})`,
      {},
      { diagnostics },
    );
    this.name = 'ConfigInvalidError';
  }
}

/** The validated config of the project in `root`; throws `ConfigInvalidError` listing every problem. */
export async function loadValidConfig(root: string): Promise<Config> {
  const { config, errors } = await loadConfig(root);
  if (errors.length > 0) throw new ConfigInvalidError(errors);
  return config;
}
