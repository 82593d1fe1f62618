#!/usr/bin/env node
/**
 * The `memvault` executable. It only decides whether stack traces are mapped
 * back to src/*.ts, then loads the CLI (main.ts). Node maps only the modules
 * loaded after `setSourceMapsEnabled`, and a shebang line cannot portably pass
 * `--enable-source-maps`, so this runs first, in a file of its own. Mapping is
 * on only with MEMVAULT_DEBUG (or NODE_OPTIONS=--enable-source-maps): reading
 * the maps would otherwise slow every start for a stack nobody prints.
 */
if (process.env.MEMVAULT_DEBUG) process.setSourceMapsEnabled(true);
await import('./main.js');
