import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every file under `root` (`.git/` and `.memvault/` included): path → sha256, in path order. */
export function hashTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else
        out.set(
          child,
          createHash('sha256')
            .update(readFileSync(path.join(root, child)))
            .digest('hex'),
        );
    }
  };
  walk('');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}
