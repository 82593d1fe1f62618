import { requireLazy } from '../util/lazy.js';

/**
 * Names the secret detector's rule set without loading it (the parse cache
 * checks it on every build, most of which scan nothing): secretlint's preset
 * version and the version of memvault's own rules. Bump `RULES_VERSION` with
 * any change to rules.ts, shape.ts or how detect.ts combines findings: cached
 * scan results are valid for one `DETECTOR_VERSION` only.
 */
export const RULES_VERSION = 4;

const presetVersion = (requireLazy('@secretlint/secretlint-rule-preset-recommend/package.json') as { version: string }).version;

export const DETECTOR_VERSION = `secretlint-preset-recommend@${presetVersion};memvault-rules@${RULES_VERSION}`;
