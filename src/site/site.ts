import path from 'node:path';
import { memoryBody, type ReadVault, summaryBody } from '../read/vault.js';
import { collectSiteInput } from './collect.js';
import { SITE_CSS } from './layout.js';
import { memoryPages } from './pages-memory.js';
import { timelinePages } from './pages-timeline.js';
import { vaultPages } from './pages-vault.js';
import type { PageSpec, SiteContext } from './page.js';
import { sitePaths } from './paths.js';
import { searchPages } from './search.js';
import { type WriteReport, writeSite } from './write.js';

/**
 * `memvault site`: the vault as a static site. collect (what the pages are made of) → plan (every page with its
 * inputs) → write (the pages whose inputs changed). See docs/site.md.
 */

export interface SiteResult extends WriteReport {
  outDir: string;
}

/** Every page of the site, unrendered. Pure but for the readers of bodies it hands the pages. */
export function planSite(vault: ReadVault, today: string): PageSpec[] {
  const input = collectSiteInput(vault, today);
  const context: SiteContext = {
    vaultDir: vault.vaultDir,
    streamNames: input.streams.map((s) => s.name),
    memoryBody: (memory) => memoryBody(vault, memory),
    summaryBody: (summary) => summaryBody(vault, summary),
  };
  const pages: PageSpec[] = [
    { path: sitePaths.css, inputs: { page: 'css', css: SITE_CSS.value }, render: () => SITE_CSS.value },
    ...vaultPages(input, context),
    ...input.streams.flatMap((stream) => [...timelinePages(stream, context), ...memoryPages(stream, context)]),
    ...searchPages(input, context),
  ];
  return pages;
}

export function buildSite(vault: ReadVault, outDir: string, today: string): SiteResult {
  const pages = planSite(vault, today);
  return { outDir: path.resolve(outDir), ...writeSite(outDir, pages) };
}
