import { z } from 'zod';

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
});

const profileSchema = z.strictObject({
  provider: z.enum(['extractive', 'openai']).describe('`extractive` is embedded and offline; `openai` is any OpenAI-compatible endpoint.'),
  base_url: z.string().optional(),
  model: z.string().optional(),
  api_key_env: z.string().optional().describe('Name of the environment variable holding the API key (never the key itself).'),
  mode: z.enum(['chat', 'completion']).default('chat'),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  timeout_s: z.number().positive().optional(),
});

export const DEFAULT_TIMEZONE = 'UTC';

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  vault: z.string().min(1).default('vault').describe('Folder of the vault, relative to this file.'),
  timezone: z
    .string()
    .default(DEFAULT_TIMEZONE)
    .refine((zone) => isValidTimeZone(zone), { message: 'unknown time zone (use an IANA name such as `Europe/Berlin` or `UTC`)' })
    .describe('IANA time zone in which calendar days, weeks and months are cut.'),
  tokenizer: z.enum(['o200k_base', 'cl100k_base']).default('o200k_base'),
  streams: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'stream names are lowercase letters, digits, `.`, `_` and `-`'), streamSchema)
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
      immediate_window: z.number().int().positive().default(64),
      recent_window: z.number().int().positive().default(64),
    })
    .default({ immediate_window: 64, recent_window: 64 }),
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
      retries: z.number().int().min(0).max(10).default(2),
      timeout_s: z.number().positive().default(120),
      concurrency: z.number().int().min(1).max(64).default(2),
    })
    .default({ profile: 'summarizer', profiles: { summarizer: { provider: 'extractive', mode: 'chat' } }, retries: 2, timeout_s: 120, concurrency: 2 }),
  prompts: z.string().default('prompts/'),
  git: z
    .strictObject({
      commit: z.boolean().default(true),
      author: z
        .strictObject({ name: z.string().min(1), email: z.string().min(1) })
        .default({ name: 'memvault', email: 'memvault@users.noreply.local' }),
    })
    .default({ commit: true, author: { name: 'memvault', email: 'memvault@users.noreply.local' } }),
});

/** The validated, fully defaulted configuration. */
export type Config = z.output<typeof configSchema>;
export type UploadConfig = Config['upload'];
export type CalendarConfig = Config['calendar'];
export type LlmProfile = z.output<typeof profileSchema>;

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
