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
  const tokenizer = options.tokenizer ?? 'o200k_base';
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const secrets = settings.apiKey === PLACEHOLDER_KEY ? [] : [settings.apiKey];
  const ids = new Map<Tier, string>();
  /** Set once a fault means every later call would fail too (bad key, unknown model, server unreachable). */
  let halted: Fault | undefined;
  /** Absurd usage figures seen while calling, handed to the build by `takeDiagnostics`. */
  const audit = new UsageAudit();

  const promptOf = (name: PromptName): PromptFile => {
    const loaded = prompts.get(name);
    if (!loaded) throw new Error(`no prompt loaded for \`${name}\``);
    return loaded.prompt;
  };
  const connect = lazyOpenAiClient(settings);

  const call = async (
    rendered: RenderedPrompt,
    maxTokens: number,
    timeoutMs: number,
  ): Promise<{ text: string; finish: string | undefined; inputTokens: number; outputTokens: number }> => {
    const { client } = await connect();
    const sampling = settings.temperature !== undefined ? { temperature: settings.temperature } : {};
    // The SDK's `timeout` ends when the headers arrive; the deadline also bounds reading the body (a stalled or trickling answer).
    return withDeadline(timeoutMs, (signal) => send(client, rendered, maxTokens, sampling, { timeout: timeoutMs, maxRetries: 0, signal }));
  };

  const send = async (
    client: OpenAI,
    rendered: RenderedPrompt,
    maxTokens: number,
    sampling: { temperature?: number },
    requestOptions: { timeout: number; maxRetries: number; signal: AbortSignal },
  ): Promise<{ text: string; finish: string | undefined; inputTokens: number; outputTokens: number }> => {
    if (rendered.mode === 'chat') {
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
        requestOptions,
      );
      const choice = response.choices?.[0];
      const text = stripControl(stringOr(choice?.message?.content));
      return {
        text,
        finish: choice?.finish_reason ?? undefined,
        inputTokens: audit.tokens(response.usage?.prompt_tokens, 'prompt_tokens', () =>
          countTokens(`${rendered.system}\n${rendered.user}`, tokenizer),
        ),
        outputTokens: audit.tokens(response.usage?.completion_tokens, 'completion_tokens', () => countTokens(text, tokenizer)),
      };
    }
    const response = await client.completions.create(
      { model: settings.model, prompt: rendered.prompt, max_tokens: maxTokens, ...sampling, stop: rendered.stop },
      requestOptions,
    );
    const choice = response.choices?.[0];
    const text = stripControl(stringOr(choice?.text));
    return {
      text,
      finish: choice?.finish_reason ?? undefined,
      inputTokens: audit.tokens(response.usage?.prompt_tokens, 'prompt_tokens', () => countTokens(rendered.prompt, tokenizer)),
      outputTokens: audit.tokens(response.usage?.completion_tokens, 'completion_tokens', () => countTokens(text, tokenizer)),
    };
  };

  const summarizer: Summarizer = {
    provider: 'openai',
    model: settings.model,
    ...(options.diagnostics && options.diagnostics.length > 0 ? { diagnostics: options.diagnostics } : {}),
    takeDiagnostics(): Diagnostic[] {
      return audit.take(settings);
    },
    promptId(tier: Tier): string {
      let id = ids.get(tier);
      if (!id) {
        const hash = hashValue({
          render: RENDER_VERSION,
          prompt: promptFingerprint(promptOf(promptOfTier(tier)), settings.mode),
          temperature: settings.temperature,
          stop: settings.stop,
          max_tokens: settings.maxTokens,
        });
        id = `${tier}@${hash.slice(0, 8)}`;
        ids.set(tier, id);
      }
      return id;
    },
    estimateInputTokens(request: SummaryRequest): number {
      const rendered = renderPrompt(promptOf(request.prompt ?? promptOfTier(request.tier)), request, settings);
      // Chat formats add a few tokens per message.
      return rendered.mode === 'chat'
        ? countTokens(rendered.system, tokenizer) + countTokens(rendered.user, tokenizer) + 8
        : countTokens(rendered.prompt, tokenizer);
    },
    async summarize(request: SummaryRequest): Promise<SummaryOutput> {
      const usage: Required<SummaryUsage> = { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0 };
      const skip = (): SummarizerError | undefined =>
        halted
          ? new SummarizerError({ ...halted, message: `not attempted: ${halted.message}`, retryable: false }, usage, usage.calls)
          : undefined;
      // Another rollup found the endpoint dead (before this call, or while it waited to try again): stop here too.
      const stopIfHalted = (): void => {
        const skipped = skip();
        if (skipped) throw skipped;
      };
      stopIfHalted();
      const rendered = renderPrompt(promptOf(request.prompt ?? promptOfTier(request.tier)), request, settings);
      const maxTokens = settings.maxTokens ?? Math.max(256, request.budget.tokens * 2);
      return withRetries<SummaryOutput>(
        { ...settings, sleep, random },
        {
          before: stopIfHalted,
          attempt: async (retry) => {
            // A slow server gets more time on each try: attempts of a budget retry and retries after a fault both count.
            const timeoutMs = Math.round(settings.timeoutMs * (1 + 0.5 * (request.attempt + retry)));
            usage.calls++;
            try {
              const answer = await call(rendered, maxTokens, timeoutMs);
              usage.inputTokens += answer.inputTokens;
              usage.outputTokens += answer.outputTokens;
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
            } catch (error) {
              const { errors } = await connect();
              return { fault: classifyError(error, errors, { baseURL: settings.baseURL, timeoutMs, secrets }) };
            }
          },
          onRetry: () => {
            usage.retries++;
          },
          fail: (fault, attempts) => {
            const final = withAttemptCount(fault, attempts);
            if (fault.fatal || fault.kind === 'connection') halted ??= final;
            return new SummarizerError(final, usage, usage.calls);
          },
        },
      );
    },
  };
  return summarizer;
}
