#!/usr/bin/env node
import { existsSync } from 'node:fs';
import module from 'node:module';

/**
 * The `memvault` executable. It only sets up how the CLI's code is loaded,
 * then loads it (main.ts):
 * - Stack traces are mapped back to src/*.ts only with MEMVAULT_DEBUG (or
 *   NODE_OPTIONS=--enable-source-maps): Node maps only the modules loaded after
 *   `setSourceMapsEnabled`, and a shebang line cannot portably pass
 *   `--enable-source-maps`, so it happens here, in a file of its own; reading
 *   the maps would otherwise slow every start for a stack nobody prints.
 * - On Node ≥ 22.1, V8's compiled code is kept between runs (Node's compile
 *   cache in the OS temp folder): compiling the bundle is a large part of a
 *   short command's time. Node 20 has no such cache; there this is a no-op.
 */
if (process.env.MEMVAULT_DEBUG) process.setSourceMapsEnabled(true);
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// `memvault hook pre-tool` runs before every Read, Edit and Write of a coding agent: straight to the hook, without the
// command parser and the message catalogue (src/hooks/pre-tool.ts), from the one file the bundle makes of it
// (dist/bin/pre-tool-hook.js, scripts/bundle.mjs); from tsc's output, its entry module. Any other form
// (`-C dir hook pre-tool`) goes through main.
if (process.argv.length === 4 && process.argv[2] === 'hook' && process.argv[3] === 'pre-tool') {
  const bundled = new URL('./pre-tool-hook.js', import.meta.url);
  await import(existsSync(bundled) ? bundled.href : '../hooks/pre-tool-main.js');
} else await import('./main.js');
