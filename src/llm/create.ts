import path from 'node:path';
import type { Config } from '../config/schema.js';
import { UserError } from '../util/errors.js';
import { createExtractiveSummarizer } from './extractive/index.js';
import { createOpenAiSummarizer } from './openai.js';
import { resolveOpenAiSettings } from './openai-settings.js';
import { loadPrompts, PromptsInvalidError } from './prompts.js';
import type { Summarizer } from './types.js';

export interface CreateSummarizerOptions {
  /** Project root: prompt overrides are read from `<root>/<config.prompts>` (default: the current folder). */
  root?: string;
  /** A dry run spends nothing, so a missing API key is not an error yet. */
  dryRun?: boolean;
}

/**
 * The summarizer of the active profile (`llm.profile`, or `MEMVAULT_PROFILE`).
 * The embedded extractive summarizer is the default and needs no network;
 * `provider: openai` talks to any OpenAI-compatible endpoint with the tier's
 * prompt (built in, or overridden from the project's prompts folder).
 * Throws a `UserError` for an unknown profile, a missing key or model, and a
 * `PromptsInvalidError` (with `file:line:col` diagnostics) for bad prompt files.
 *
 * @example
 *   const summarizer = createSummarizer(config, process.env, { root });
 */
export function createSummarizer(config: Config, env: NodeJS.ProcessEnv = process.env, options: CreateSummarizerOptions = {}): Summarizer {
  const name = env.MEMVAULT_PROFILE || config.llm.profile;
  const profile = config.llm.profiles[name];
  if (!profile) {
    throw new UserError('llm/profile', `LLM profile \`${name}\` is not defined`, { known: Object.keys(config.llm.profiles).join(', ') });
  }
  if (profile.provider === 'extractive') return createExtractiveSummarizer({ tokenizer: config.tokenizer });
  const settings = resolveOpenAiSettings(config, name, profile, env, { requireKey: !options.dryRun });
  const root = options.root ?? process.cwd();
  const loaded = loadPrompts({ projectDir: path.resolve(root, config.prompts), root });
  if (loaded.errors.length > 0) throw new PromptsInvalidError(loaded.errors);
  return createOpenAiSummarizer(settings, loaded.prompts, { tokenizer: config.tokenizer, diagnostics: loaded.warnings });
}
