import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../util/atomic.js';
import { createHash } from 'node:crypto';
import type { PageSpec } from './page.js';
import { SITE_MANIFEST } from './paths.js';

/**
 * The last stage: writes the pages whose inputs changed, and only those. `.memvault-site.json` in the site's folder
 * keeps each page's input hash; a page whose hash is unchanged and whose file is still there is not rendered. Pages
 * the last run wrote that are gone now (a memory deleted or held back since) are removed; nothing else in the folder
 * is touched.
 */

/** Bump when the markup changes for the same inputs: every page is written again once. */
export const SITE_VERSION = 1;

interface SiteManifest {
  memvault: 'site';
  version: number;
  pages: Record<string, string>;
}

export interface WriteReport {
  pages: number;
  written: string[];
  removed: string[];
}

// The site folder may be a deployed copy a person or another tool changed: what is read back is checked.
const siteManifestSchema = z.object({
  memvault: z.literal('site'),
  version: z.literal(SITE_VERSION),
  pages: z.record(z.string(), z.string()),
});

export function readSiteManifest(outDir: string): SiteManifest | undefined {
  try {
    const parsed = siteManifestSchema.safeParse(JSON.parse(readFileSync(path.join(outDir, SITE_MANIFEST), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What would change: pages to write (new or changed inputs, or missing on disk) and pages to remove. Reads no page. */
export function planWrites(
  outDir: string,
  pages: readonly PageSpec[],
): { write: { page: PageSpec; hash: string }[]; remove: string[]; hashes: Record<string, string> } {
  const previous = readSiteManifest(outDir)?.pages ?? {};
  const hashes: Record<string, string> = {};
  const write: { page: PageSpec; hash: string }[] = [];
  for (const page of pages) {
    const hash = inputHash(page.inputs);
    hashes[page.path] = hash;
    if (previous[page.path] !== hash || !existsSync(path.join(outDir, page.path))) write.push({ page, hash });
  }
  const remove = Object.keys(previous).filter((p) => !(p in hashes));
  return { write, remove, hashes };
}

/**
 * A page's input hash: 128 bits of SHA-256 over its inputs as JSON. The inputs are plain data built in a fixed key order
 * by the page planners, so plain JSON is stable, and it is a third of the cost of a key-sorting stringify, which at
 * 20,000 memories (~60,000 list entries) was most of a one-edit run.
 */
export function inputHash(inputs: unknown): string {
  return createHash('sha256').update(`${SITE_VERSION}\n`).update(JSON.stringify(inputs)).digest('hex').slice(0, 32);
}

export function writeSite(outDir: string, pages: readonly PageSpec[]): WriteReport {
  const plan = planWrites(outDir, pages);
  const made = new Set<string>();
  for (const { page } of plan.write) {
    const file = path.join(outDir, page.path);
    const dir = path.dirname(file);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileAtomic(file, page.render());
  }
  for (const stale of plan.remove) {
    // Only paths this site wrote, inside its folder (the manifest is a file in that folder, so it is checked too).
    const file = path.resolve(outDir, stale);
    if (file.startsWith(`${path.resolve(outDir)}${path.sep}`)) rmSync(file, { force: true });
  }
  const manifest: SiteManifest = { memvault: 'site', version: SITE_VERSION, pages: plan.hashes };
  writeFileAtomic(path.join(outDir, SITE_MANIFEST), `${JSON.stringify(manifest)}\n`);
  return { pages: pages.length, written: plan.write.map((w) => w.page.path), removed: plan.remove };
}
