import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configJsonSchemaText, SCHEMA_FILE } from '../src/config/json-schema.js';

// dist/scripts/generate-schema.js → the repository root.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
writeFileSync(path.join(root, SCHEMA_FILE), configJsonSchemaText());
process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
