import { ClientRequestSchema, ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';

/**
 * One-line reasons for requests and arguments that do not fit their schema.
 * The SDK parses a request's params inside its handler and answers a misfit
 * with -32603 (Internal error) and zod's issues on many lines; a tool's
 * arguments come back as "Input validation error: …" with the same dump.
 * These put the field and what it must be on one line an agent can act on:
 * `tools/call: params.arguments must be an object (got null)`,
 * `add_memory: text must be a string (got a number)`.
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

/** zod issues as one line: `field must be …; other must be …` (at most three). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const parts = issues.slice(0, 3).map((issue) => describeIssue(issue, input));
  if (issues.length > 3) parts.push(`and ${issues.length - 3} more`);
  return parts.join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = fieldName(issue.path);
  const value = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `${where} is required`;
      return `${where} must be ${typeName(issue.expected)} (got ${kindOf(value)})`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${where} must not be empty`;
      if (issue.origin === 'string') return `${where} must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `${where} must have at least ${issue.minimum} items`;
      return `${where} must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `${where} must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `${where} must have at most ${issue.maximum} items`;
      return `${where} must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `${where} must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.join(', ')}`}`;
    default:
      return `${where}: ${issue.message.replace(/\s*\n\s*/g, ' ')}`;
  }
}

/** `params.arguments`, `tags[0]`; the whole value when the path is empty. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || 'the value';
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function typeName(expected: string): string {
  const names: Record<string, string> = {
    record: 'an object',
    object: 'an object',
    array: 'an array',
    string: 'a string',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
  };
  return names[expected] ?? expected;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
