import type { Command } from 'commander';

/** `mcp`, `hook` and `integrate`: serving coding agents. Declared here, run by lazily imported commands (see main.ts). */
export function declareAgentCommands(program: Command): void {
  declareMcpCommand(program);
  declareHookCommand(program);
  declareIntegrateCommand(program);
}

/** `memvault mcp`: its arguments, options and help text. Run by the lazily imported `commands/mcp.ts`. */
function declareMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      'Serve the vault to agents over the Model Context Protocol (stdio): tools context, search, zoom, add_memory, ' +
        'status; the packages and summaries as resources.',
    )
    .option('--no-watch', 'do not follow file changes (default: edits and new memories are answered within a second or two)')
    .addHelpText(
      'after',
      `
stdout carries protocol messages only; logs go to stderr. An MCP client starts it; register it with
\`memvault integrate <agent>\` (claude-code, codex, gemini, cursor) or see the README for Claude Desktop.

Examples:
  memvault mcp                                  what .mcp.json runs
  memvault -C ~/src/ledgerly mcp                serve another project's vault
  npx @modelcontextprotocol/inspector memvault mcp   try the tools by hand`,
    )
    .action(async (options) => (await import('./commands/mcp.js')).mcpCommand({ ...program.opts(), ...options }));
}

/** `memvault hook`: its arguments, options and help text. Run by the lazily imported `commands/hook.ts`. */
function declareHookCommand(program: Command): void {
  program
    .command('hook')
    .argument('<event>', 'session-start, pre-compact, session-end or pre-tool')
    .description(
      "Run a coding agent's session hook, reading the hook's JSON on stdin: session-start prints the memory the " +
        'session starts with; pre-compact and session-end ingest the transcript (Claude Code, Codex, Gemini CLI or ' +
        'Cursor: --agent); pre-tool (Claude Code PreToolUse on Read, Edit, Write) gives the memories citing the file, ' +
        'once per file per session.',
    )
    .option('--stream <name>', 'stream (default: hooks.stream of the config, else the first stream)')
    .option('--budget <tokens>', 'session-start: at most this many tokens (default: hooks.budget, 8000)')
    .option('--json', "print a JSON report instead (session-start: Claude Code's hookSpecificOutput form)")
    .option(
      '--agent <agent>',
      'the agent running the hook: claude-code (default), codex, gemini or cursor (its transcript format and answer form)',
    )
    .addHelpText(
      'after',
      `
Never fails the agent's session: problems go to stderr and the exit code is 0. The project is the
one found from the hook's \`cwd\` (else the current folder).

Examples:
  echo '{"hook_event_name":"SessionStart","source":"startup","cwd":"."}' | memvault hook session-start
  memvault hook pre-compact < hook-input.json
  memvault hook session-start --agent gemini < input.json   answers {"hookSpecificOutput": …}
  echo '{"tool_name":"Read","tool_input":{"file_path":"src/a.ts"},"session_id":"s1","cwd":"."}' | memvault hook pre-tool
  memvault integrate claude-code               writes these hooks into .claude/settings.json
  memvault integrate codex                     … into .codex/hooks.json (see docs/agents.md)`,
    )
    .action(async (event: string, options) => (await import('./commands/hook.js')).hookCommand(event, { ...program.opts(), ...options }));
}

/** `memvault integrate`: its arguments, options and help text. Run by the lazily imported `commands/integrate.ts`. */
function declareIntegrateCommand(program: Command): void {
  program
    .command('integrate')
    .argument('<agent>', 'claude-code, codex, gemini or cursor')
    .description(
      "Register memvault with a coding agent: the MCP server, the session hooks and the agent's instructions file, " +
        'merged with what is there (claude-code: .mcp.json, .claude/settings.json; codex: .codex/config.toml, ' +
        '.codex/hooks.json, AGENTS.md; gemini: .gemini/settings.json, GEMINI.md; cursor: .cursor/mcp.json, ' +
        '.cursor/hooks.json, .cursor/rules/memvault.mdc). See docs/agents.md.',
    )
    .option('--dry-run', 'print the files as they would be, write nothing')
    .option('--command <cmd>', 'how the agent starts memvault (default: memvault; e.g. "npx memvault")')
    .option('--json', 'print what was added and kept as JSON')
    .addHelpText(
      'after',
      `
Existing servers, hooks, settings and text are kept; running it again changes nothing. It ends with
what to do next in the agent (trust the project, approve the server or the hooks).

Examples:
  memvault integrate claude-code
  memvault integrate codex --dry-run
  memvault integrate gemini --json | jq .files
  memvault integrate cursor --command "npx memvault"`,
    )
    .action(async (agent: string, options) =>
      (await import('./commands/integrate.js')).integrateCommand(agent, { ...program.opts(), ...options }),
    );
}
