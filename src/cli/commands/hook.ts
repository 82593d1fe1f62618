import { hookAgentProfile, type HookAgentProfile } from '../../hooks/agents.js';
import { HOOK_EVENTS, parseHookInput, readHookInput, type HookEvent, type HookInput } from '../../hooks/input.js';
import { enterProject as findRoot } from '../../config/file.js';
import { UserError } from '../../util/errors.js';
import { nowOf } from '../now.js';
import { renderJson } from '../render/json.js';

export interface HookCommandOptions {
  root?: string;
  stream?: string;
  budget?: string;
  json?: boolean;
  /** The agent running the hook (claude-code, codex, gemini, cursor): its transcript format and answer form. */
  agent?: string;
}

/**
 * `memvault hook <event>`: a coding agent's session hook. Reads the hook's
 * JSON on stdin and never fails the session: every problem goes to stderr
 * and the exit code stays 0 (an unknown event name is a setup mistake: exit 1).
 */
export async function hookCommand(event: string, options: HookCommandOptions): Promise<void> {
  // Before a tool runs (src/hooks/pre-tool.ts): silent on every problem, not even stderr, so the tool is never in the way.
  if (event === 'pre-tool') return (await import('../../hooks/pre-tool.js')).runPreToolHook(options.root);
  if (!(HOOK_EVENTS as readonly string[]).includes(event))
    throw new UserError('hook/event', `unknown hook \`${event}\``, { events: HOOK_EVENTS.join(', ') });
  const { profile } = hookAgentProfile(options.agent);
  try {
    await runHook(event as HookEvent, options, profile);
  } catch (error) {
    const e = error as Error & { hint?: string };
    process.stderr.write(`memvault hook ${event}: ${e.message}${e.hint ? `\n  hint: ${e.hint}` : ''}\n`);
  }
}

async function runHook(event: HookEvent, options: HookCommandOptions, profile: HookAgentProfile): Promise<void> {
  const input: HookInput = parseHookInput(process.stdin.isTTY ? '' : await readHookInput(process.stdin));
  // The agent runs hooks in the project folder and says so in `cwd`; -C wins.
  const root = findRoot(options.root ?? input.cwd ?? process.cwd());
  if (event === 'session-start') {
    const budget = options.budget === undefined ? undefined : Number(options.budget);
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 1))
      throw new UserError('cli/number', `--budget \`${options.budget}\` is not a positive whole number`, {
        flag: '--budget',
        example: 8000,
      });
    const { sessionStart } = await import('../../hooks/session-start.js');
    const result = await sessionStart({
      root,
      input,
      now: await nowOf(undefined),
      ...(options.stream ? { stream: options.stream } : {}),
      ...(budget ? { budget } : {}),
      ...(profile.maxChars ? { agentMaxChars: profile.maxChars } : {}),
    });
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: result.text } })}\n`
        : profile.sessionStart(result.text),
    );
    return;
  }
  const { ingestTranscript } = await import('../../hooks/ingest-transcript.js');
  const report = await ingestTranscript({ root, input, format: profile.format, ...(options.stream ? { stream: options.stream } : {}) });
  const counts = new Map<string, number>();
  for (const m of report.memories) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  const what =
    report.status === 'already-ingested'
      ? 'already ingested, nothing to do'
      : [...counts].map(([status, n]) => `${n} ${status}`).join(', ') || 'nothing to ingest';
  if (options.json) process.stdout.write(renderJson({ event, transcript: input.transcript_path, ...report }));
  else process.stdout.write(profile.ingested(`memvault: ${input.transcript_path}: ${what}`));
}
