import { describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../src/config/schema.js';
import { PLACEHOLDER_KEY, resolveOpenAiSettings } from '../../src/llm/openai-settings.js';

/** resolveOpenAiSettings: the OpenAI settings of a profile from the config and the environment. Requests and faults: openai.test.ts. */

const KEY = 'sk-test-4f9a2c7e1b8d6a3f5e0c9b7a';

function config(llm: Record<string, unknown> = {}): Config {
  return configSchema.parse({ llm: { profile: 'test', profiles: { test: { provider: 'openai', model: 'fake-model' } }, ...llm } });
}

describe('resolveOpenAiSettings', () => {
  const profile = (over: Record<string, unknown> = {}) =>
    config({ profiles: { test: { provider: 'openai', model: 'fake-model', ...over } } });
  const resolve = (over: Record<string, unknown>, env: Record<string, string>, requireKey = true) => {
    const c = profile(over);
    return resolveOpenAiSettings(c, 'test', c.llm.profiles.test!, env, { requireKey });
  };

  it('api.openai.com by default, with OPENAI_API_KEY', () => {
    const s = resolve({}, { OPENAI_API_KEY: KEY });
    expect(s).toMatchObject({
      baseURL: 'https://api.openai.com/v1',
      official: true,
      apiKey: KEY,
      keySource: 'OPENAI_API_KEY',
      timeoutMs: 120_000,
      temperature: 0.2,
    });
  });

  it('a missing key for api.openai.com is a user error with a hint, except in a dry run', () => {
    expect(() => resolve({}, {})).toThrowError(/no API key for profile `test`: the environment variable `OPENAI_API_KEY` is not set/);
    expect(resolve({}, {}, false).apiKey).toBe(PLACEHOLDER_KEY);
  });

  it('local servers need no key, and never get OPENAI_API_KEY unless api_key_env says so', () => {
    expect(resolve({ base_url: 'http://localhost:11434/v1' }, { OPENAI_API_KEY: KEY })).toMatchObject({
      apiKey: PLACEHOLDER_KEY,
      keySource: 'none',
      official: false,
    });
    expect(resolve({ base_url: 'http://localhost:8000/v1', api_key_env: 'VLLM_KEY' }, { VLLM_KEY: 'local-secret-123' }).apiKey).toBe(
      'local-secret-123',
    );
    expect(() => resolve({ base_url: 'http://localhost:8000/v1', api_key_env: 'VLLM_KEY' }, {})).toThrowError(/`VLLM_KEY` is not set/);
  });

  it('MEMVAULT_BASE_URL and MEMVAULT_MODEL override the profile', () => {
    expect(
      resolve({ base_url: 'http://localhost:11434/v1' }, { MEMVAULT_BASE_URL: 'http://127.0.0.1:9/v1/', MEMVAULT_MODEL: 'qwen2.5:7b' }),
    ).toMatchObject({ baseURL: 'http://127.0.0.1:9/v1', model: 'qwen2.5:7b' });
  });

  it('a key pasted into api_key_env is refused without being repeated', () => {
    let message = '';
    try {
      resolve({ api_key_env: KEY }, {});
    } catch (error) {
      message = `${(error as Error).message} ${(error as { hint?: string }).hint}`;
    }
    expect(message).toContain('must name an environment variable');
    expect(message).not.toContain(KEY);
  });

  it('no model and a bad URL are user errors', () => {
    const c = configSchema.parse({ llm: { profiles: { test: { provider: 'openai' } } } });
    expect(() => resolveOpenAiSettings(c, 'test', c.llm.profiles.test!, { OPENAI_API_KEY: KEY })).toThrowError(/names no model/);
    expect(() => resolve({ base_url: 'localhost:11434' }, {})).toThrowError(/not an http\(s\) URL/);
  });

  it('profile timeout_s wins over llm.timeout_s; fault settings come from llm', () => {
    const c = configSchema.parse({
      llm: {
        timeout_s: 30,
        fault_retries: 5,
        backoff_ms: 10,
        max_wait_s: 2,
        profiles: { test: { provider: 'openai', model: 'm', base_url: 'http://localhost:1/v1', timeout_s: 7.5 } },
      },
    });
    expect(resolveOpenAiSettings(c, 'test', c.llm.profiles.test!, {})).toMatchObject({
      timeoutMs: 7500,
      faultRetries: 5,
      backoffMs: 10,
      maxWaitMs: 2000,
    });
  });
});
