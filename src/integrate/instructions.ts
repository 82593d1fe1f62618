/**
 * What the agent is told about the project's memory, in the file each agent
 * reads as standing instructions (Codex `AGENTS.md`, Gemini CLI `GEMINI.md`,
 * a Cursor rule). It is how an agent uses memvault where a hook cannot reach:
 * the MCP tools on request, and again after its context was compacted.
 */
export const MEMORY_INSTRUCTIONS = `## Project memory (memvault)

This project keeps its memory (decisions, errors and their fixes, conventions, what happened when) in a memvault
vault, served by the \`memvault\` MCP server.

- At the start of a task, unless the session already began with "Project memory from memvault", call the \`context\`
  tool (in a shell: \`memvault context\`).
- Before answering about earlier work, a past decision or an error seen before, call \`search\`; \`zoom\` opens a
  period or a memory in full.
- When a decision is made, an error is fixed or a convention agreed, save it with \`add_memory\`: one short memory
  that says what and why.
- After the conversation was compacted or summarized, call \`context\` again: what the summary dropped is there.
`;
