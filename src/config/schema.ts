import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { UserError } from '../util/errors.js';

/**
 * The schema of `memory.config.yaml`. Every key has a default, so an empty
 * file (or none) is a valid configuration. The JSON Schema editors use is
 * generated from this (`npm run schema` writes `memory.config.schema.json`).
 *
 * Written with zod/mini, not classic zod: every command loads the config, and
 * classic zod is ~750 KB of code to compile at each start (zod/mini tree-shakes
 * to a few dozen KB). Same checks, same JSON Schema and, with the English
 * locale that classic zod installs by itself, the same messages.
 */
z.config(en());

const int = () => z.int();
const described = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text));

const budget = (targetTokens: number, maxBytes: number) =>
  z._default(
    z.strictObject({
      target_tokens: described(int().check(z.positive()), 'Token budget of one summary of this tier.'),
      max_bytes: described(int().check(z.positive()), 'Byte budget of one summary of this tier.'),
    }),
    { target_tokens: targetTokens, max_bytes: maxBytes },
  );

export type TierBudget = { target_tokens: number; max_bytes: number };

const streamSchema = z.strictObject({
  calendar: described(z._default(z.boolean(), true), 'Roll memories up into daily/weekly/monthly/long-term summaries.'),
  waterfall: described(z._default(z.boolean(), false), 'Count-based waterfall compaction for agent streams.'),
  forget: described(
    z.optional(z.boolean()),
    '`false`: never forget a memory of this stream (default: unused memories leave the package after `forget_after_days`).',
  ),
});

const profileSchema = z.strictObject({
  provider: described(
    z.enum(['extractive', 'openai']),
    '`extractive` is embedded and offline; `openai` is any OpenAI-compatible endpoint.',
  ),
  base_url: described(
    z.optional(z.string()),
    'OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama); default api.openai.com. MEMVAULT_BASE_URL overrides.',
  ),
  model: described(z.optional(z.string()), 'Model name, e.g. `gpt-4.1-mini` or `llama3.1:8b`. MEMVAULT_MODEL overrides.'),
  api_key_env: described(
    z.optional(z.string()),
    'Name of the environment variable holding the API key (never the key itself). Default OPENAI_API_KEY for ' +
      'api.openai.com; other hosts get a key only when this names one.',
  ),
  mode: described(
    z._default(z.enum(['chat', 'completion']), 'chat'),
    '`chat` (system + user messages) or `completion` (base models: the plain `# Memories:` … `>` format with stop sequences).',
  ),
  temperature: described(z.optional(z.number().check(z.gte(0), z.lte(2))), 'Sampling temperature; default 0.2.'),
  max_tokens: described(z.optional(int().check(z.positive())), "Cap on each answer; default twice the tier's token budget."),
  stop: described(z.optional(z.array(z.string())), 'Stop sequences; completion mode defaults to the prompt file\'s (`["\\n#"]`).'),
  timeout_s: described(z.optional(z.number().check(z.positive())), 'Request timeout for this profile; default `llm.timeout_s`.'),
});

const embeddingsSchema = described(
  z.optional(
    z.strictObject({
      base_url: described(z.optional(z.string()), 'Endpoint, e.g. `http://localhost:11434/v1` (Ollama); default api.openai.com.'),
      model: described(z.string().check(z.minLength(1)), 'Embedding model, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small`.'),
      api_key_env: described(z.optional(z.string()), 'Name of the environment variable holding the API key (never the key itself).'),
      batch_size: described(z._default(int().check(z.gte(1), z.lte(2048)), 64), 'Texts sent in one /v1/embeddings request.'),
      concurrency: described(z._default(int().check(z.gte(1), z.lte(16)), 2), 'Requests in flight at once.'),
      dimensions: described(z.optional(int().check(z.positive())), 'Ask for vectors of this size (models that support it).'),
      timeout_s: described(z._default(z.number().check(z.positive()), 60), 'Timeout of one request in seconds.'),
    }),
  ),
  'Semantic search: vectors of every memory and summary, cached per content hash and fused with BM25. Offline without it.',
);

export type EmbeddingsConfig = NonNullable<z.output<typeof embeddingsSchema>>;

export const DEFAULT_TIMEZONE = 'UTC';

/** Stream names become folder names: lowercase letters, digits, `.`, `_` and `-`. */
export const STREAM_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Throws a `UserError` for a stream name that is not allowed (`--stream` flags). */
export function assertStreamName(name: string): void {
  if (!STREAM_NAME.test(name)) throw new UserError('cli/stream', `stream name \`${name}\` is not allowed`);
}

const streamNameKey = z.string().check(z.regex(STREAM_NAME, 'stream names are lowercase letters, digits, `.`, `_` and `-`'));

export const configSchema = z.strictObject({
  $schema: z.optional(z.string()),
  vault: described(z._default(z.string().check(z.minLength(1)), 'vault'), 'Folder of the vault, relative to this file.'),
  timezone: described(
    z
      ._default(z.string(), DEFAULT_TIMEZONE)
      .check(
        z.refine((zone) => isValidTimeZone(zone), { message: 'unknown time zone (use an IANA name such as `Europe/Berlin` or `UTC`)' }),
      ),
    'IANA time zone in which calendar days, weeks and months are cut.',
  ),
  tokenizer: z._default(z.enum(['o200k_base', 'cl100k_base']), 'o200k_base'),
  forget_after_days: described(
    z.optional(int().check(z.positive())),
    'Days after which a low or normal memory no retrieval used leaves the package detail and the context candidates (default 90).',
  ),
  streams: z._default(z.record(streamNameKey, streamSchema), { main: { calendar: true, waterfall: false } }),
  calendar: z._default(
    z.strictObject({
      daily: budget(300, 1400),
      weekly: budget(500, 2400),
      monthly: budget(800, 3600),
      longterm: budget(1200, 5200),
      retention: z._default(
        z.strictObject({
          memories_days: z._default(int().check(z.positive()), 30),
          daily_days: z._default(int().check(z.positive()), 90),
          weekly_weeks: z._default(int().check(z.positive()), 12),
        }),
        { memories_days: 30, daily_days: 90, weekly_weeks: 12 },
      ),
    }),
    {
      daily: { target_tokens: 300, max_bytes: 1400 },
      weekly: { target_tokens: 500, max_bytes: 2400 },
      monthly: { target_tokens: 800, max_bytes: 3600 },
      longterm: { target_tokens: 1200, max_bytes: 5200 },
      retention: { memories_days: 30, daily_days: 90, weekly_weeks: 12 },
    },
  ),
  waterfall: z._default(
    z.strictObject({
      immediate_window: described(z._default(int().check(z.positive()), 64), 'Newest memories of a waterfall stream kept verbatim.'),
      recent_window: described(
        z._default(int().check(z.positive()), 64),
        'Memories folded per compaction: the first at immediate + recent + 1 memories, then every recent_window.',
      ),
      recent: budget(800, 4000),
      longterm: budget(1200, 6000),
      context_max_tokens: described(
        z._default(int().check(z.positive()), 10000),
        'Token budget of CONTEXT.md; the oldest verbatim memories are shortened, then left out, to fit.',
      ),
    }),
    {
      immediate_window: 64,
      recent_window: 64,
      recent: { target_tokens: 800, max_bytes: 4000 },
      longterm: { target_tokens: 1200, max_bytes: 6000 },
      context_max_tokens: 10000,
    },
  ),
  upload: z._default(
    z.strictObject({
      max_tokens: z._default(int().check(z.positive()), 8750),
      max_bytes: z._default(int().check(z.positive()), 35840),
      full_detail_hours: z._default(int().check(z.gte(0)), 24),
      daily_days: z._default(int().check(z.gte(0)), 7),
      weekly_days: z._default(int().check(z.gte(0)), 30),
      monthly_window: z._default(int().check(z.gte(0)), 2),
    }),
    { max_tokens: 8750, max_bytes: 35840, full_detail_hours: 24, daily_days: 7, weekly_days: 30, monthly_window: 2 },
  ),
  llm: z._default(
    z.strictObject({
      profile: z._default(z.string(), 'summarizer'),
      profiles: z._default(z.record(z.string(), profileSchema), { summarizer: { provider: 'extractive', mode: 'chat' } }),
      retries: described(
        z._default(int().check(z.gte(0), z.lte(10)), 2),
        'Tighter retries after an over-budget answer, before the rollup is flagged for review.',
      ),
      timeout_s: described(
        z._default(z.number().check(z.positive()), 120),
        "Timeout of one LLM request in seconds (a profile's `timeout_s` wins); each further attempt waits 50 % longer.",
      ),
      concurrency: described(z._default(int().check(z.gte(1), z.lte(64)), 2), 'Independent rollups summarized at the same time.'),
      fault_retries: described(
        z._default(int().check(z.gte(0), z.lte(10)), 3),
        'Retries of one request after a timeout, a refused connection, 429, 5xx or an empty answer.',
      ),
      backoff_ms: described(
        z._default(int().check(z.gte(0)), 1000),
        'First pause before a fault retry; doubles each time (±25 % jitter), at most 30 s.',
      ),
      max_wait_s: described(
        z._default(z.number().check(z.gte(0)), 60),
        'Longest `retry-after` (429) honoured; longer waits are cut to this.',
      ),
    }),
    {
      profile: 'summarizer',
      profiles: { summarizer: { provider: 'extractive', mode: 'chat' } },
      retries: 2,
      timeout_s: 120,
      concurrency: 2,
      fault_retries: 3,
      backoff_ms: 1000,
      max_wait_s: 60,
    },
  ),
  embeddings: embeddingsSchema,
  prompts: described(
    z._default(z.string(), 'prompts/'),
    'Folder of prompt overrides (`daily.yaml`, `weekly.yaml`, …), relative to this file; a file there replaces the built-in prompt.',
  ),
  secrets: described(
    z._default(
      z.strictObject({
        allow: described(
          z._default(z.array(z.string().check(z.minLength(1), z.refine(isAllowEntry, { message: 'not a valid `/regex/flags`' }))), []),
          'False positives of the secret detector: each entry is the exact text found, or `/regex/flags` tested on it. A ' +
            'line holding `memvault:allow-secret` is allowed too.',
        ),
      }),
      { allow: [] },
    ),
    'Secret scanning: a memory holding a secret is reported and held back from summaries, the package, LLM requests and commits.',
  ),
  hooks: described(
    z._default(
      z.strictObject({
        budget: described(
          z._default(int().check(z.positive()), 8000),
          'Tokens `memvault hook session-start` prints at most: the critical items, then a query-less context.',
        ),
        max_chars: described(
          z._default(int().check(z.gte(1000)), 9000),
          'Characters `memvault hook session-start` prints at most, whatever the token budget: Claude Code keeps at most ' +
            '10,000 characters of what a hook adds to the context and shows the model only a preview of the rest.',
        ),
        stream: described(
          z.optional(z.string().check(z.regex(STREAM_NAME, 'stream names are lowercase letters, digits, `.`, `_` and `-`'))),
          'Stream the session hooks serve and ingest transcripts into (default: the first stream).',
        ),
      }),
      { budget: 8000, max_chars: 9000 },
    ),
    'Coding-agent session hooks (`memvault hook`, written by `memvault integrate claude-code`).',
  ),
  ingest: described(
    z._default(
      z.strictObject({
        transcripts: described(
          z._default(z.enum(['tracked', 'ignored']), 'tracked'),
          'Full transcripts of distilled coding-agent sessions, written to `<vault>/<stream>/transcripts/`: `tracked` ' +
            '(committed with the vault) or `ignored` (a `.gitignore` keeps them out of git; they stay on this machine).',
        ),
      }),
      { transcripts: 'tracked' },
    ),
    '`memvault ingest`.',
  ),
  verify: described(
    z.optional(
      z.strictObject({
        repo: described(
          z.optional(z.string().check(z.minLength(1))),
          "Git repository whose HEAD the memories' citations are checked against, relative to this file (default: the " +
            'repository holding the vault). For a vault kept apart from the code it remembers.',
        ),
      }),
    ),
    'Citation verification (docs/citations.md).',
  ),
  git: z._default(
    z.strictObject({
      commit: described(
        z._default(z.boolean(), true),
        "Commit each build's changes under the vault (one commit per build; `--no-commit` turns it off for one build).",
      ),
      record: described(
        z._default(z.boolean(), true),
        'Keep and commit vault/.memvault-record/ (what each file parsed to, by git blob), so a fresh clone (a nightly job) ' +
          'reads only what changed (docs/nightly.md). It adds about 1 KB per file to the repository; `false` turns it off ' +
          '(a clone then reads every file).',
      ),
      author: described(
        z.optional(z.strictObject({ name: z.string().check(z.minLength(1)), email: z.string().check(z.minLength(1)) })),
        "Author and committer of memvault's commits; default: GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL, else git's " +
          'user.name/user.email, else `memvault <memvault@users.noreply.local>`.',
      ),
    }),
    { commit: true, record: true },
  ),
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

let knownZones: Set<string> | undefined;

/**
 * Whether `zone` is a time zone this Node knows. The list of canonical IANA
 * names costs ~2 ms; building the first `Intl.DateTimeFormat` loads ICU's
 * calendar data (~50 ms on every start), so it only decides the names the list
 * lacks (`UTC`'s aliases, `US/Pacific`, misspellings): the same answers, faster.
 */
function isValidTimeZone(zone: string): boolean {
  if (zone === 'UTC') return true;
  knownZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
