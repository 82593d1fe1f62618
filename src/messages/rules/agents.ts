import type { RuleGroup } from '../rule.js';

/** Coding agents: `memvault hook`, `memvault integrate` and the MCP server. */
export const AGENT_RULES = {
  'hook/event': {
    title: '`memvault hook` names no hook it knows',
    severity: 'error',
    hint: 'use one of {events}',
  },
  'hook/input': {
    title: 'The hook input from the agent is not what memvault expects',
    severity: 'error',
    hint: 'the agent sends one JSON object on stdin, with `transcript_path` for the hooks that ingest the session',
  },
  'hook/ingest': {
    title: 'A hook could not ingest the session transcript',
    severity: 'error',
    hint: 'run `memvault ingest` on the file to see why',
  },
  'integrate/agent': {
    title: '`memvault integrate` names no agent it knows',
    severity: 'error',
    hint: 'use one of {agents}',
  },
  'integrate/settings': {
    title: 'An agent settings file has a value of the wrong shape',
    severity: 'error',
    hint: 'fix the file by hand, then run this again',
  },
  'integrate/json': {
    title: 'An agent settings file is not a JSON object (or TOML table)',
    severity: 'error',
    hint: 'fix it by hand (nothing was written), then run this again',
  },
  'mcp/resource': {
    title: 'An MCP resource that does not exist (yet)',
    severity: 'error',
    hint: 'list the resources to see the ones there are; `memvault build` writes the packages and summaries',
  },
  'mcp/too-large': {
    title: 'An MCP message over the size limit of the server',
    severity: 'error',
    hint: 'send less per message: add_memory takes at most 1 MiB of text',
    docs: 'The server reads one message per line; a line over 4 MiB is dropped as it arrives (never held in memory), answered with a JSON-RPC error (-32600) and logged, and the server reads on.',
  },
  'mcp/parse': {
    title: 'An MCP message that is not JSON',
    severity: 'error',
    hint: 'each line on stdin must be one JSON-RPC message',
  },
  'mcp/invalid': {
    title: 'An MCP message that is not a JSON-RPC request, notification or response',
    severity: 'error',
    hint: 'send `{"jsonrpc": "2.0", "id": …, "method": …, "params": {…}}`',
  },
} as const satisfies RuleGroup;
