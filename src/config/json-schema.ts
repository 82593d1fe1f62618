import * as z from 'zod/mini';
import { configSchema } from './schema.js';

export const SCHEMA_FILE = 'memory.config.schema.json';

/**
 * The JSON Schema of `memory.config.yaml`, generated from the zod schema so
 * the two never drift (a test compares it with the committed file). Editors
 * with the YAML language server pick it up from the file's first line.
 */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, title: 'memvault configuration (memory.config.yaml)' };
}

/** The schema as the file text that is committed and written by `memvault init`. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
