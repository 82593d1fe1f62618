import { describe, expect, it } from 'vitest';
import { looksRandom, shannonEntropy } from '../../src/redact/patterns.js';
import { describeRedactions, redactSecrets } from '../../src/redact/redact.js';
import { ORDINARY_TEXT, SECRET_CASES } from './corpus.js';

describe('redactSecrets', () => {
  it('covers at least 20 kinds of secrets', () => {
    expect(new Set(SECRET_CASES.map((c) => c.kind)).size).toBeGreaterThanOrEqual(20);
  });

  it.each(SECRET_CASES.map((c) => [c.kind, c] as const))('replaces a %s secret by its marker', (kind, c) => {
    const result = redactSecrets(c.line);
    expect(result.text).not.toContain(c.secret);
    expect(result.text).toContain(`[REDACTED:${kind}]`);
    expect(result.redactions.find((r) => r.kind === kind)?.count).toBeGreaterThanOrEqual(1);
  });

  it('keeps what says what the secret was: the key name, the scheme and user of a URL, the quotes', () => {
    const db = SECRET_CASES.find((c) => c.kind === 'database-password')!;
    expect(redactSecrets(db.line).text).toBe('DATABASE_URL=postgres://ledgerly:[REDACTED:database-password]@db.internal:5432/ledgerly');
    const json = SECRET_CASES.find((c) => c.line.startsWith('{"user"'))!;
    const redacted = redactSecrets(json.line).text;
    expect(JSON.parse(redacted)).toEqual({ user: 'ana', token: '[REDACTED:api-key]', expires: 3600 });
    expect(redactSecrets('DB_PASSWORD=s3cr3t-Pa55!').text).toBe('DB_PASSWORD=[REDACTED:password]');
  });

  it('redacts every secret of a whole transcript, and a second pass changes nothing', () => {
    const transcript = SECRET_CASES.map((c, i) => `${i % 2 ? 'user' : 'assistant'}: ${c.line}`).join('\n');
    const once = redactSecrets(transcript);
    for (const c of SECRET_CASES) expect(once.text).not.toContain(c.secret);
    expect(once.count).toBeGreaterThanOrEqual(SECRET_CASES.length);
    expect(redactSecrets(once.text)).toEqual({ text: once.text, redactions: [], count: 0 });
  });

  it('cuts a private key block whose END line was cut off', () => {
    const block = SECRET_CASES.find((c) => c.kind === 'private-key')!.line;
    const cut = block.slice(0, block.indexOf('-----END'));
    expect(redactSecrets(`tool output:\n${cut}`).text).toBe('tool output:\n[REDACTED:private-key]');
  });

  it.each(ORDINARY_TEXT.map((text) => [text]))('leaves ordinary text alone: %s', (text) => {
    expect(redactSecrets(text)).toEqual({ text, redactions: [], count: 0 });
  });

  it('describes what it did', () => {
    expect(describeRedactions([{ kind: 'openai', count: 2 }, { kind: 'jwt', count: 1 }])).toBe('3 secrets redacted (jwt 1, openai 2)');
    expect(describeRedactions([])).toBe('');
  });
});

describe('randomness checks', () => {
  it('tell generated tokens from words, paths and identifiers', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(looksRandom('k8Jq2LmX9vRt4WzP')).toBe(true);
    expect(looksRandom('correcthorsebatterystaple')).toBe(false);
    expect(looksRandom('src/app/config/settings2.ts')).toBe(false);
    expect(looksRandom('process.env.API_KEY_2')).toBe(false);
    expect(looksRandom('<your-api-key-123456>')).toBe(false);
  });
});
