import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string or bytes. */
export function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Hex SHA-256 of a JSON-serialisable value with sorted keys, so equal values hash equally. */
export function hashValue(value: unknown): string {
  return sha256(stableStringify(value));
}

/** JSON with object keys sorted: a canonical form for hashing. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}
