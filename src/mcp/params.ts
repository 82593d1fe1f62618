import { ClientRequestSchema, ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { describeIssues } from '../ops/input.js';

/**
 * One-line reasons for requests and arguments that do not fit their schema.
 * The SDK parses a request's params inside its handler and answers a misfit
 * with -32603 (Internal error) and zod's issues on many lines; a tool's
 * arguments come back as "Input validation error: …" with the same dump.
 * These put the field and what it must be on one line an agent can act on:
 * `tools/call: params.arguments must be an object (got null)`,
 * `add_memory: text must be a string (got 5)` (the wording is the operations'
 * layer's, `describeIssues` in ops/input.ts).
 */

/** The SDK's schema of every request a client may send, by method. */
const REQUESTS = new Map<string, z.ZodType>(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]));

/**
 * A request whose params do not fit its method's schema: its JSON-RPC error
 * (-32602 Invalid params, one line). Notifications, responses and methods
 * the SDK does not know pass (the SDK answers an unknown method itself).
 */
export function checkRequest(message: JSONRPCMessage): { code: number; message: string } | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = REQUESTS.get(message.method);
  if (!schema) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  return { code: ErrorCode.InvalidParams, message: `${message.method}: ${describeIssues(parsed.error.issues, message)}` };
}
