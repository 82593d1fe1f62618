import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { InputError } from '../ops/input.js';
import { OPERATIONS } from '../ops/index.js';
import { type AnyOperation, type OpsEnv, parseInput, runOperation } from '../ops/operation.js';
import { UserError } from '../util/errors.js';
import { rpcError } from './errors.js';
import { toolText } from './text.js';

/**
 * The MCP tools: the operations that have a `tool` (src/ops/): context,
 * search, zoom, add_memory, status, facts. Each tool's `inputSchema` is the
 * operation's input schema (less the CLI-only fields), its `outputSchema` the
 * operation's result schema, its annotations the operation's; the answer
 * carries the result as `structuredContent` and a short text for clients
 * that show only text.
 *
 * Errors, by the protocol's codes: an argument that does not fit, or that
 * names what is not there (an undeclared stream, an unknown period), is
 * -32602 (Invalid params) with the reason the CLI prints for the same input,
 * and nothing is done; an unknown tool is -32602 too. A failure while
 * running (a package not built, a vault that cannot be read) is a tool
 * result with `isError` and a one-line reason, never a crash of the server.
 */

export interface ToolContext {
  env: OpsEnv;
  log: (line: string) => void;
}

interface Offered {
  op: AnyOperation;
  /** The input schema without the CLI-only fields. */
  input: z.ZodObject;
  definition: Tool;
}

/** The tools the server offers, by name. */
export function offeredTools(): Map<string, Offered> {
  const tools = new Map<string, Offered>();
  for (const op of OPERATIONS) {
    if (!op.tool) continue;
    const omit = Object.fromEntries((op.tool.omit ?? []).map((key) => [key, true] as const));
    const input = op.input.omit(omit as never) as z.ZodObject;
    tools.set(op.tool.name, {
      op,
      input,
      definition: {
        name: op.tool.name,
        title: op.tool.title,
        description: op.tool.description,
        inputSchema: jsonSchema(input) as Tool['inputSchema'],
        outputSchema: jsonSchema(op.output) as Tool['outputSchema'],
        annotations: { title: op.tool.title, ...op.annotations },
      },
    });
  }
  return tools;
}

/**
 * A schema as JSON Schema (draft 7, as the SDK writes them). Read as input: an
 * object of a result stays open to fields a later version adds, while an
 * input object (`strictObject`) refuses arguments it does not know.
 */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
}

export function registerTools(server: Server, ctx: ToolContext): void {
  const tools = offeredTools();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = tools.get(name);
    if (!tool) throw rpcError(ErrorCode.InvalidParams, `no tool \`${name}\`: the tools are ${[...tools.keys()].join(', ')}`);
    const args = request.params.arguments ?? {};
    try {
      parseInput({ input: tool.input }, args);
      const { result } = await runOperation(tool.op, ctx.env, args);
      return { content: [{ type: 'text', text: toolText(name, result) }], structuredContent: result as Record<string, unknown> };
    } catch (error) {
      if (error instanceof InputError) throw rpcError(ErrorCode.InvalidParams, error.message, { rule: error.rule, hint: error.hint });
      return failure(ctx, error);
    }
  });
}

/** A failure while running: a tool error with a one-line reason (and its hint). */
function failure(ctx: ToolContext, error: unknown): CallToolResult {
  const e = error as Error & { hint?: string };
  const user = error instanceof UserError;
  if (!user) ctx.log(`internal error: ${e.stack ?? e.message}`);
  const reason = `${user ? '' : 'internal error: '}${e.message}${e.hint ? ` (${e.hint})` : ''}`.replace(/\s*\n\s*/g, ' ');
  return { content: [{ type: 'text', text: reason }], isError: true };
}
