import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readConfig } from '../read/vault.js';
import { checkRequest } from './params.js';
import { registerResources } from './resources.js';
import { LineTransport } from './stdio.js';
import { registerTools } from './tools.js';
import { WarmVault } from './warm.js';

/**
 * `memvault mcp`: a Model Context Protocol server on stdin/stdout. stdout
 * carries protocol messages only; every log line goes to stderr. Messages
 * are read by `LineTransport` (stdio.ts): at most 4 MiB a line, every line
 * answered or passed on.
 */

export interface McpOptions {
  root: string;
  /** The clock per call (default: the wall clock). */
  now?: () => Date;
  /** Follow file changes (default true). */
  watch?: boolean;
}

/** A log line on stderr (stdout carries protocol messages only). */
const log = (line: string): void => void process.stderr.write(`memvault mcp: ${line}\n`);

/** The server with its tools and resources over a warm vault (not connected yet). */
export async function createMcpServer(options: McpOptions): Promise<{ server: McpServer; warm: WarmVault }> {
  const config = await readConfig(options.root);
  const warm = await WarmVault.open(options.root, { log, ...(options.watch === false ? { watch: false } : {}) });
  const server = new McpServer(
    { name: 'memvault', version: '0.1.0' },
    {
      instructions:
        'Long-term memory of this project. Call `context` at the start of a task, `search` for past decisions and errors, ' +
        '`zoom` into a period a hit names, and `add_memory` for decisions and instructions worth keeping.',
    },
  );
  const streams = [...new Set([...Object.keys(config.streams), ...(await warm.current()).vault.loaded.state.streams.keys()])];
  const waterfall = new Set(
    Object.entries(config.streams)
      .filter(([, s]) => s.waterfall)
      .map(([name]) => name),
  );
  registerTools(server, { warm, now: options.now ?? (() => new Date()), log });
  registerResources(server, warm, streams, waterfall);
  return { server, warm };
}

/** Serves on stdio until stdin closes or the process is stopped. */
export async function runStdioServer(options: McpOptions): Promise<void> {
  const { server, warm } = await createMcpServer(options);
  const transport = new LineTransport({ log, screen: checkRequest });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await server.connect(transport);
  process.stderr.write(`memvault mcp: serving ${options.root} on stdio\n`);
  await closed;
  await warm.close();
  await server.close();
}
