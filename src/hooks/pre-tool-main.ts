import { runPreToolHook } from './pre-tool.js';

/**
 * The entry of `dist/bin/pre-tool-hook.js` (scripts/bundle.mjs): the
 * pre-tool hook as one file of its own, which bin.ts loads for exactly
 * `memvault hook pre-tool`, instead of the six chunks it shares with the CLI
 * (each ES module costs Node a resolve, a read and a compile: ~6 ms of CPU of
 * a hook that runs before every Read, Edit and Write). Ends the process
 * itself, without closing the database (see `runPreToolHook`).
 */
await runPreToolHook(undefined, { exit: true });
