import type { Config } from '../config/schema.js';
import { UserError } from '../util/errors.js';
import { createExtractiveSummarizer } from './extractive.js';
import type { Summarizer } from './types.js';

/**
 * The summarizer of the active profile (`llm.profile`, or `MEMVAULT_PROFILE`).
 * The embedded extractive summarizer is the default and needs no network.
 */
export function createSummarizer(config: Config, env: NodeJS.ProcessEnv = process.env): Summarizer {
  const name = env.MEMVAULT_PROFILE ?? config.llm.profile;
  const profile = config.llm.profiles[name];
  if (!profile) {
    throw new UserError(`LLM profile \`${name}\` is not defined`, `define it under \`llm.profiles\` in memory.config.yaml, or use one of: ${Object.keys(config.llm.profiles).join(', ')}`, 'llm/profile');
  }
  if (profile.provider === 'extractive') return createExtractiveSummarizer({ tokenizer: config.tokenizer });
  throw new UserError(`provider \`${profile.provider}\` of profile \`${name}\` is not available in this version`, 'use `provider: extractive`', 'llm/provider');
}
