import type { OpenAI } from 'openai';
import { hashValue } from '../util/hash.js';
import { countTokens, type TokenizerName } from '../util/tokens.js';
import type { Diagnostic, Tier } from '../vault/model.js';
import { classifyError, stripControl, SummarizerError, type Fault } from './faults.js';
import { withAttemptCount, withRetries } from './retry.js';
import { renderPrompt, type RenderedPrompt } from './openai-render.js';
import { PLACEHOLDER_KEY, type OpenAiSettings } from './openai-settings.js';
import { cleanOutput } from './output.js';
import { promptFingerprint, type LoadedPrompt, type PromptFile, type PromptName } from './prompts.js';
import { promptOfTier } from '../time/tiers.js';
import { lazyOpenAiClient, stringOr, UsageAudit, withDeadline } from './transport.js';
import type { Summarizer, SummaryOutput, SummaryRequest, SummaryUsage } from './types.js';

/**
 * Provider `openai`: any OpenAI-compatible endpoint through the official SDK
 * (OpenAI itself, Ollama, vLLM, llama.cpp server, LM Studio). Chat mode sends
 * the tier's prompt as system + user messages; completion mode serves base
 * models with a plain format (`# Memories:` … `>`) and stop
 * sequences. Faults are retried here (bounded, with backoff, honouring
 * `retry-after`); budget retries are the caller's (see `pipeline/rollup.ts`).
 */

/** Bump when the way prompts are rendered changes: it is hashed into every prompt id, so summaries regenerate. */
const RENDER_VERSION = 'memvault-openai/1';

/** Options of `createOpenAiSummarizer`; the defaults fit real use (tokenizer `o200k_base`, real sleeps). */
export interface OpenAiSummarizerOptions {
  tokenizer?: TokenizerName;
  diagnostics?: Diagnostic[];
  /** Tests: no real waiting. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** An answer as the summarizer uses it, from either mode. */
interface Answer {
  text: string;
  finish: string | undefined;
  inputTokens: number;
  outputTokens: number;
}

/** What every call of one summarizer shares. */
interface OpenAiContext {
  settings: OpenAiSettings;
  tokenizer: TokenizerName;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  /** The API key, masked in error messages (none for the placeholder). */
  secrets: string[];
  /** Absurd usage figures seen while calling, handed to the build by `takeDiagnostics`. */
  audit: UsageAudit;
  connect: ReturnType<typeof lazyOpenAiClient>;
  promptOf: (name: PromptName) => PromptFile;
  /** Set once a fault means every later call would fail too (bad key, unknown model, server unreachable). */
  halted: Fault | undefined;
}

/**
 * Creates the `openai` summarizer. The SDK is loaded on the first call, so
 * builds that call nothing (no change, dry run) do not pay for it.
 *
 * @example
 *   const summarizer = createOpenAiSummarizer(resolveOpenAiSettings(config, 'local', profile, process.env), loadPrompts().prompts);
 *   const { body, usage } = await summarizer.summarize(request);
 */
export function createOpenAiSummarizer(
  settings: OpenAiSettings,
  prompts: ReadonlyMap<PromptName, LoadedPrompt>,
  options: OpenAiSummarizerOptions = {},
): Summarizer {
  const context: OpenAiContext = {
    settings,
    tokenizer: options.tokenizer ?? 'o200k_base',
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    random: options.random ?? Math.random,
    secrets: settings.apiKey === PLACEHOLDER_KEY ? [] : [settings.apiKey],
    audit: new UsageAudit(),
    connect: lazyOpenAiClient(settings),
    promptOf: (name) => {
      const loaded = prompts.get(name);
      if (!loaded) throw new Error(`no prompt loaded for \`${name}\``);
      return loaded.prompt;
    },
    halted: undefined,
  };
  const ids = new Map<Tier, string>();
  return {
    provider: 'openai',
    model: settings.model,
    ...(options.diagnostics && options.diagnostics.length > 0 ? { diagnostics: options.diagnostics } : {}),
    takeDiagnostics(): Diagnostic[] {
      return context.audit.take(settings);
    },
    promptId(tier: Tier): string {
      let id = ids.get(tier);
      if (!id) {
        id = promptIdOf(context, tier);
        ids.set(tier, id);
      }
      return id;
    },
    estimateInputTokens(request: SummaryRequest): number {
      const rendered = renderPrompt(context.promptOf(request.prompt ?? promptOfTier(request.tier)), request, settings);
      // Chat formats add a few tokens per message.
      return rendered.mode === 'chat'
        ? countTokens(rendered.system, context.tokenizer) + countTokens(rendered.user, context.tokenizer) + 8
        : countTokens(rendered.prompt, context.tokenizer);
    },
    summarize: (request: SummaryRequest) => summarize(context, request),
  };
}

/** `daily@1a2b3c4d`: the tier and a hash of everything that shapes its answers (the rendered prompt, sampling, limits). */
function promptIdOf({ settings, promptOf }: OpenAiContext, tier: Tier): string {
  const hash = hashValue({
    render: RENDER_VERSION,
    prompt: promptFingerprint(promptOf(promptOfTier(tier)), settings.mode),
    temperature: settings.temperature,
    stop: settings.stop,
    max_tokens: settings.maxTokens,
  });
  return `${tier}@${hash.slice(0, 8)}`;
}

/** One summary: the request rendered once, then tried with retries until an answer has a body or a fault ends it. */
async function summarize(context: OpenAiContext, request: SummaryRequest): Promise<SummaryOutput> {
  const { settings } = context;
  const usage: Required<SummaryUsage> = { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0 };
  // Another rollup found the endpoint dead (before this call, or while it waited to try again): stop here too.
  const stopIfHalted = (): void => {
    const { halted } = context;
    if (halted) {
      throw new SummarizerError({ ...halted, message: `not attempted: ${halted.message}`, retryable: false }, usage, usage.calls);
    }
  };
  stopIfHalted();
  const rendered = renderPrompt(context.promptOf(request.prompt ?? promptOfTier(request.tier)), request, settings);
  const maxTokens = settings.maxTokens ?? Math.max(256, request.budget.tokens * 2);
  return withRetries<SummaryOutput>(
    { ...settings, sleep: context.sleep, random: context.random },
    {
      before: stopIfHalted,
      attempt: async (retry) => {
        // A slow server gets more time on each try: attempts of a budget retry and retries after a fault both count.
        const timeoutMs = Math.round(settings.timeoutMs * (1 + 0.5 * (request.attempt + retry)));
        usage.calls++;
        try {
          const answer = await call(context, rendered, maxTokens, timeoutMs);
          usage.inputTokens += answer.inputTokens;
          usage.outputTokens += answer.outputTokens;
          return outcomeOf(settings, answer, maxTokens, usage);
        } catch (error) {
          const { errors } = await context.connect();
          return { fault: classifyError(error, errors, { baseURL: settings.baseURL, timeoutMs, secrets: context.secrets }) };
        }
      },
      onRetry: () => {
        usage.retries++;
      },
      fail: (fault, attempts) => {
        const final = withAttemptCount(fault, attempts);
        if (fault.fatal || fault.kind === 'connection') context.halted ??= final;
        return new SummarizerError(final, usage, usage.calls);
      },
    },
  );
}

/** An answer's cleaned body as the summary, or an `empty` fault (retryable) that says why nothing was left. */
function outcomeOf(
  settings: OpenAiSettings,
  answer: Answer,
  maxTokens: number,
  usage: Required<SummaryUsage>,
): { value: SummaryOutput } | { fault: Fault } {
  const cleaned = cleanOutput(answer.text, settings.mode);
  if (cleaned.body.length > 0) {
    const finish: SummaryOutput['finish'] = answer.finish === 'length' ? 'length' : 'stop';
    return { value: { body: cleaned.body, usage, finish, ...(cleaned.notes.length > 0 ? { notes: cleaned.notes } : {}) } };
  }
  const why =
    answer.finish === 'length'
      ? ` (cut off by max_tokens ${maxTokens} before any summary)`
      : cleaned.notes.length > 0
        ? ` (nothing left after removing ${cleaned.notes.join(', ')})`
        : '';
  return {
    fault: { kind: 'empty', message: `${settings.model} returned an empty answer${why}`, retryable: true, fatal: false },
  };
}

/** One request to the endpoint, bounded by a deadline. */
async function call(context: OpenAiContext, rendered: RenderedPrompt, maxTokens: number, timeoutMs: number): Promise<Answer> {
  const { client } = await context.connect();
  const { temperature } = context.settings;
  const sampling = temperature !== undefined ? { temperature } : {};
  // The SDK's `timeout` ends when the headers arrive; the deadline also bounds reading the body (a stalled or trickling answer).
  return withDeadline(timeoutMs, (signal) => {
    const request: Request = { client, maxTokens, sampling, options: { timeout: timeoutMs, maxRetries: 0, signal } };
    return rendered.mode === 'chat' ? sendChat(context, rendered, request) : sendCompletion(context, rendered, request);
  });
}

type ChatPrompt = Extract<RenderedPrompt, { mode: 'chat' }>;
type CompletionPrompt = Exclude<RenderedPrompt, ChatPrompt>;

/** What both modes send besides the prompt. */
interface Request {
  client: OpenAI;
  maxTokens: number;
  sampling: { temperature?: number };
  options: { timeout: number; maxRetries: number; signal: AbortSignal };
}

async function sendChat(context: OpenAiContext, rendered: ChatPrompt, { client, maxTokens, sampling, options }: Request): Promise<Answer> {
  const { settings } = context;
  const response = await client.chat.completions.create(
    {
      model: settings.model,
      messages: [
        { role: 'system', content: rendered.system },
        { role: 'user', content: rendered.user },
      ],
      ...sampling,
      // OpenAI's newer models accept only `max_completion_tokens`; local servers know `max_tokens`.
      ...(settings.official ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
      ...(settings.stop ? { stop: settings.stop } : {}),
    },
    options,
  );
  const choice = response.choices?.[0];
  return answerOf(
    context,
    stringOr(choice?.message?.content),
    choice?.finish_reason,
    response.usage,
    `${rendered.system}\n${rendered.user}`,
  );
}

async function sendCompletion(
  context: OpenAiContext,
  rendered: CompletionPrompt,
  { client, maxTokens, sampling, options }: Request,
): Promise<Answer> {
  const response = await client.completions.create(
    { model: context.settings.model, prompt: rendered.prompt, max_tokens: maxTokens, ...sampling, stop: rendered.stop },
    options,
  );
  const choice = response.choices?.[0];
  return answerOf(context, stringOr(choice?.text), choice?.finish_reason, response.usage, rendered.prompt);
}

/** The answer's text without control characters, and its token counts: the server's, else counted (`sent`: the prompt). */
function answerOf(
  { audit, tokenizer }: OpenAiContext,
  raw: string,
  finish: string | null | undefined,
  usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined,
  sent: string,
): Answer {
  const text = stripControl(raw);
  return {
    text,
    finish: finish ?? undefined,
    inputTokens: audit.tokens(usage?.prompt_tokens, 'prompt_tokens', () => countTokens(sent, tokenizer)),
    outputTokens: audit.tokens(usage?.completion_tokens, 'completion_tokens', () => countTokens(text, tokenizer)),
  };
}
