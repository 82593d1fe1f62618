import { readConfig } from '../read/vault.js';
import { openVault } from '../read/vault.js';
import { createIndex } from '../read/search/index.js';
import { contextWarm } from '../mcp/context.js';
import { recordUsage } from '../usage/log.js';
import { countTokens } from '../util/tokens.js';
import type { HookInput } from './input.js';

/**
 * `memvault hook session-start`: the memory a coding-agent session starts
 * with, printed for the agent to read: the critical items (pinned first,
 * then decisions and recent errors), then a query-less context, all within
 * `hooks.budget` tokens. Claude Code runs it on startup, resume, clear and
 * compact: after a compaction the agent gets it again, so what the summary
 * of the conversation dropped comes back.
 */

export interface SessionStartOptions {
  root: string;
  input: HookInput;
  now: Date;
  stream?: string;
  budget?: number;
}

export interface SessionStartResult {
  text: string;
  tokens: number;
  budget: number;
  stream: string;
  items: { tier: string; source: string }[];
}

export async function sessionStart(options: SessionStartOptions): Promise<SessionStartResult> {
  const config = await readConfig(options.root);
  const budget = options.budget ?? config.hooks.budget;
  const stream = options.stream ?? config.hooks.stream;
  const vault = await openVault(options.root);
  // A query-less context searches nothing (no signal, no search): the index is not read, which is most of a read command's start-up.
  const index = createIndex();
  const header = headerFor(options.input);
  const headerTokens = countTokens(header, config.tokenizer);
  const { result, served } = contextWarm(
    { vault, index },
    { budget: Math.max(1, budget - headerTokens), ...(stream ? { stream } : {}) },
    options.now,
  );
  recordUsage(options.root, served, 'hook:session-start', options.now);
  const text = result.context
    ? `${header}${result.context}`
    : `${header}(no memories yet: \`memvault add\` or the add_memory tool saves one)\n`;
  return {
    text,
    tokens: countTokens(text, config.tokenizer),
    budget,
    stream: served[0]?.stream ?? stream ?? Object.keys(config.streams)[0] ?? 'main',
    items: result.items.map((item) => ({ tier: item.tier, source: item.source })),
  };
}

/** One line saying where this comes from, and why it is here again after a compaction. */
function headerFor(input: HookInput): string {
  const again = input.source === 'compact' ? ' (again after compaction: these instructions and decisions still hold)' : '';
  return `Project memory from memvault${again}. Ask the memvault MCP tools (search, zoom, context) for more.\n\n`;
}
