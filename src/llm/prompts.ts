import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import * as z from 'zod';
import { UserError } from '../util/errors.js';
import { hashValue } from '../util/hash.js';
import type { Diagnostic } from '../vault/model.js';
import { diagnostic } from '../messages/diagnostic.js';
import { TIER_PROMPTS, type TierPrompt } from '../time/tiers.js';

/**
 * Prompts as YAML files, one per tier: the built-in ones ship in the
 * package's `prompts/` folder, and a project overrides one by putting a file
 * of the same name in its own prompts folder (config key `prompts`, default
 * `prompts/`). A file is validated (zod, plus a check of every `{{variable}}`)
 * and errors name `file:line:col`. What a prompt sends is hashed into the
 * summaries made with it, so editing a prompt regenerates exactly those.
 */

/** Every prompt memvault knows, in the order they are documented: one per tier (the tier table, time/tiers.ts), then the primer's. */
export const PROMPT_NAMES: readonly PromptName[] = [...TIER_PROMPTS, 'session-primer'];
/** `daily`, `weekly`, … `session-primer`: the file name without `.yaml`. */
export type PromptName = TierPrompt | 'session-primer';

/** A plain format for base models, used when a prompt file has no `completion` section. */
export const SEED_COMPLETION_PROMPT =
  '{{notes}}\n# Memories:\n\n{{sources}}\n\n# Summary (first-person perspective, I/me/my, no meta-commentary):\n>';
const DEFAULT_SOURCE = '### {{heading}}\n\n{{body}}\n';
const DEFAULT_RETRY = [
  'Your previous answer was {{previous_tokens}} tokens, over the limit. Keep output under {{max_tokens}} tokens (about {{max_words}} words).',
  'CRITICAL: the answer MUST be under {{max_tokens}} tokens (about {{max_words}} words); the previous one had ' +
    '{{previous_tokens}}. Keep only the essentials, one short line each.',
];
const DEFAULT_KEEP = 'Keep these items, the previous answer lost them: {{missing}}';

const template = z.string().trim().min(1, 'must not be empty');

const promptSchema = z.strictObject({
  version: z.literal(1).default(1).describe('Format version of the prompt file.'),
  description: z.string().optional(),
  system: template.describe('Chat mode: the system message.'),
  user: template.describe('Chat mode: the user message; must contain {{sources}}.'),
  source: template.default(DEFAULT_SOURCE).describe('How one source is rendered into {{sources}}.'),
  retry: z
    .array(template)
    .min(1, 'needs at least one instruction')
    .default(DEFAULT_RETRY)
    .describe('Instructions added to retries after an over-budget answer; retry n uses entry n (the last one from then on).'),
  keep: template.default(DEFAULT_KEEP).describe('Added when must-keep items were lost; must contain {{missing}}.'),
  completion: z
    .strictObject({
      prompt: template
        .default(SEED_COMPLETION_PROMPT)
        .describe('Completion mode (base models): the whole prompt; must contain {{sources}}.'),
      stop: z.array(z.string().min(1)).min(1).default(['\n#']).describe('Stop sequences for completion mode.'),
    })
    .default({ prompt: SEED_COMPLETION_PROMPT, stop: ['\n#'] }),
});

/** A validated prompt file with every default filled in. */
export type PromptFile = z.output<typeof promptSchema>;

/** A prompt in use, with where it came from. */
export interface LoadedPrompt {
  name: PromptName;
  /** Where it came from, for messages: `prompts/weekly.yaml` or `<memvault>/prompts/weekly.yaml`. */
  file: string;
  origin: 'built-in' | 'project';
  prompt: PromptFile;
}

/** Every prompt (built in or overridden), with the problems found; `prompts` lacks the invalid ones. */
export interface PromptLoadResult {
  prompts: Map<PromptName, LoadedPrompt>;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/** Prompt files that cannot be used, each error with its place; the CLI prints them one per line. */
export class PromptsInvalidError extends UserError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super(
      'prompt/invalid',
      `prompt files are invalid (${diagnostics.length} problem${diagnostics.length > 1 ? 's' : ''})`,
      {},
      { diagnostics },
    );
    this.name = 'PromptsInvalidError';
  }
}

// ---------------------------------------------------------------------------
// Variables

/** Variables every template of a request may use. */
const REQUEST_VARIABLES = [
  'stream',
  'tier',
  'period',
  'start',
  'end',
  'max_tokens',
  'max_words',
  'max_bytes',
  'source_count',
  'attempt',
] as const;
/** Variables of the `source` template (one source). */
const SOURCE_VARIABLES = ['heading', 'label', 'day', 'time', 'kind', 'importance', 'id', 'body'] as const;

interface FieldRule {
  allowed: readonly string[];
  required?: string;
}

const FIELD_RULES: Record<string, FieldRule> = {
  system: { allowed: REQUEST_VARIABLES },
  user: { allowed: [...REQUEST_VARIABLES, 'sources', 'notes'], required: 'sources' },
  source: { allowed: SOURCE_VARIABLES },
  retry: { allowed: [...REQUEST_VARIABLES, 'previous_tokens'] },
  keep: { allowed: [...REQUEST_VARIABLES, 'missing'], required: 'missing' },
  'completion.prompt': { allowed: [...REQUEST_VARIABLES, 'sources', 'notes'], required: 'sources' },
};

const VARIABLE = /\{\{\s*([A-Za-z0-9_.-]*)\s*\}\}/g;

/**
 * Fills `{{name}}` placeholders; a name without a value becomes empty.
 *
 * @example
 *   renderTemplate('Week {{period}}', { period: '2026-W07' }) // 'Week 2026-W07'
 */
export function renderTemplate(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(VARIABLE, (_, name: string) => variables[name] ?? '');
}

// ---------------------------------------------------------------------------
// Loading and validation

/**
 * The package's built-in prompts folder: the nearest `prompts/` upwards from
 * this module that holds `daily.yaml` (`dist/src/llm` and `src/llm` both work).
 */
export function builtinPromptsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'prompts');
    if (existsSync(path.join(candidate, 'daily.yaml')) && existsSync(path.join(dir, 'package.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`the built-in prompts folder was not found above \`${fileURLToPath(import.meta.url)}\``);
    dir = parent;
  }
}

/**
 * Validates the text of one prompt file; `file` is the name used in messages.
 *
 * @example
 *   const { prompt, errors } = validatePrompt(readFileSync('prompts/weekly.yaml', 'utf8'), 'prompts/weekly.yaml');
 */
export function validatePrompt(text: string, file: string): { prompt: PromptFile | undefined; errors: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const errors: Diagnostic[] = [];
  const at = (offset: number): { line: number; column: number } => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  for (const error of doc.errors) {
    errors.push(diagnostic('prompt/yaml', { path: file, ...at(error.pos[0]) }, `invalid YAML: ${error.message.split('\n')[0]}`));
  }
  if (errors.length > 0) return { prompt: undefined, errors };

  const raw: unknown = doc.toJS() ?? {};
  const parsed = promptSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const keyPath = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
      const reason =
        issue.code === 'unrecognized_keys'
          ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`
          : issue.message;
      const place = { path: file, ...at(offsetOf(doc, keyPath, issue.code === 'unrecognized_keys')) };
      errors.push(diagnostic('prompt/schema', place, `${issue.path.length > 0 ? `\`${issue.path.join('.')}\`: ` : ''}${reason}`));
    }
    return { prompt: undefined, errors };
  }

  const prompt = parsed.data;
  const check = (keyPath: (string | number)[], value: string, rule: FieldRule): void => {
    const start = offsetOf(doc, keyPath);
    const node = doc.getIn(keyPath, true);
    const end = isNode(node) && node.range ? node.range[1] : text.length;
    const seen = new Set<string>();
    for (const match of value.matchAll(VARIABLE)) {
      const name = match[1] ?? '';
      seen.add(name);
      if (rule.allowed.includes(name)) continue;
      // The placeholder as written in the file (block scalars keep it verbatim), else the value's start.
      const found = text.indexOf(match[0], start);
      const place = { path: file, ...at(found >= 0 && found < end ? found : start) };
      const hint = `allowed here: ${rule.allowed.map((v) => `{{${v}}}`).join(' ')}`;
      errors.push(diagnostic('prompt/variable', place, `\`${keyPath.join('.')}\`: unknown variable \`{{${name}}}\``, { hint }));
    }
    if (rule.required && !seen.has(rule.required)) {
      const reason = `\`${keyPath.join('.')}\`: must contain \`{{${rule.required}}}\``;
      errors.push(
        diagnostic('prompt/variable', { path: file, ...at(start) }, reason, { hint: `add {{${rule.required}}} where it belongs` }),
      );
    }
  };
  check(['system'], prompt.system, FIELD_RULES.system!);
  check(['user'], prompt.user, FIELD_RULES.user!);
  check(['source'], prompt.source, FIELD_RULES.source!);
  prompt.retry.forEach((retry, i) => check(['retry', i], retry, FIELD_RULES.retry!));
  check(['keep'], prompt.keep, FIELD_RULES.keep!);
  check(['completion', 'prompt'], prompt.completion.prompt, FIELD_RULES['completion.prompt']!);
  return errors.length > 0 ? { prompt: undefined, errors } : { prompt, errors };
}

/**
 * Loads every prompt: the project's override when `<projectDir>/<name>.yaml`
 * exists, else the built-in one. Files in the project folder with other
 * names are reported as warnings (a typo would otherwise do nothing).
 */
export function loadPrompts(options: { projectDir?: string; root?: string; builtinDir?: string } = {}): PromptLoadResult {
  const builtinDir = options.builtinDir ?? builtinPromptsDir();
  const root = options.root ?? process.cwd();
  const result: PromptLoadResult = { prompts: new Map(), errors: [], warnings: [] };
  const projectDir = options.projectDir && path.resolve(options.projectDir) !== path.resolve(builtinDir) ? options.projectDir : undefined;
  for (const name of PROMPT_NAMES) {
    const override = projectDir ? path.join(projectDir, `${name}.yaml`) : undefined;
    const origin = override && existsSync(override) ? 'project' : 'built-in';
    const absolute = origin === 'project' ? override! : path.join(builtinDir, `${name}.yaml`);
    const file = origin === 'project' ? toPosix(path.relative(root, absolute)) : `<memvault>/prompts/${name}.yaml`;
    const { prompt, errors } = validatePrompt(readFileSync(absolute, 'utf8'), file);
    result.errors.push(...errors);
    if (prompt) result.prompts.set(name, { name, file, origin, prompt });
  }
  if (projectDir && existsSync(projectDir)) {
    for (const entry of readdirSync(projectDir)) {
      if (!/\.ya?ml$/.test(entry)) continue;
      const name = entry.replace(/\.ya?ml$/, '');
      if (entry.endsWith('.yaml') && (PROMPT_NAMES as readonly string[]).includes(name)) continue;
      const place = { path: toPosix(path.relative(root, path.join(projectDir, entry))), line: 1, column: 1 };
      const names = PROMPT_NAMES.map((n) => `${n}.yaml`).join(', ');
      result.warnings.push(
        diagnostic('prompt/unknown-file', place, 'not a prompt memvault uses, so it has no effect', { facts: { names } }),
      );
    }
  }
  return result;
}

/**
 * What a prompt sends in a mode, as a hash: the fields that mode uses, so
 * editing comments, or the completion template while in chat mode,
 * regenerates nothing.
 */
export function promptFingerprint(prompt: PromptFile, mode: 'chat' | 'completion'): string {
  const used =
    mode === 'chat'
      ? { system: prompt.system, user: prompt.user, source: prompt.source, retry: prompt.retry, keep: prompt.keep }
      : { completion: prompt.completion, source: prompt.source, retry: prompt.retry, keep: prompt.keep };
  return hashValue({ version: prompt.version, mode, ...used });
}

/** Offset of the YAML node at `keyPath` (or of its key), else of the deepest existing parent. */
function offsetOf(doc: Document, keyPath: readonly PropertyKey[], atKey = false): number {
  const keys = keyPath.map((key) => (typeof key === 'symbol' ? String(key) : key));
  if (atKey && keys.length > 0) {
    const parent = keys.length === 1 ? doc.contents : doc.getIn(keys.slice(0, -1), true);
    const items = (parent as { items?: { key?: unknown }[] } | null)?.items ?? [];
    const pair = items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === keys[keys.length - 1]);
    if (pair && isNode(pair.key) && pair.key.range) return pair.key.range[0];
  }
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(keys.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}
