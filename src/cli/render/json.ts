/**
 * Data as `--json` prints it: indented (or on one line, for a stream of events), one trailing newline, every key in
 * snake_case. Reports are built in TypeScript's camelCase (`dryRun`, `inputTokens`); the one casing of memvault's JSON
 * is applied here, at the door, so `build`, `ingest`, `status` and the operations agree (docs/operations.md). Only
 * keys that are camelCase identifiers change: paths, ids, rule names (`fact/check-cache`) and stage names
 * (`parse.markdown`) are data and stay as they are.
 */
export function renderJson(data: unknown, options: { oneLine?: boolean } = {}): string {
  return `${JSON.stringify(snakeKeys(data), null, options.oneLine ? undefined : 2)}\n`;
}

const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

/** `inputTokens` → `input_tokens`; other keys unchanged. */
export function snakeKey(key: string): string {
  return CAMEL.test(key) ? key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) : key;
}

/** A copy of `data` with every object key through `snakeKey` (arrays and values kept). */
export function snakeKeys(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(snakeKeys);
  if (data === null || typeof data !== 'object') return data;
  if (typeof (data as { toJSON?: unknown }).toJSON === 'function') return snakeKeys((data as { toJSON: () => unknown }).toJSON());
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [snakeKey(key), snakeKeys(value)]));
}
