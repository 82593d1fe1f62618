import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { UserError } from '../util/errors.js';
import type { Diagnostic } from '../vault/model.js';

/**
 * The config for `add` and `ingest`. They load only what they use (not the
 * build pipeline, git or an LLM SDK), so they start fast: this mirrors the
 * build's `ConfigInvalidError` without importing it.
 */

/** `memory.config.yaml` has problems; `diagnostics` holds each with its place. */
export class ConfigProblemsError extends UserError {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(`memory.config.yaml is invalid (${diagnostics.length} problem${diagnostics.length > 1 ? 's' : ''})`, 'fix the lines listed above', 'config/invalid');
  }
}

/** The validated config of the project in `root`; throws `ConfigProblemsError` listing every problem. */
export async function loadValidConfig(root: string): Promise<Config> {
  const { config, errors } = await loadConfig(root);
  if (errors.length > 0) throw new ConfigProblemsError(errors);
  return config;
}
