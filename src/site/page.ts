import type { Memory, Summary } from '../vault/model.js';

/**
 * A page of the site before it is rendered: where it goes, what it is made of (`inputs`: plain data, hashed to decide
 * whether the page on disk is still right) and how to render it. Rendering reads bodies; planning never does.
 */
export interface PageSpec {
  path: string;
  inputs: unknown;
  render: () => string;
}

/** What every page's renderer may use: the stream names (for the navigation) and the readers of bodies. */
export interface SiteContext {
  vaultDir: string;
  streamNames: string[];
  memoryBody: (memory: Memory) => string;
  summaryBody: (summary: Summary) => string;
}
