import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { LoadOptions } from './load.js';

/**
 * What every command loads a project's vault with: its folder, the parse
 * cache, the time zone, the configured streams and the secrets policy (one
 * place, so no command can load memories holding secrets the config does not allow).
 */
export function vaultLoadOptions(root: string, config: Config): LoadOptions {
  return {
    vaultDir: path.resolve(root, config.vault),
    stateDir: path.join(root, '.memvault'),
    timezone: config.timezone,
    configuredStreams: Object.keys(config.streams),
    secrets: config.secrets,
    useRecord: config.git.record,
  };
}
