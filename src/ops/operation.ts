import type * as z from 'zod';
import type { Config } from '../config/schema.js';
import type { ContextSearch } from '../read/context/warm.js';
import type { SearchSession } from '../read/search.js';
import type { ReadVault } from '../read/vault.js';
import { recordUsage } from '../usage/log.js';
import { schemaError } from './input.js';

/**
 * One operation of memvault (add, search, zoom, context, status, facts,
 * resolve, log, show): its input schema, its result schema, what it does.
 * The CLI commands (src/cli/commands/) and the MCP tools (src/mcp/tools.ts)
 * are adapters: they turn flags or tool arguments into the input, call
 * `runOperation`, and render the result. So the input is checked once, in
 * one wording, and both give the same answer; the MCP `outputSchema` is the
 * result schema itself. docs/operations.md lists them.
 */

/** An item an operation served to its caller: counted in the usage log (src/usage/). */
export interface Served {
  stream: string;
  /** Vault-relative path of the memory or summary. */
  path: string;
}

/** What an operation reads the project through: the CLI opens it per command, the MCP server keeps it warm. */
export interface OpsEnv {
  /** The project folder (holding `memory.config.yaml`). */
  readonly root: string;
  /** What relative file paths (`log`, `show`) start from: the CLI's working folder, the MCP server's project. */
  readonly cwd: string;
  /** `cli` or `mcp`: recorded with every served item (`cli:search`, `mcp:zoom`). */
  readonly via: 'cli' | 'mcp';
  /** The clock: `--now`, `MEMVAULT_NOW` or the wall clock. */
  now(): Date;
  config(): Promise<Config>;
  /** The vault, loaded (the CLI loads it on first use; a search that finds its index never does). */
  vault(): Promise<ReadVault>;
  /** The search side of a context over `vault`, current with it. */
  contextSearch(vault: ReadVault): Promise<ContextSearch>;
  /** The search session (BM25, fused with embeddings when a profile is configured). */
  search(options?: { reindex?: boolean }): Promise<SearchSession>;
  /** The checked-out branch, when there is one (a context signal). */
  branch(): Promise<string | undefined>;
  /** Vault-relative paths this process just wrote: a warm vault reloads them before the next request. */
  wrote(vaultPaths: readonly string[]): void;
}

/** The four hints of the MCP spec, on every operation (every tool shows them). */
export interface OpAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reads only this project: safe to call any number of times. */
export const READ_ONLY: OpAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** What an operation's body returns: the result (its schema's type), the items it served, and what only a renderer needs. */
export interface Ran<Result, Detail> {
  result: Result;
  served?: readonly Served[];
  /** Data the CLI's text form needs and the result does not carry (the config, a plan): never sent over MCP. */
  detail?: Detail;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds operations of every input and output type.
export type AnyOperation = Operation<z.ZodObject, z.ZodObject, any>;

export interface Operation<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject, Detail = undefined> {
  /** The CLI command. */
  name: string;
  /** The MCP tool, when the server offers this operation (a small tool set: agents need few). */
  tool?: { name: string; title: string; description: string; omit?: readonly string[] };
  input: In;
  output: Out;
  annotations: OpAnnotations;
  run(env: OpsEnv, input: z.output<In>): Promise<Ran<z.output<Out>, Detail>>;
}

/** Declares an operation with its types checked against its schemas. */
export function defineOperation<In extends z.ZodObject, Out extends z.ZodObject, Detail = undefined>(
  op: Operation<In, Out, Detail>,
): Operation<In, Out, Detail> {
  return op;
}

/** `raw` checked against the operation's input schema; an `InputError` in `describeIssues`' words when it does not fit. */
export function parseInput<In extends z.ZodObject>(op: { input: In }, raw: unknown): z.output<In> {
  const parsed = op.input.safeParse(raw ?? {});
  if (!parsed.success) throw schemaError(parsed.error.issues, raw);
  return parsed.data;
}

/**
 * Checks `raw` (`parseInput`), runs the operation, and counts the items it
 * served as used (`via:name`, e.g. `mcp:search`). Listing, status and a
 * refused input serve nothing and count nothing.
 */
export async function runOperation<In extends z.ZodObject, Out extends z.ZodObject, Detail>(
  op: Operation<In, Out, Detail>,
  env: OpsEnv,
  raw: unknown,
): Promise<{ result: z.output<Out>; detail: Detail | undefined }> {
  const input = parseInput(op, raw);
  const { result, served, detail } = await op.run(env, input);
  if (served && served.length > 0) recordUsage(env.root, served, `${env.via}:${op.name}`, env.now());
  return { result, detail };
}
