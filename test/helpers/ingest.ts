import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProject, listFiles } from './project.js';

/** Helpers of the `memvault ingest` end-to-end tests (test/ingest/cli*.test.ts). */

/** test/fixtures/, where the sample transcripts of each format live. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The zone the ingest tests read transcripts in: sessions near midnight land on the day of that zone. */
export const INGEST_CONFIG = 'timezone: Europe/Berlin\n';

/**
 * A project with fixture files (paths under test/fixtures/) copied to
 * `transcripts/<name>`; pushes its folder to `roots` so the caller removes it.
 */
export function ingestProject(roots: string[], files: Record<string, string> = {}, config = INGEST_CONFIG): string {
  const root = createProject({}, config);
  roots.push(root);
  mkdirSync(path.join(root, 'transcripts'), { recursive: true });
  for (const [name, fixture] of Object.entries(files)) copyFileSync(path.join(FIXTURES, fixture), path.join(root, 'transcripts', name));
  return root;
}

/** The memory files of a project (project-relative paths), sorted. */
export const memoryFiles = (root: string): string[] => listFiles(root, 'vault').filter((file) => file.includes('/memories/'));
