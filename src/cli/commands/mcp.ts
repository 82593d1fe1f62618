import { findRoot, resolveNow } from '../context.js';

export interface McpCommandOptions {
  root?: string;
  /** Commander's `--no-watch` sets this to false. */
  watch?: boolean;
}

/** `memvault mcp`: serves the vault to an MCP client on stdin/stdout until the client disconnects. */
export async function mcpCommand(options: McpCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const { runStdioServer } = await import('../../mcp/server.js');
  // MEMVAULT_NOW fixes the clock of every call (tests); else the wall clock at each call.
  const now = process.env.MEMVAULT_NOW ? () => resolveNow(undefined) : () => new Date();
  await runStdioServer({ root, now, ...(options.watch === false ? { watch: false } : {}) });
}
