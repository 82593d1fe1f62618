import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listFiles } from '../helpers/project.js';

export { type SpawnResult, spawnCli } from '../helpers/spawn-cli.js';

/** The `source:` part of every ingested memory of a project (memories and archive), one entry per file. */
export function ingestedParts(root: string): string[] {
  return listFiles(root, 'vault')
    .filter((file) => /\/(memories|archive)\/.*\.md$/.test(file))
    .map((file) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      const source = /^source: .*$/m.exec(text)?.[0] ?? '';
      return /\bpart: ([^,}\s]+)/.exec(source)?.[1] ?? '(none)';
    })
    .sort();
}
