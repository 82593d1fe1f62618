import type { Config, LlmProfile } from '../config/schema.js';
import { UserError } from '../util/errors.js';
import { displayUrl } from './faults.js';

/**
 * The settings of one `openai` profile, resolved from memory.config.yaml and
 * the environment: URL, model, key (never printed), mode, sampling, timeouts
 * and retries. Pure: the environment is passed in.
 */

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Sent to servers that need no key (Ollama, llama.cpp…): the SDK insists on one. */
export const PLACEHOLDER_KEY = 'memvault-no-key';

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
 * unless `requireKey` is false (dry runs spend nothing). `configPath` names
 * the profile's place in memory.config.yaml in messages (default
 * `llm.profiles.<name>`).
 */
export function resolveOpenAiSettings(
  config: Config,
  name: string,
  profile: LlmProfile,
  env: NodeJS.ProcessEnv,
  options: { requireKey?: boolean; configPath?: string } = {},
): OpenAiSettings {
  // Where the profile lives in memory.config.yaml, for messages: the embeddings profile is not under `llm.profiles`.
  const configPath = options.configPath ?? `llm.profiles.${name}`;
  const rawUrl = nonEmpty(env.MEMVAULT_BASE_URL) ?? profile.base_url ?? OPENAI_BASE_URL;
  let url: URL;
  try {
    url = new URL(rawUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UserError('llm/base-url', `base URL \`${displayUrl(rawUrl)}\` of profile \`${name}\` is not an http(s) URL`);
  }
  const official = url.hostname === 'api.openai.com';
  const model = nonEmpty(env.MEMVAULT_MODEL) ?? profile.model;
  if (!model) {
    throw new UserError('llm/model', `profile \`${name}\` names no model`, { profile: name });
  }
  if (profile.api_key_env !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(profile.api_key_env)) {
    // Somebody pasted the key itself: say so without repeating it.
    throw new UserError('llm/api-key-env', `\`${configPath}.api_key_env\` must name an environment variable, not hold a key`);
  }
  const keyVar = profile.api_key_env ?? (official ? 'OPENAI_API_KEY' : undefined);
  const key = keyVar ? nonEmpty(env[keyVar]) : undefined;
  if (!key && keyVar && options.requireKey !== false && (official || profile.api_key_env !== undefined)) {
    throw new UserError('llm/api-key', `no API key for profile \`${name}\`: the environment variable \`${keyVar}\` is not set`, {
      variable: keyVar,
    });
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

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}
