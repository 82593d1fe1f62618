import { compactInput, compactResult, type ToolCall, type Turn } from './session.js';

/**
 * The turns of a coding agent's session, built one record at a time, for the
 * logs that keep each message, tool call and tool result as its own record
 * (Codex rollouts, Gemini CLI chats, Cursor transcripts): everything the
 * assistant does between two requests of the person is one turn, its
 * `conclusion` the text written after the last tool call. Tool answers are
 * attached to their call by id and kept shortened (`compactResult`), so a
 * long session is never held whole.
 */
export class AgentTurns {
  readonly turns: Turn[] = [];
  /** Messages read (a person's or the assistant's), whether or not they held text. */
  messages = 0;
  private readonly calls = new Map<string, ToolCall>();

  /** A request of the person; empty text is left out. */
  user(text: string, time: Date | undefined): void {
    this.messages++;
    if (text.trim() === '') return;
    this.turns.push({ role: 'user', ...(time ? { time } : {}), text, tools: [] });
  }

  /** A summary the agent wrote of the conversation before a compaction: kept, but not a request. */
  compactSummary(text: string, time: Date | undefined): void {
    if (text.trim() === '') return;
    this.turns.push({ role: 'user', ...(time ? { time } : {}), text, tools: [], compactSummary: true });
  }

  /** Text the assistant wrote: part of the current assistant turn, and its conclusion so far. */
  assistantText(text: string, time: Date | undefined): void {
    this.messages++;
    if (text.trim() === '') return;
    const turn = this.assistantTurn(time);
    turn.text = [turn.text, text].filter(Boolean).join('\n\n');
    turn.conclusion = [turn.conclusion, text].filter(Boolean).join('\n\n');
  }

  /** A tool call of the assistant; `id` links it to its result. */
  toolCall(call: { id?: string; name: string; input: unknown }, time: Date | undefined): ToolCall {
    const kept: ToolCall = { name: call.name, input: compactInput(call.input), ...(call.id ? { id: call.id } : {}) };
    if (kept.id) this.calls.set(kept.id, kept);
    const turn = this.assistantTurn(time);
    turn.tools.push(kept);
    // The conclusion is what comes after the last tool call.
    turn.conclusion = '';
    return kept;
  }

  /** A tool's answer: attached to its call (by id), else kept as a result of its own in the current turn. */
  toolResult(id: string | undefined, output: string, error: boolean, time: Date | undefined): void {
    const kept = compactResult(output);
    const call = id ? this.calls.get(id) : undefined;
    if (call) {
      Object.assign(call, kept, error ? { error: true } : {});
      return;
    }
    this.assistantTurn(time).tools.push({ name: 'tool result', input: undefined, ...kept, ...(error ? { error: true } : {}) });
  }

  private assistantTurn(time: Date | undefined): Turn {
    const previous = this.turns[this.turns.length - 1];
    if (previous?.role === 'assistant') return previous;
    const turn: Turn = { role: 'assistant', ...(time ? { time } : {}), text: '', tools: [], conclusion: '' };
    this.turns.push(turn);
    return turn;
  }
}

/**
 * Text the agents put into a person's message that is not their request: the
 * project instructions and environment an agent sends with the first message
 * (Codex `<environment_context>`, `<user_instructions>`, `# AGENTS.md
 * instructions…`), and the memory memvault's own session-start hook gave the
 * session (ingesting it would store the memory again as a new memory).
 */
const INJECTED = [
  /^<environment_context>/,
  /^<user_instructions>/,
  /^<INSTRUCTIONS>/,
  /^# AGENTS\.md instructions/,
  /^<hook_context>\s*Project memory from memvault/,
  /^Project memory from memvault/,
];

/** Whether a text block of a person's message was put there by the agent or a hook rather than typed. */
export function isInjectedText(text: string): boolean {
  const start = text.trimStart();
  return INJECTED.some((pattern) => pattern.test(start));
}
