import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { UserError } from '../util/errors.js';
import { vaultPaths } from '../vault/paths.js';
import type { WarmVault } from './warm.js';

/**
 * The MCP resources, all `text/markdown`:
 * - `memvault://<stream>/UPLOAD_PACKAGE.md` and `memvault://<stream>/CONTEXT.md`
 *   (waterfall streams): what the build hands to a model;
 * - `memvault://<stream>/summary/<tier>/<period>` (a template, listed):
 *   every summary of the vault, e.g. `memvault://main/summary/weekly/2026-W07`.
 */

export function registerResources(server: McpServer, warm: WarmVault, streams: readonly string[], waterfall: ReadonlySet<string>): void {
  const read = (uri: URL, vaultPath: string): ReadResourceResult => {
    let text: string;
    try {
      text = readFileSync(path.join(warm.vaultDir, vaultPath), 'utf8');
    } catch {
      throw new UserError(
        'mcp/resource',
        `\`${vaultPath}\` does not exist yet: \`memvault build\` writes it`,
        {},
        { hint: 'run `memvault build`' },
      );
    }
    return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
  };
  for (const stream of streams) {
    server.registerResource(
      `${stream}-package`,
      `memvault://${stream}/UPLOAD_PACKAGE.md`,
      { title: `${stream}: upload package`, description: `The bounded memory package of stream ${stream}.`, mimeType: 'text/markdown' },
      (uri) => read(uri, vaultPaths.package(stream)),
    );
    if (waterfall.has(stream))
      server.registerResource(
        `${stream}-context`,
        `memvault://${stream}/CONTEXT.md`,
        { title: `${stream}: CONTEXT.md`, description: `The agent context block of stream ${stream}.`, mimeType: 'text/markdown' },
        (uri) => read(uri, vaultPaths.context(stream)),
      );
  }
  server.registerResource(
    'summary',
    new ResourceTemplate('memvault://{stream}/summary/{tier}/{period}', {
      list: async () => {
        const { vault } = await warm.current();
        const resources = [];
        for (const stream of vault.loaded.state.streams.values())
          for (const summary of stream.summaries.values()) {
            const { tier, period } = summary.meta;
            resources.push({
              uri: `memvault://${stream.name}/summary/${tier}/${period}`,
              name: `${stream.name} ${tier} ${period}`,
              mimeType: 'text/markdown',
            });
          }
        return { resources };
      },
    }),
    { title: 'Summary by tier and period', description: 'A daily, weekly, monthly or long-term summary.', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const { vault } = await warm.current();
      const one = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));
      const stream = vault.loaded.state.streams.get(one(variables.stream));
      const summary = stream
        ? [...stream.summaries.values()].find((s) => s.meta.tier === one(variables.tier) && s.meta.period === one(variables.period))
        : undefined;
      if (!summary) throw new UserError('mcp/resource', `no summary at \`${uri.href}\``);
      return read(uri, summary.path);
    },
  );
}
