import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { resolveEmbeddingSettings } from '../../src/search/embeddings/client.js';

const KEY = 'sk-test-abcdefghijklmnop1234';

/** Messages about the embeddings profile name its own config keys, not the summarizer's (`llm.profiles.…`). */
describe('resolveEmbeddingSettings: messages name `embeddings.*`', () => {
  const settingsOf = (embeddings: Record<string, unknown>, env: Record<string, string> = {}) => {
    const config = configSchema.parse({ embeddings: { model: 'nomic-embed-text', ...embeddings } });
    return resolveEmbeddingSettings(config, config.embeddings!, env);
  };

  it('a key pasted into api_key_env is refused as `embeddings.api_key_env`, without repeating the key', () => {
    let message = '';
    try {
      settingsOf({ api_key_env: KEY });
    } catch (error) {
      message = `${(error as Error).message} ${(error as { hint?: string }).hint}`;
    }
    expect(message).toContain('`embeddings.api_key_env` must name an environment variable');
    expect(message).not.toContain('llm.profiles');
    expect(message).not.toContain(KEY);
  });

  it('a variable name is read from the environment', () => {
    expect(settingsOf({ base_url: 'http://localhost:8000/v1', api_key_env: 'EMBED_KEY' }, { EMBED_KEY: KEY }).apiKey).toBe(KEY);
    expect(() => settingsOf({ base_url: 'http://localhost:8000/v1', api_key_env: 'EMBED_KEY' })).toThrowError(/`EMBED_KEY` is not set/);
  });
});
