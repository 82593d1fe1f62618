import { existsSync } from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type FSWatcher, watch } from 'chokidar';
import { warmEnv } from './env.js';
import { checkRequest } from './params.js';
import { PAGE_SIZE, registerResources, ResourceNotifier } from './resources.js';
import { LineTransport } from './stdio.js';
import { registerTools } from './tools.js';
import { WarmVault } from './warm.js';

/**
 * `memvault mcp`: a Model Context Protocol server on stdin/stdout (the
 * official SDK's `Server`). stdout carries protocol messages only; every log
 * line goes to stderr. Messages are read by `LineTransport` (stdio.ts): at
 * most 4 MiB a line, every line answered or passed on. Tools are the
 * operations of src/ops/ (tools.ts); resources the packages and summaries
 * (resources.ts), with notifications when a build changes them.
 */

export interface McpOptions {
  root: string;
  /** The clock per call (default: the wall clock). */
  now?: () => Date;
  /** Follow file changes (default true). */
  watch?: boolean;
  /** Resources per `resources/list` page (default `PAGE_SIZE`, 50). */
  pageSize?: number;
}

/** A log line on stderr (stdout carries protocol messages only). */
const log = (line: string): void => void process.stderr.write(`memvault mcp: ${line}\n`);

export const INSTRUCTIONS =
  'Long-term memory of this project. Call `context` at the start of a task, `search` for past decisions and errors, ' +
  '`zoom` into a period a hit names, `facts` for what holds now, and `add_memory` for decisions and instructions worth keeping.';

export interface McpServerHandle {
  server: Server;
  warm: WarmVault;
  close(): Promise<void>;
}

/** The server with its tools and resources over a warm vault (not connected yet). */
export async function createMcpServer(options: McpOptions): Promise<McpServerHandle> {
  let notifier: ResourceNotifier | undefined;
  const watching = options.watch !== false;
  const warm = await WarmVault.open(options.root, {
    log,
    ...(watching ? {} : { watch: false }),
    onReload: () => notifier?.schedule(),
  });
  const server = new Server(
    { name: 'memvault', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: true } },
      instructions: INSTRUCTIONS,
    },
  );
  const now = options.now ?? (() => new Date());
  notifier = new ResourceNotifier(server, warm, log);
  await notifier.refresh();
  registerTools(server, { env: warmEnv(warm, now), log });
  registerResources(server, warm, { now, notifier, pageSize: options.pageSize ?? PAGE_SIZE });
  const outputs = watching ? await watchOutputs(warm.vaultDir, () => notifier?.schedule()) : undefined;
  return {
    server,
    warm,
    close: async () => {
      notifier?.close();
      await outputs?.close();
      await warm.close();
      await server.close();
    },
  };
}

/**
 * Follows the files a build writes that the warm vault does not read (each
 * stream's UPLOAD_PACKAGE.md and CONTEXT.md): their resources change when they do.
 */
async function watchOutputs(vaultDir: string, changed: () => void): Promise<FSWatcher | undefined> {
  if (!existsSync(vaultDir)) return undefined;
  const names = new Set(['UPLOAD_PACKAGE.md', 'CONTEXT.md']);
  const watcher = watch(vaultDir, {
    ignoreInitial: true,
    depth: 1,
    followSymlinks: false,
    ignored: (file) => {
      const parts = path.relative(vaultDir, file).split(path.sep).filter(Boolean);
      if (parts.some((part) => part.startsWith('.'))) return true;
      return parts.length === 2 && !names.has(parts[1]!);
    },
  });
  watcher.on('all', changed);
  watcher.on('error', (error) => log(`file watcher: ${(error as Error).message}`));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return watcher;
}

/** Serves on stdio until stdin closes or the process is stopped. */
export async function runStdioServer(options: McpOptions): Promise<void> {
  const handle = await createMcpServer(options);
  const transport = new LineTransport({ log, screen: checkRequest });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await handle.server.connect(transport);
  process.stderr.write(`memvault mcp: serving ${options.root} on stdio\n`);
  await closed;
  await handle.close();
}
