import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { addMemory } from '../ingest/add.js';
import { ACTIVITIES } from '../read/context/budget.js';
import { TIERS } from '../read/search/query.js';
import { oneLine } from '../text/safe-text.js';
import { recordUsage } from '../usage/log.js';
import { UserError } from '../util/errors.js';
import { describeIssues } from './params.js';
import { contextWarm, searchWarm, statusWarm, zoomWarm, type Served } from './read.js';
import type { WarmVault } from './warm.js';
import { counted } from '../text/plural.js';

/**
 * The MCP tools: context, search, zoom, add_memory, status. Descriptions are
 * short on purpose: every tool definition is sent in every conversation.
 * Each answer carries the data as `structuredContent` and a text for models
 * that read only text. A bad argument or a user error is a tool error with a
 * one-line reason (`isError`), never a crash of the server.
 */

export interface ToolContext {
  warm: WarmVault;
  /** The clock (`MEMVAULT_NOW` or the wall clock), read per call. */
  now: () => Date;
  log: (line: string) => void;
}

const stream = z.string().optional().describe('stream (default: the first of the config)');
const READ = { readOnlyHint: true, openWorldHint: false } as const;

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const registered: Record<string, RegisteredTool> = {};
  const serve = (via: string, served: Served[]): void => recordUsage(ctx.warm.root, served, `mcp:${via}`, ctx.now());

  registered.context = server.registerTool(
    'context',
    {
      title: 'Memory context',
      description: 'Memory for the current task within a token budget: pinned items, decisions, recent errors, relevant hits, background.',
      inputSchema: {
        query: z.string().optional().describe('what you are working on or asking'),
        budget: z.number().int().min(100).max(200_000).optional().describe('max tokens (default 8000)'),
        file: z.string().optional().describe('file being edited'),
        error: z.string().optional().describe('error message'),
        activity: z.enum(ACTIVITIES as [string, ...string[]]).optional(),
        stream,
      },
      annotations: READ,
    },
    (args) =>
      answer(ctx, async () => {
        const state = await ctx.warm.current();
        const { result, served } = contextWarm(state, { ...args, activity: args.activity as never }, ctx.now());
        serve('context', served);
        return { text: result.context || '(nothing in memory yet)', data: result };
      }),
  );

  registered.search = server.registerTool(
    'search',
    {
      title: 'Search memory',
      description: 'Ranked full-text search of memories and summaries; filters in the query: tag:x kind:x since:2026-02 "exact phrase".',
      inputSchema: {
        query: z.string().min(1).describe('words, "phrases", tag:/kind:/since:/until: filters'),
        limit: z.number().int().min(1).max(50).optional().describe('max days of hits (default 10)'),
        since: z.string().optional().describe('day, week, month or phrase'),
        until: z.string().optional(),
        tier: z.enum(['all', ...TIERS]).optional(),
        stream: z.string().optional().describe('only this stream (default: all)'),
      },
      annotations: READ,
    },
    (args) =>
      answer(ctx, async () => {
        const { hits, served } = await searchWarm(await ctx.warm.current(), await ctx.warm.search(), args, ctx.now());
        serve('search', served);
        const text =
          hits.length === 0
            ? 'No matches.'
            : hits
                .map((h, i) => `${i + 1}. ${h.path}:${h.line} (${h.tier === 'memories' ? h.kind : h.tier} ${h.period})\n   ${h.snippet}`)
                .join('\n');
        return { text, data: { hits } };
      }),
  );

  registered.zoom = server.registerTool(
    'zoom',
    {
      title: 'Zoom into a period',
      description:
        'Full memories of a period (2026-02-13, 2026-W07, 2026-02, "last week"), with the summaries covering it; paged by budget.',
      inputSchema: {
        period: z.string().min(1).describe('day, ISO week, month, quarter, A..B range or phrase'),
        stream,
        budget: z.number().int().min(100).max(200_000).optional().describe('max tokens per page'),
        page: z.number().int().min(1).optional(),
      },
      annotations: READ,
    },
    (args) =>
      answer(ctx, async () => {
        const { result, served } = zoomWarm(await ctx.warm.current(), args, ctx.now());
        serve('zoom', served);
        const parts = [...result.memories.map((m) => `## ${m.date} ${oneLine(m.title ?? '')} (${m.path})\n${m.body}`)];
        for (const s of result.summaries) parts.push(`## ${s.tier} ${s.period} (${s.path})\n${s.body ?? ''}`);
        if (parts.length === 0) parts.push('No memories in this period.');
        if (result.page.pages > 1)
          parts.push(`Page ${result.page.page} of ${result.page.pages}; ask for page ${result.page.page + 1} for more.`);
        return { text: parts.join('\n\n'), data: result };
      }),
  );

  registered.add_memory = server.registerTool(
    'add_memory',
    {
      title: 'Add a memory',
      description: 'Save a memory (a decision, fact, instruction, finding) as a markdown file in the vault; secrets are redacted.',
      inputSchema: {
        text: z.string().min(1).describe('the memory (markdown)'),
        title: z.string().optional(),
        tags: z.array(z.string()).optional(),
        kind: z.string().optional().describe('note, decision, error, fact, …'),
        importance: z.enum(['low', 'normal', 'high', 'pinned']).optional().describe('pinned: always in the package'),
        stream,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      answer(ctx, async () => {
        const result = await addMemory({
          root: ctx.warm.root,
          text: args.text,
          ...(args.title !== undefined ? { title: args.title } : {}),
          tags: args.tags ?? [],
          ...(args.kind !== undefined ? { kind: args.kind } : {}),
          ...(args.importance !== undefined ? { importance: args.importance } : {}),
          ...(args.stream !== undefined ? { stream: args.stream } : {}),
          now: ctx.now(),
        });
        // The next request sees it without waiting for the file watcher.
        ctx.warm.invalidate([result.path]);
        const data = { path: result.path, id: result.id, stream: result.stream, date: result.date, redactions: result.redactions };
        const redacted = result.redactions.reduce((n, r) => n + r.count, 0);
        return { text: `Saved ${result.path} (id ${result.id})${redacted ? `; ${redacted} secret(s) redacted` : ''}.`, data };
      }),
  );

  registered.status = server.registerTool(
    'status',
    {
      title: 'Vault status',
      description: 'Memory counts, summaries per tier, the package size and the most and least used memories.',
      inputSchema: { stream },
      annotations: READ,
    },
    (args) =>
      answer(ctx, async () => {
        const status = statusWarm(await ctx.warm.current(), args.stream);
        const text = status.streams
          .map(
            (s) =>
              `${s.name}: ${counted(s.memories, 'memory', 'memories')} (${s.pinned} pinned), ${s.coverage.first_day ?? 'none'} to ${s.coverage.last_day ?? 'none'}; ` +
              `package ${s.package ? `${s.package.tokens}/${s.package.max_tokens} tokens` : 'not built'}; ` +
              `most used: ${s.most_used.map((u) => `${u.id} (${u.count})`).join(', ') || 'none yet'}`,
          )
          .join('\n');
        return { text: text || 'The vault has no streams yet.', data: status };
      }),
  );

  answerToolCalls(server, registered);
}

/**
 * Takes `tools/call` over from McpServer (after it registered the tools, so
 * `tools/list` is still its own) to word a bad argument in one line:
 * `add_memory: text must be a string (got a number)` instead of "Input
 * validation error: Invalid arguments for tool add_memory: …" with one zod
 * issue per line. As in the SDK (and the MCP spec, SEP-1303), a bad argument
 * is a tool error the model reads and corrects, an unknown tool a protocol
 * error (-32602). Params that do not fit `tools/call` itself
 * (`arguments: null`) never get here: the transport answers them
 * (`checkRequest`, params.ts).
 */
function answerToolCalls(server: McpServer, registered: Record<string, RegisteredTool>): void {
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = Object.hasOwn(registered, name) ? registered[name] : undefined;
    if (!tool?.enabled)
      throw new McpError(ErrorCode.InvalidParams, `no tool \`${name}\`: the tools are ${Object.keys(registered).join(', ')}`);
    const args = request.params.arguments ?? {};
    const parsed = await (tool.inputSchema as z.ZodType).safeParseAsync(args);
    if (!parsed.success)
      return { content: [{ type: 'text', text: `${name}: ${describeIssues(parsed.error.issues, args)}` }], isError: true };
    const handler = tool.handler as (args: unknown, extra: unknown) => CallToolResult | Promise<CallToolResult>;
    return handler(parsed.data, extra);
  });
}

/** Runs a tool body; a thrown error becomes a tool error with a one-line reason (and its hint). */
async function answer(ctx: ToolContext, body: () => Promise<{ text: string; data: object }>): Promise<CallToolResult> {
  try {
    const { text, data } = await body();
    return { content: [{ type: 'text', text }], structuredContent: data as Record<string, unknown> };
  } catch (error) {
    const e = error as Error & { hint?: string };
    const user = error instanceof UserError;
    if (!user) ctx.log(`internal error: ${e.stack ?? e.message}`);
    const reason = `${user ? '' : 'internal error: '}${e.message}${e.hint ? ` (${e.hint})` : ''}`.replace(/\s*\n\s*/g, ' ');
    return { content: [{ type: 'text', text: reason }], isError: true };
  }
}
