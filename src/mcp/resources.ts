import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { hintFor } from '../messages/catalogue.js';
import { recordUsage } from '../usage/log.js';
import { vaultPaths } from '../vault/paths.js';
import { RESOURCE_NOT_FOUND, rpcError } from './errors.js';
import type { WarmVault } from './warm.js';

/**
 * The MCP resources, all `text/markdown`, listed as they are on disk now:
 * - `memvault://<stream>/UPLOAD_PACKAGE.md` and `memvault://<stream>/CONTEXT.md`
 *   (waterfall streams): what the build hands to a model, once it wrote them;
 * - `memvault://<stream>/summary/<tier>/<period>` (also a template): every
 *   summary of the vault, e.g. `memvault://main/summary/weekly/2026-W07`.
 *
 * `resources/list` is paginated (`PAGE_SIZE` a page, an opaque cursor); an
 * unknown URI is -32002 (Resource not found). Reading a summary serves it,
 * so it counts as used; listing does not.
 */

/** Resources per `resources/list` page. */
export const PAGE_SIZE = 50;

export interface ResourceEntry extends Resource {
  stream: string;
  /** The file, relative to the vault folder. */
  vaultPath: string;
  /** Changes when the content changes: a summary's hash, an output file's mtime and size. */
  stamp: string;
  /** A summary: reading it serves one item. */
  item: boolean;
}

/** Every resource there is now, packages and CONTEXT.md files first, then the summaries by stream, tier and period. */
export async function currentResources(warm: WarmVault): Promise<ResourceEntry[]> {
  const { vault } = await warm.current();
  const entries: ResourceEntry[] = [];
  const streams = [...new Set([...Object.keys(vault.config.streams), ...vault.loaded.state.streams.keys()])];
  const output = (stream: string, vaultPath: string, file: string, title: string, description: string): void => {
    let stamp: string;
    try {
      const stat = statSync(path.join(vault.vaultDir, vaultPath));
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return; // not built yet: not listed
    }
    entries.push({
      uri: `memvault://${stream}/${file}`,
      name: `${stream}-${file}`,
      title,
      description,
      mimeType: 'text/markdown',
      stream,
      vaultPath,
      stamp,
      item: false,
    });
  };
  for (const stream of streams) {
    output(
      stream,
      vaultPaths.package(stream),
      'UPLOAD_PACKAGE.md',
      `${stream}: upload package`,
      `The bounded memory package of stream ${stream}.`,
    );
    if (vault.config.streams[stream]?.waterfall)
      output(stream, vaultPaths.context(stream), 'CONTEXT.md', `${stream}: CONTEXT.md`, `The agent context block of stream ${stream}.`);
  }
  const summaries: ResourceEntry[] = [];
  for (const stream of vault.loaded.state.streams.values())
    for (const summary of stream.summaries.values()) {
      const { tier, period } = summary.meta;
      summaries.push({
        uri: `memvault://${stream.name}/summary/${tier}/${period}`,
        name: `${stream.name} ${tier} ${period}`,
        mimeType: 'text/markdown',
        stream: stream.name,
        vaultPath: summary.path,
        stamp: summary.sha256,
        item: true,
      });
    }
  summaries.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return [...entries, ...summaries];
}

export function registerResources(
  server: Server,
  warm: WarmVault,
  { now, notifier, pageSize }: { now: () => Date; notifier: ResourceNotifier; pageSize: number },
): void {
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const all = await currentResources(warm);
    const offset = decodeCursor(request.params?.cursor);
    const page = all.slice(offset, offset + pageSize).map(asResource);
    return { resources: page, ...(offset + pageSize < all.length ? { nextCursor: encodeCursor(offset + pageSize) } : {}) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'memvault://{stream}/summary/{tier}/{period}',
        name: 'summary',
        title: 'Summary by tier and period',
        description: 'A daily, weekly, monthly or long-term summary.',
        mimeType: 'text/markdown',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const { uri } = request.params;
    const entry = (await currentResources(warm)).find((candidate) => candidate.uri === uri);
    let text: string | undefined;
    try {
      text = entry && readFileSync(path.join(warm.vaultDir, entry.vaultPath), 'utf8');
    } catch {
      text = undefined;
    }
    if (!entry || text === undefined)
      throw rpcError(RESOURCE_NOT_FOUND, `no resource \`${uri}\``, { uri, rule: 'mcp/resource', hint: hintFor('mcp/resource') });
    if (entry.item) recordUsage(warm.root, [{ stream: entry.stream, path: entry.vaultPath }], 'mcp:resource', now());
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    notifier.subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    notifier.unsubscribe(request.params.uri);
    return {};
  });
}

function asResource(entry: ResourceEntry): Resource {
  const { stream: _stream, vaultPath: _vaultPath, stamp: _stamp, item: _item, ...resource } = entry;
  return resource;
}

/** The cursor of the page starting at `offset`: opaque to the client, as the spec asks. */
function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    // A client's string: anything but `{"offset": n}` is refused below.
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const offset = typeof decoded === 'object' && decoded !== null ? (decoded as { offset?: unknown }).offset : undefined;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // fall through
  }
  throw rpcError(ErrorCode.InvalidParams, `resources/list: cursor \`${cursor}\` is not one this server gave; list again without a cursor`);
}

/**
 * Tells clients when the resources change: `notifications/resources/list_changed`
 * when one appears or goes (a build wrote a new summary or package), and
 * `notifications/resources/updated` for a subscribed resource whose content
 * changed. It compares the resources before and after each reload of the
 * warm vault and each change of a package or CONTEXT.md file (`schedule`).
 */
export class ResourceNotifier {
  private last: Map<string, string> | undefined;
  private readonly subscribed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly warm: WarmVault,
    private readonly log: (line: string) => void,
    private readonly debounceMs = 150,
  ) {}

  subscribe(uri: string): void {
    this.subscribed.add(uri);
  }

  unsubscribe(uri: string): void {
    this.subscribed.delete(uri);
  }

  /** Compares again a moment after the last change (a build writes many files). */
  schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refresh().catch((error: Error) => this.log(`resource notification failed: ${error.message}`));
    }, this.debounceMs);
  }

  /** Takes the current resources as the ones clients know (at start) or notifies what changed since. */
  async refresh(): Promise<void> {
    const current = new Map((await currentResources(this.warm)).map((entry) => [entry.uri, entry.stamp]));
    const last = this.last;
    this.last = current;
    if (!last || this.closed) return;
    const listChanged = last.size !== current.size || [...current.keys()].some((uri) => !last.has(uri));
    if (listChanged) await this.server.sendResourceListChanged();
    for (const uri of this.subscribed)
      if (last.get(uri) !== current.get(uri) && current.has(uri)) await this.server.sendResourceUpdated({ uri });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
