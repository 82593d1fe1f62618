import type { OpenAI } from 'openai';
import type { Config, LlmProfile } from '../config/schema.js';
import { weekdayName } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { hashValue } from '../util/hash.js';
import { countTokens, type TokenizerName } from '../util/tokens.js';
import type { Diagnostic, Tier } from '../vault/model.js';
import { backoffDelay, classifyError, displayUrl, stripControl, SummarizerError, type Fault, type SdkErrors } from './faults.js';
import { cleanOutput } from './output.js';
import { promptFingerprint, renderTemplate, type LoadedPrompt, type PromptFile, type PromptName } from './prompts.js';
import { noRedirectFetch, stringOr, UsageAudit, withDeadline } from './transport.js';
import type { Summarizer, SummaryOutput, SummaryRequest, SummarySource, SummaryUsage } from './types.js';

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
const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Sent to servers that need no key (Ollama, llama.cpp…): the SDK insists on one. */
export const PLACEHOLDER_KEY = 'memvault-no-key';
/** Each budget attempt asks for less than the budget: models overshoot what they are told. */
const BUDGET_FACTORS = [0.9, 0.75, 0.6] as const;
/** Words per token of English prose in markdown bullets, for the `about N words` hint. */
const WORDS_PER_TOKEN = 0.7;

/** Everything a call needs, resolved from the profile and the environment. The key is never printed. */
export interface OpenAiSettings {
  profile: string;
  baseURL: string;
  model: string;
  apiKey: string;
  /** Where the key came from, for messages: `OPENAI_API_KEY`, or `none` (placeholder for local servers). */
  keySource: string;
  mode: 'chat' | 'completion';
  temperature: number | undefined;
  /** Cap on each answer; default twice the tier's budget (an answer past that is a runaway). */
  maxTokens: number | undefined;
  stop: string[] | undefined;
  /** First attempt's timeout; attempt n waits `1 + 0.5·n` times as long. */
  timeoutMs: number;
  /** Retries of one request after a fault. */
  faultRetries: number;
  backoffMs: number;
  /** Longest `retry-after` honoured; longer waits are cut to this. */
  maxWaitMs: number;
  /** api.openai.com itself (the key is required, `max_completion_tokens` is sent). */
  official: boolean;
}

/**
 * Resolves the active openai profile: `MEMVAULT_BASE_URL` and `MEMVAULT_MODEL`
 * override the profile; the key is read from the variable named by
 * `api_key_env` (default `OPENAI_API_KEY` for api.openai.com). Another host
 * gets the key only when `api_key_env` names it explicitly, so an OpenAI key is
 * never sent to a local or third-party server by accident; without one a
 * placeholder is sent. A missing key for api.openai.com is a `UserError`,
 * unless `requireKey` is false (dry runs spend nothing).
 */
export function resolveOpenAiSettings(
  config: Config,
  name: string,
  profile: LlmProfile,
  env: NodeJS.ProcessEnv,
  options: { requireKey?: boolean } = {},
): OpenAiSettings {
  const rawUrl = nonEmpty(env.MEMVAULT_BASE_URL) ?? profile.base_url ?? OPENAI_BASE_URL;
  let url: URL;
  try {
    url = new URL(rawUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UserError(
      `base URL \`${displayUrl(rawUrl)}\` of profile \`${name}\` is not an http(s) URL`,
      'use e.g. `base_url: http://localhost:11434/v1` (Ollama) or leave it out for api.openai.com',
      'llm/base-url',
    );
  }
  const official = url.hostname === 'api.openai.com';
  const model = nonEmpty(env.MEMVAULT_MODEL) ?? profile.model;
  if (!model) {
    throw new UserError(
      `profile \`${name}\` names no model`,
      `add \`model:\` to \`llm.profiles.${name}\` (e.g. \`gpt-4.1-mini\`, \`llama3.1:8b\`) or set MEMVAULT_MODEL`,
      'llm/model',
    );
  }
  if (profile.api_key_env !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(profile.api_key_env)) {
    // Somebody pasted the key itself: say so without repeating it.
    throw new UserError(
      `\`llm.profiles.${name}.api_key_env\` must name an environment variable, not hold a key`,
      'remove the key from memory.config.yaml (and from git history if it was committed), then set e.g. `api_key_env: OPENAI_API_KEY` and export the key in the environment',
      'llm/api-key-env',
    );
  }
  const keyVar = profile.api_key_env ?? (official ? 'OPENAI_API_KEY' : undefined);
  const key = keyVar ? nonEmpty(env[keyVar]) : undefined;
  if (!key && keyVar && options.requireKey !== false && (official || profile.api_key_env !== undefined)) {
    throw new UserError(
      `no API key for profile \`${name}\`: the environment variable \`${keyVar}\` is not set`,
      `export ${keyVar}=… before running memvault (keys are read from the environment only, never from the vault); or use a local server (base_url) or \`provider: extractive\``,
      'llm/api-key',
    );
  }
  const timeoutS = profile.timeout_s ?? config.llm.timeout_s;
  return {
    profile: name,
    baseURL: url.toString().replace(/\/$/, ''),
    model,
    apiKey: key ?? PLACEHOLDER_KEY,
    keySource: key ? keyVar! : 'none',
    mode: profile.mode,
    temperature: profile.temperature ?? 0.2,
    maxTokens: profile.max_tokens,
    stop: profile.stop,
    timeoutMs: Math.round(timeoutS * 1000),
    faultRetries: config.llm.fault_retries,
    backoffMs: config.llm.backoff_ms,
    maxWaitMs: Math.round(config.llm.max_wait_s * 1000),
    official,
  };
}

/** Options of `createOpenAiSummarizer`; the defaults fit real use (tokenizer `o200k_base`, real sleeps). */
export interface OpenAiSummarizerOptions {
  tokenizer?: TokenizerName;
  diagnostics?: Diagnostic[];
  /** Tests: no real waiting. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** A rendered request: what is sent, before sampling settings. */
export type RenderedPrompt = { mode: 'chat'; system: string; user: string } | { mode: 'completion'; prompt: string; stop: string[] };

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
  let sdk: Promise<{ client: OpenAI; errors: SdkErrors }> | undefined;
  /** Set once a fault means every later call would fail too (bad key, unknown model, server unreachable). */
  let halted: Fault | undefined;
  /** Absurd usage figures seen while calling, handed to the build by `takeDiagnostics`. */
  const audit = new UsageAudit();

  const promptOf = (name: PromptName): PromptFile => {
    const loaded = prompts.get(name);
    if (!loaded) throw new Error(`no prompt loaded for \`${name}\``);
    return loaded.prompt;
  };
  const connect = (): Promise<{ client: OpenAI; errors: SdkErrors }> =>
    (sdk ??= import('openai').then((module) => ({
      client: new module.OpenAI({
        apiKey: settings.apiKey,
        baseURL: settings.baseURL,
        // Retries are ours: bounded, counted, with configurable backoff.
        maxRetries: 0,
        timeout: settings.timeoutMs,
        logLevel: 'off',
        // Redirects are not followed: memory text goes to the configured origin or nowhere.
        fetch: noRedirectFetch,
        // OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to OpenAI; other hosts do not get them.
        ...(settings.official ? {} : { organization: null, project: null }),
      }),
      errors: module,
    })));

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
          prompt: promptFingerprint(promptOf(tier), settings.mode),
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
      const rendered = renderPrompt(promptOf(request.prompt ?? request.tier), request, settings);
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
      let skipped = skip();
      if (skipped) throw skipped;
      const rendered = renderPrompt(promptOf(request.prompt ?? request.tier), request, settings);
      const maxTokens = settings.maxTokens ?? Math.max(256, request.budget.tokens * 2);
      for (let retry = 0; ; retry++) {
        // A slow server gets more time on each try: attempts of a budget retry and retries after a fault both count.
        const timeoutMs = Math.round(settings.timeoutMs * (1 + 0.5 * (request.attempt + retry)));
        let fault: Fault;
        usage.calls++;
        try {
          const answer = await call(rendered, maxTokens, timeoutMs);
          usage.inputTokens += answer.inputTokens;
          usage.outputTokens += answer.outputTokens;
          const cleaned = cleanOutput(answer.text, settings.mode);
          if (cleaned.body.length > 0) {
            return {
              body: cleaned.body,
              usage,
              finish: answer.finish === 'length' ? 'length' : 'stop',
              ...(cleaned.notes.length > 0 ? { notes: cleaned.notes } : {}),
            };
          }
          const why =
            answer.finish === 'length'
              ? ` (cut off by max_tokens ${maxTokens} before any summary)`
              : cleaned.notes.length > 0
                ? ` (nothing left after removing ${cleaned.notes.join(', ')})`
                : '';
          fault = { kind: 'empty', message: `${settings.model} returned an empty answer${why}`, retryable: true, fatal: false };
        } catch (error) {
          const { errors } = await connect();
          fault = classifyError(error, errors, { baseURL: settings.baseURL, timeoutMs, secrets });
        }
        if (!fault.retryable || retry >= settings.faultRetries) {
          const attempts = retry + 1;
          const final: Fault = {
            ...fault,
            message: `${fault.message}${fault.retryable ? ` (${attempts} attempt${attempts > 1 ? 's' : ''})` : ''}`,
          };
          if (fault.fatal || fault.kind === 'connection') halted ??= final;
          throw new SummarizerError(final, usage, usage.calls);
        }
        usage.retries++;
        const wait =
          fault.retryAfterMs !== undefined
            ? Math.min(fault.retryAfterMs, settings.maxWaitMs)
            : backoffDelay(retry, settings.backoffMs, 30_000, random);
        await sleep(wait);
        // Another rollup found the endpoint dead meanwhile: stop here too.
        skipped = skip();
        if (skipped) throw skipped;
      }
    },
  };
  return summarizer;
}

// ---------------------------------------------------------------------------
// Rendering

/**
 * The text sent for a request: the tier's prompt with the request's values,
 * the tighter instruction of a budget retry, and the must-keep items a
 * previous attempt lost. Pure; exported for tests and dry runs.
 */
export function renderPrompt(prompt: PromptFile, request: SummaryRequest, settings: Pick<OpenAiSettings, 'mode' | 'stop'>): RenderedPrompt {
  const factor = BUDGET_FACTORS[Math.min(request.attempt, BUDGET_FACTORS.length - 1)]!;
  const maxTokens = Math.max(16, Math.floor(request.budget.tokens * factor));
  const variables: Record<string, string> = {
    stream: request.stream,
    tier: request.tier,
    period: request.period,
    start: request.start,
    end: request.end,
    max_tokens: String(maxTokens),
    max_words: String(Math.max(10, Math.floor(maxTokens * WORDS_PER_TOKEN))),
    max_bytes: String(Math.floor(request.budget.bytes * factor)),
    source_count: String(request.sources.length),
    attempt: String(request.attempt),
  };
  const notes: string[] = [];
  if (request.attempt > 0) {
    const retry = prompt.retry[Math.min(request.attempt - 1, prompt.retry.length - 1)]!;
    const previous = request.previousTokens !== undefined ? String(request.previousTokens) : `more than ${request.budget.tokens}`;
    notes.push(renderTemplate(retry, { ...variables, previous_tokens: previous }));
  }
  if (request.missing.length > 0)
    notes.push(renderTemplate(prompt.keep, { ...variables, missing: request.missing.map((item) => `“${item}”`).join('; ') }));
  const notesText = notes.join('\n');
  const sources = request.sources.map((source) => renderTemplate(prompt.source, sourceVariables(source)).trim()).join('\n\n');
  const fill = (text: string): string => {
    let out = renderTemplate(text, { ...variables, sources, notes: notesText });
    if (notesText && !/\{\{\s*notes\s*\}\}/.test(text))
      out = settings.mode === 'chat' ? `${out.trimEnd()}\n\n${notesText}` : `${notesText}\n\n${out}`;
    return tidy(out);
  };
  if (settings.mode === 'chat') return { mode: 'chat', system: tidy(renderTemplate(prompt.system, variables)), user: fill(prompt.user) };
  return { mode: 'completion', prompt: fill(prompt.completion.prompt), stop: settings.stop ?? prompt.completion.stop };
}

function sourceVariables(source: SummarySource): Record<string, string> {
  return {
    heading: headingOf(source),
    label: source.label,
    day: source.day,
    time: source.time ?? '',
    kind: source.kind,
    importance: source.importance,
    id: source.id,
    body: demote(source.body.trim()),
  };
}

/** How a source is introduced: `09:05 Auth refactor (session, pinned)`, `2026-02-10 (Tue)`, `week 2026-W07`. */
function headingOf(source: SummarySource): string {
  if (source.kind !== 'summary') {
    const notes = [source.kind, source.importance === 'pinned' ? 'pinned' : ''].filter(Boolean).join(', ');
    return `${source.time ? `${source.time} ` : ''}${source.label}${notes ? ` (${notes})` : ''}`;
  }
  const tier = source.id.includes('/') ? source.id.slice(0, source.id.indexOf('/')) : source.id;
  switch (tier) {
    case 'daily':
      return `${source.label} (${safeWeekday(source.label)})`;
    case 'weekly':
      return `week ${source.label} (from ${source.day})`;
    case 'monthly':
      return `month ${source.label}`;
    case 'longterm':
      return 'long-term memory so far';
    default:
      return source.label;
  }
}

function safeWeekday(day: string): string {
  try {
    return weekdayName(day);
  } catch {
    return day;
  }
}

/** Headings of a source body go below the source's own `###` heading (fenced code is left alone). */
function demote(body: string): string {
  let inFence = false;
  return body
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      if (inFence) return line;
      const match = /^(#{1,6})(\s.*)$/.exec(line);
      return match ? `${'#'.repeat(Math.min(6, match[1]!.length + 3))}${match[2]}` : line;
    })
    .join('\n');
}

/** Blank-only lines emptied, runs of blank lines cut to one, trailing space dropped. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}
