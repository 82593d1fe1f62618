import { z } from 'zod';
import { UserError } from '../util/errors.js';

/**
 * The schema of `memory.config.yaml`. Every key has a default, so an empty
 * file (or none) is a valid configuration. The JSON Schema editors use is
 * generated from this (`npm run schema` writes `memory.config.schema.json`).
 */

const budget = (targetTokens: number, maxBytes: number) =>
  z
    .strictObject({
      target_tokens: z.number().int().positive().describe('Token budget of one summary of this tier.'),
      max_bytes: z.number().int().positive().describe('Byte budget of one summary of this tier.'),
    })
    .default({ target_tokens: targetTokens, max_bytes: maxBytes });

export type TierBudget = { target_tokens: number; max_bytes: number };

const streamSchema = z.strictObject({
  calendar: z.boolean().default(true).describe('Roll memories up into daily/weekly/monthly/long-term summaries.'),
  waterfall: z.boolean().default(false).describe('Count-based waterfall compaction for agent streams.'),
  forget: z
    .boolean()
    .optional()
    .describe('`false`: never forget a memory of this stream (default: unused memories leave the package after `forget_after_days`).'),
});

const profileSchema = z.strictObject({
  provider: z.enum(['extractive', 'openai']).describe('`extractive` is embedded and offline; `openai` is any OpenAI-compatible endpoint.'),
  base_url: z
    .string()
    .optional()
    .describe(
      'OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama); default api.openai.com. MEMVAULT_BASE_URL overrides.',
    ),
  model: z.string().optional().describe('Model name, e.g. `gpt-4.1-mini` or `llama3.1:8b`. MEMVAULT_MODEL overrides.'),
  api_key_env: z
    .string()
    .optional()
    .describe(
      'Name of the environment variable holding the API key (never the key itself). Default OPENAI_API_KEY for ' +
        'api.openai.com; other hosts get a key only when this names one.',
    ),
  mode: z
    .enum(['chat', 'completion'])
    .default('chat')
    .describe('`chat` (system + user messages) or `completion` (base models: the plain `# Memories:` … `>` format with stop sequences).'),
  temperature: z.number().min(0).max(2).optional().describe('Sampling temperature; default 0.2.'),
  max_tokens: z.number().int().positive().optional().describe("Cap on each answer; default twice the tier's token budget."),
  stop: z.array(z.string()).optional().describe('Stop sequences; completion mode defaults to the prompt file\'s (`["\\n#"]`).'),
  timeout_s: z.number().positive().optional().describe('Request timeout for this profile; default `llm.timeout_s`.'),
});

const embeddingsSchema = z
  .strictObject({
    base_url: z.string().optional().describe('Endpoint, e.g. `http://localhost:11434/v1` (Ollama); default api.openai.com.'),
    model: z.string().min(1).describe('Embedding model, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small`.'),
    api_key_env: z.string().optional().describe('Name of the environment variable holding the API key (never the key itself).'),
    batch_size: z.number().int().min(1).max(2048).default(64).describe('Texts sent in one /v1/embeddings request.'),
    concurrency: z.number().int().min(1).max(16).default(2).describe('Requests in flight at once.'),
    dimensions: z.number().int().positive().optional().describe('Ask for vectors of this size (models that support it).'),
    timeout_s: z.number().positive().default(60).describe('Timeout of one request in seconds.'),
  })
  .optional()
  .describe('Semantic search: vectors of every memory and summary, cached per content hash and fused with BM25. Offline without it.');

export type EmbeddingsConfig = NonNullable<z.output<typeof embeddingsSchema>>;

export const DEFAULT_TIMEZONE = 'UTC';

/** Stream names become folder names: lowercase letters, digits, `.`, `_` and `-`. */
export const STREAM_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Throws a `UserError` for a stream name that is not allowed (`--stream` flags). */
export function assertStreamName(name: string): void {
  if (!STREAM_NAME.test(name)) throw new UserError('cli/stream', `stream name \`${name}\` is not allowed`);
}

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  vault: z.string().min(1).default('vault').describe('Folder of the vault, relative to this file.'),
  timezone: z
    .string()
    .default(DEFAULT_TIMEZONE)
    .refine((zone) => isValidTimeZone(zone), { message: 'unknown time zone (use an IANA name such as `Europe/Berlin` or `UTC`)' })
    .describe('IANA time zone in which calendar days, weeks and months are cut.'),
  tokenizer: z.enum(['o200k_base', 'cl100k_base']).default('o200k_base'),
  forget_after_days: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Days after which a low or normal memory no retrieval used leaves the package detail and the context candidates (default 90).',
    ),
  streams: z
    .record(z.string().regex(STREAM_NAME, 'stream names are lowercase letters, digits, `.`, `_` and `-`'), streamSchema)
    .default({ main: { calendar: true, waterfall: false } }),
  calendar: z
    .strictObject({
      daily: budget(300, 1400),
      weekly: budget(500, 2400),
      monthly: budget(800, 3600),
      longterm: budget(1200, 5200),
      retention: z
        .strictObject({
          memories_days: z.number().int().positive().default(30),
          daily_days: z.number().int().positive().default(90),
          weekly_weeks: z.number().int().positive().default(12),
        })
        .default({ memories_days: 30, daily_days: 90, weekly_weeks: 12 }),
    })
    .default({
      daily: { target_tokens: 300, max_bytes: 1400 },
      weekly: { target_tokens: 500, max_bytes: 2400 },
      monthly: { target_tokens: 800, max_bytes: 3600 },
      longterm: { target_tokens: 1200, max_bytes: 5200 },
      retention: { memories_days: 30, daily_days: 90, weekly_weeks: 12 },
    }),
  waterfall: z
    .strictObject({
      immediate_window: z.number().int().positive().default(64).describe('Newest memories of a waterfall stream kept verbatim.'),
      recent_window: z
        .number()
        .int()
        .positive()
        .default(64)
        .describe('Memories folded per compaction: the first at immediate + recent + 1 memories, then every recent_window.'),
      recent: budget(800, 4000),
      longterm: budget(1200, 6000),
      context_max_tokens: z
        .number()
        .int()
        .positive()
        .default(10000)
        .describe('Token budget of CONTEXT.md; the oldest verbatim memories are shortened, then left out, to fit.'),
    })
    .default({
      immediate_window: 64,
      recent_window: 64,
      recent: { target_tokens: 800, max_bytes: 4000 },
      longterm: { target_tokens: 1200, max_bytes: 6000 },
      context_max_tokens: 10000,
    }),
  upload: z
    .strictObject({
      max_tokens: z.number().int().positive().default(8750),
      max_bytes: z.number().int().positive().default(35840),
      full_detail_hours: z.number().int().min(0).default(24),
      daily_days: z.number().int().min(0).default(7),
      weekly_days: z.number().int().min(0).default(30),
      monthly_window: z.number().int().min(0).default(2),
    })
    .default({ max_tokens: 8750, max_bytes: 35840, full_detail_hours: 24, daily_days: 7, weekly_days: 30, monthly_window: 2 }),
  llm: z
    .strictObject({
      profile: z.string().default('summarizer'),
      profiles: z.record(z.string(), profileSchema).default({ summarizer: { provider: 'extractive', mode: 'chat' } }),
      retries: z
        .number()
        .int()
        .min(0)
        .max(10)
        .default(2)
        .describe('Tighter retries after an over-budget answer, before the rollup is flagged for review.'),
      timeout_s: z
        .number()
        .positive()
        .default(120)
        .describe("Timeout of one LLM request in seconds (a profile's `timeout_s` wins); each further attempt waits 50 % longer."),
      concurrency: z.number().int().min(1).max(64).default(2).describe('Independent rollups summarized at the same time.'),
      fault_retries: z
        .number()
        .int()
        .min(0)
        .max(10)
        .default(3)
        .describe('Retries of one request after a timeout, a refused connection, 429, 5xx or an empty answer.'),
      backoff_ms: z
        .number()
        .int()
        .min(0)
        .default(1000)
        .describe('First pause before a fault retry; doubles each time (±25 % jitter), at most 30 s.'),
      max_wait_s: z.number().min(0).default(60).describe('Longest `retry-after` (429) honoured; longer waits are cut to this.'),
    })
    .default({
      profile: 'summarizer',
      profiles: { summarizer: { provider: 'extractive', mode: 'chat' } },
      retries: 2,
      timeout_s: 120,
      concurrency: 2,
      fault_retries: 3,
      backoff_ms: 1000,
      max_wait_s: 60,
    }),
  embeddings: embeddingsSchema,
  prompts: z
    .string()
    .default('prompts/')
    .describe(
      'Folder of prompt overrides (`daily.yaml`, `weekly.yaml`, …), relative to this file; a file there replaces the built-in prompt.',
    ),
  secrets: z
    .strictObject({
      allow: z
        .array(z.string().min(1).refine(isAllowEntry, { message: 'not a valid `/regex/flags`' }))
        .default([])
        .describe(
          'False positives of the secret detector: each entry is the exact text found, or `/regex/flags` tested on it. A ' +
            'line holding `memvault:allow-secret` is allowed too.',
        ),
    })
    .default({ allow: [] })
    .describe(
      'Secret scanning: a memory holding a secret is reported and held back from summaries, the package, LLM requests and commits.',
    ),
  hooks: z
    .strictObject({
      budget: z
        .number()
        .int()
        .positive()
        .default(8000)
        .describe('Tokens `memvault hook session-start` prints at most: the critical items, then a query-less context.'),
      stream: z
        .string()
        .regex(STREAM_NAME, 'stream names are lowercase letters, digits, `.`, `_` and `-`')
        .optional()
        .describe('Stream the session hooks serve and ingest transcripts into (default: the first stream).'),
    })
    .default({ budget: 8000 })
    .describe('Coding-agent session hooks (`memvault hook`, written by `memvault integrate claude-code`).'),
  ingest: z
    .strictObject({
      transcripts: z
        .enum(['tracked', 'ignored'])
        .default('tracked')
        .describe(
          'Full transcripts of distilled coding-agent sessions, written to `<vault>/<stream>/transcripts/`: `tracked` ' +
            '(committed with the vault) or `ignored` (a `.gitignore` keeps them out of git; they stay on this machine).',
        ),
    })
    .default({ transcripts: 'tracked' })
    .describe('`memvault ingest`.'),
  git: z
    .strictObject({
      commit: z
        .boolean()
        .default(true)
        .describe("Commit each build's changes under the vault (one commit per build; `--no-commit` turns it off for one build)."),
      record: z
        .boolean()
        .default(false)
        .describe(
          'Experimental: keep and commit vault/.memvault-record/ (what each file parsed to, by git blob), so a fresh clone ' +
            'reads only what changed (docs/nightly.md). Off by default: crash recovery and `watch --commit-every` do not ' +
            'commit it yet, and it adds about 1 KB per file to the repository.',
        ),
      author: z
        .strictObject({ name: z.string().min(1), email: z.string().min(1) })
        .optional()
        .describe(
          "Author and committer of memvault's commits; default: GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL, else git's " +
            'user.name/user.email, else `memvault <memvault@users.noreply.local>`.',
        ),
    })
    .default({ commit: true, record: false }),
});

/** An allowlist entry: any string, but one written `/…/flags` must compile as a regular expression. */
function isAllowEntry(entry: string): boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(entry);
  if (!re) return true;
  try {
    new RegExp(re[1]!, re[2]);
    return true;
  } catch {
    return false;
  }
}

/** The validated, fully defaulted configuration. */
export type Config = z.output<typeof configSchema>;
export type UploadConfig = Config['upload'];
export type CalendarConfig = Config['calendar'];
export type WaterfallConfig = Config['waterfall'];
export type LlmProfile = z.output<typeof profileSchema>;

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
