import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderErrorsDoc } from '../src/messages/doc.js';

/** Writes docs/errors.md from the rule catalogue (src/messages/rules/). Run with `npm run errors-doc`. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const file = path.join(root, 'docs', 'errors.md');
writeFileSync(file, renderErrorsDoc());
process.stdout.write(`wrote ${path.relative(process.cwd(), file) || file}\n`);
