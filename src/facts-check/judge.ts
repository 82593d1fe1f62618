import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { classifyError, stripControl, type Fault } from '../llm/faults.js';
import { withAttemptCount, withRetries } from '../llm/retry.js';
import { PLACEHOLDER_KEY, type OpenAiSettings } from '../llm/openai-settings.js';
import { builtinPromptsDir, renderTemplate } from '../llm/prompts.js';
import { lazyOpenAiClient, stringOr, withDeadline } from '../llm/transport.js';
import { MemvaultError } from '../util/errors.js';
import { hashValue } from '../util/hash.js';
import { answerSchema, type CheckAnswer } from './cache.js';

/**
 * The model's side of `memvault facts --check`: the prompt
 * (prompts/facts-check.yaml), one request per pair through the same guarded
 * transport as the summarizer (deadline, no redirects, faults classified and
 * retried with backoff as src/llm/faults.ts says), and the answer validated
 * as one JSON object.
 */

/** Characters of each memory sent: a decision is short; a long note is cut rather than sent whole. */
export const MAX_NOTE_CHARS = 2000;
/** Tokens a verdict may take: one JSON object with a one-line reason. */
const MAX_ANSWER_TOKENS = 300;

const checkPromptSchema = z.strictObject({
  version: z.literal(1),
  description: z.string().optional(),
  system: z.string().trim().min(1),
  user: z
    .string()
    .trim()
    .min(1)
    .refine((text) => text.includes('{{a}}') && text.includes('{{b}}'), 'must contain {{a}} and {{b}}'),
});

/** The prompt of the check, as read from its file. */
export type CheckPrompt = z.output<typeof checkPromptSchema>;

/** The built-in prompt (`prompts/facts-check.yaml`); a broken file is an internal error, it ships with memvault. */
export function loadCheckPrompt(dir: string = builtinPromptsDir()): CheckPrompt {
  const file = path.join(dir, 'facts-check.yaml');
  const parsed = checkPromptSchema.safeParse(parseYaml(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`the built-in prompt \`${file}\` is invalid: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/** One side of a pair as the prompt shows it. */
export interface CheckNote {
  path: string;
  day: string;
  /** Title and body of the memory. */
  text: string;
}

/** Names the judge in cached answers: another model, mode or prompt asks again. */
export function judgeId(settings: Pick<OpenAiSettings, 'model' | 'mode' | 'temperature'>, prompt: CheckPrompt): string {
  const { description: _description, ...sent } = prompt;
  return `${settings.model}@${hashValue({ ...sent, mode: settings.mode, temperature: settings.temperature }).slice(0, 8)}`;
}

/** The prompt filled for one pair: chat messages, or one text for completion-mode profiles. */
export function renderCheck(prompt: CheckPrompt, a: CheckNote, b: CheckNote): { system: string; user: string } {
  const cut = (text: string): string => (text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS)} […]` : text.trim());
  const variables = { a: cut(a.text), b: cut(b.text), a_path: a.path, b_path: b.path, a_day: a.day, b_day: b.day };
  return { system: renderTemplate(prompt.system, variables), user: renderTemplate(prompt.user, variables) };
}

/**
 * A model's answer read as a verdict: the first `{…}` in it (models wrap
 * JSON in code fences or chatter), validated; undefined when there is none.
 * The reason is made one printable line.
 *
 * @example
 *   parseVerdict('```json\n{"contradicts": true, "confidence": 0.8, "reason": "Postgres vs MySQL"}\n```')
 *   // { contradicts: true, confidence: 0.8, reason: 'Postgres vs MySQL' }
 */
export function parseVerdict(text: string): CheckAnswer | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const reason = stripControl(parsed.data.reason).replace(/\s+/g, ' ').trim();
  return { ...parsed.data, reason: reason.length > 200 ? `${reason.slice(0, 199)}…` : reason };
}

/** A pair the model could not judge, after the retries the fault allowed. `fault.fatal`: later pairs would fail too. */
export class CheckFailedError extends MemvaultError {
  constructor(readonly fault: Fault) {
    super('llm/failed', fault.message);
    this.name = 'CheckFailedError';
  }
}

/** Asks about pairs; `calls` counts requests, retries included. */
export interface Judge {
  readonly calls: number;
  judge(a: CheckNote, b: CheckNote): Promise<CheckAnswer>;
}

/**
 * A judge on the endpoint of an `openai` profile. Faults are retried as the
 * summarizer retries them (`llm.fault_retries`, backoff, `retry-after`); an
 * answer that is no verdict counts as an empty answer and is retried too. A
 * fault every later call would hit (bad key, unknown model, unreachable
 * server) stops the calls that follow.
 *
 * @example
 *   const judge = createJudge(settings, loadCheckPrompt());
 *   const { contradicts, reason } = await judge.judge(a, b);
 */
export function createJudge(settings: OpenAiSettings, prompt: CheckPrompt, options: { sleep?: (ms: number) => Promise<void> } = {}): Judge {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const secrets = settings.apiKey === PLACEHOLDER_KEY ? [] : [settings.apiKey];
  const connect = lazyOpenAiClient(settings);
  let calls = 0;
  let halted: Fault | undefined;

  const ask = async (rendered: { system: string; user: string }, timeoutMs: number): Promise<string> => {
    const { client } = await connect();
    const sampling = settings.temperature !== undefined ? { temperature: settings.temperature } : {};
    const limit = settings.official ? { max_completion_tokens: MAX_ANSWER_TOKENS } : { max_tokens: MAX_ANSWER_TOKENS };
    return withDeadline(timeoutMs, async (signal) => {
      const requestOptions = { timeout: timeoutMs, maxRetries: 0, signal };
      if (settings.mode === 'completion') {
        const body = {
          model: settings.model,
          prompt: `${rendered.system}\n\n${rendered.user}\n\nJSON answer:`,
          max_tokens: MAX_ANSWER_TOKENS,
        };
        const response = await client.completions.create({ ...body, ...sampling, stop: ['\n\n\n'] }, requestOptions);
        return stringOr(response.choices?.[0]?.text);
      }
      const messages = [
        { role: 'system' as const, content: rendered.system },
        { role: 'user' as const, content: rendered.user },
      ];
      const response = await client.chat.completions.create({ model: settings.model, messages, ...sampling, ...limit }, requestOptions);
      return stringOr(response.choices?.[0]?.message?.content);
    });
  };

  return {
    get calls() {
      return calls;
    },
    async judge(a, b) {
      const rendered = renderCheck(prompt, a, b);
      return withRetries<CheckAnswer>(
        { ...settings, sleep },
        {
          before: () => {
            if (halted) throw new CheckFailedError({ ...halted, message: `not attempted: ${halted.message}`, retryable: false });
          },
          attempt: async (retry) => {
            // A slow server gets more time on each try, as the summarizer gives it.
            const timeoutMs = Math.round(settings.timeoutMs * (1 + 0.5 * retry));
            calls++;
            try {
              const verdict = parseVerdict(await ask(rendered, timeoutMs));
              if (verdict) return { value: verdict };
              return { fault: { kind: 'empty', message: `${settings.model} answered no JSON verdict`, retryable: true, fatal: false } };
            } catch (error) {
              const { errors } = await connect();
              return { fault: classifyError(error, errors, { baseURL: settings.baseURL, timeoutMs, secrets }) };
            }
          },
          fail: (fault, attempts) => {
            const final = withAttemptCount(fault, attempts);
            if (fault.fatal || fault.kind === 'connection') halted ??= { ...final, fatal: true };
            return new CheckFailedError(fault.kind === 'connection' ? { ...final, fatal: true } : final);
          },
        },
      );
    },
  };
}
