import type { Config, EmbeddingsConfig } from '../../config/schema.js';
import { classifyError, type Fault } from '../../llm/faults.js';
import { withRetries } from '../../llm/retry.js';
import { PLACEHOLDER_KEY, resolveOpenAiSettings, type OpenAiSettings } from '../../llm/openai-settings.js';
import { lazyOpenAiClient, withDeadline } from '../../llm/transport.js';

/**
 * Embeddings through any OpenAI-compatible `/v1/embeddings` (OpenAI, Ollama,
 * vLLM, llama.cpp server, LM Studio) with the official SDK, behind the same
 * transport as the summarizer: a deadline on the whole request, no
 * redirects, faults classified alike and retried with backoff (429 honours
 * `retry-after`, 5xx, timeouts, refused connections); a fault every later
 * call would hit too (bad key, unknown model, server unreachable) stops the
 * calls that follow.
 */

/** One failed request, after its retries. */
export class EmbeddingError extends Error {
  constructor(readonly fault: Fault) {
    super(fault.message);
    this.name = 'EmbeddingError';
  }
}

export interface Embedder {
  model: string;
  dimensions: number | undefined;
  /** Requests sent so far, retries included. */
  readonly calls: number;
  /** Vectors for `texts`, in order; throws `EmbeddingError` when the request fails for good. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

export interface EmbedderOptions {
  env?: NodeJS.ProcessEnv;
  /** Tests: no real waiting. */
  sleep?: (ms: number) => Promise<void>;
}

/** The endpoint, key and retry policy of the `embeddings` profile (the key from `api_key_env` only; `MEMVAULT_*` overrides are the summarizer's). */
export function resolveEmbeddingSettings(config: Config, profile: EmbeddingsConfig, env: NodeJS.ProcessEnv): OpenAiSettings {
  const { MEMVAULT_BASE_URL: _url, MEMVAULT_MODEL: _model, ...rest } = env;
  return resolveOpenAiSettings(
    config,
    'embeddings',
    {
      provider: 'openai',
      mode: 'chat',
      model: profile.model,
      timeout_s: profile.timeout_s,
      ...(profile.base_url ? { base_url: profile.base_url } : {}),
      ...(profile.api_key_env ? { api_key_env: profile.api_key_env } : {}),
    },
    rest,
    { configPath: 'embeddings' },
  );
}

/**
 * Creates an embedder for the `embeddings` profile; the SDK is loaded on the first call.
 *
 * @example
 *   const embedder = createEmbedder(config, config.embeddings!);
 *   const [vector] = await embedder.embed(['server sessions in Postgres']);
 */
export function createEmbedder(config: Config, profile: EmbeddingsConfig, options: EmbedderOptions = {}): Embedder {
  const settings = resolveEmbeddingSettings(config, profile, options.env ?? process.env);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const secrets = settings.apiKey === PLACEHOLDER_KEY ? [] : [settings.apiKey];
  let halted: Fault | undefined;
  let calls = 0;
  const connect = lazyOpenAiClient(settings);
  return {
    model: settings.model,
    dimensions: profile.dimensions,
    get calls() {
      return calls;
    },
    async embed(texts) {
      return withRetries<number[][]>(
        { ...settings, sleep },
        {
          before: () => {
            if (halted) throw new EmbeddingError({ ...halted, message: `not attempted: ${halted.message}`, retryable: false });
          },
          attempt: async () => {
            calls++;
            try {
              const { client } = await connect();
              const response = await withDeadline(settings.timeoutMs, (signal) =>
                client.embeddings.create(
                  {
                    model: settings.model,
                    input: [...texts],
                    // Floats, not the SDK's default base64: Ollama and llama.cpp answer floats only.
                    encoding_format: 'float',
                    ...(profile.dimensions ? { dimensions: profile.dimensions } : {}),
                  },
                  { timeout: settings.timeoutMs, maxRetries: 0, signal },
                ),
              );
              const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
              const vectors = data.map((item) => item.embedding);
              if (vectors.length === texts.length && vectors.every((v) => Array.isArray(v) && v.length > 0 && v.every(Number.isFinite)))
                return { value: vectors };
              const message = `${settings.model} returned ${vectors.length} usable vectors for ${texts.length} texts`;
              return { fault: { kind: 'empty', message, retryable: true, fatal: false } };
            } catch (error) {
              if (error instanceof EmbeddingError) throw error;
              const { errors } = await connect();
              return { fault: classifyError(error, errors, { baseURL: settings.baseURL, timeoutMs: settings.timeoutMs, secrets }) };
            }
          },
          fail: (fault) => {
            if (fault.fatal || fault.kind === 'connection') halted ??= fault;
            return new EmbeddingError(fault);
          },
        },
      );
    },
  };
}
