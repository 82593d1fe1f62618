import type * as z from 'zod';
import type { RuleId } from '../messages/catalogue.js';
import { UserError } from '../util/errors.js';

/**
 * One wording for an operation's input that does not fit: the CLI and the
 * MCP server both check arguments against the operation's zod schema
 * (`runOperation`, run.ts) and word a misfit here, one line an agent or a
 * person can act on: `budget must be at least 100 (got 5)`,
 * `limit must be a number (got "abc")`, `text must be a string (got 5)`.
 */

/**
 * An input the operation refuses before it reads or writes anything: a value
 * that does not fit the schema (rule `ops/input`), or one that names what is
 * not there (an unknown stream, a period that is not one). The MCP server
 * answers it with -32602 (Invalid params); the CLI exits 1 with the same reason.
 */
export class InputError extends UserError {
  constructor(from: UserError) {
    super(from.rule as RuleId, from.message, undefined, {
      ...(from.hint !== undefined ? { hint: from.hint } : {}),
      diagnostics: from.diagnostics,
    });
    this.name = 'InputError';
  }
}

/** The schema's issues as an `InputError` (rule `ops/input`). */
export function schemaError(issues: readonly z.core.$ZodIssue[], input: unknown): InputError {
  return new InputError(new UserError('ops/input', describeIssues(issues, input)));
}

/**
 * Runs a check of the input (does the stream exist, is this a period) and
 * turns a `UserError` it throws into an `InputError`: the caller named
 * something that is not there, nothing was done.
 *
 * @example
 *   const stream = asInput(() => pickStream(vault, input.stream));
 */
export function asInput<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof UserError && !(error instanceof InputError)) throw new InputError(error);
    throw error;
  }
}

/** `asInput` of an async check. */
export async function asInputAsync<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof UserError && !(error instanceof InputError)) throw new InputError(error);
    throw error;
  }
}

/**
 * A command-line value for a number field: the number when the text is one
 * (`20`, `-3`, `1.5`), else the text itself, so the schema refuses it in the
 * words MCP gets for the same value (`limit must be a number (got "abc")`).
 */
export function cliNumber(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : text;
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
  const got = value === undefined ? '' : ` (got ${shown(value)})`;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return `${where} is required`;
      return `${where} must be ${typeName(issue.expected)}${got}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${where} must not be empty`;
      if (issue.origin === 'string') return `${where} must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `${where} must have at least ${issue.minimum} items`;
      return `${where} must be at least ${issue.minimum}${got}`;
    case 'too_big':
      if (issue.origin === 'string') return `${where} must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `${where} must have at most ${issue.maximum} items`;
      return `${where} must be at most ${issue.maximum}${got}`;
    case 'invalid_value':
      return `${where} must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.join(', ')}`}${got}`;
    case 'unrecognized_keys':
      return `${issue.keys.map((key) => `\`${key}\``).join(', ')} ${issue.keys.length === 1 ? 'is' : 'are'} not an argument${where === 'the value' ? '' : ` of ${where}`}`;
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

/** A value as the reason quotes it: numbers and short strings as they are, the rest by kind. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value.length <= 40 ? JSON.stringify(value) : `a string of ${value.length} characters`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
