import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a project's config lives. Kept apart from `load.ts` (yaml + zod,
 * ~100 ms to import) so the CLI can find the project before loading them.
 */
export const CONFIG_FILE = 'memory.config.yaml';

/** The project root: the nearest folder upwards holding `memory.config.yaml`, else `start` itself. */
export function findRoot(start: string): string {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start);
    dir = parent;
  }
}
