import { describe, expect, it } from 'vitest';
import { ALLOW_MARKER, findSecrets } from '../../src/redact/detect.js';
import { cleanOutput } from '../../src/llm/output.js';
import { describeRedactions, redactSecrets } from '../../src/redact/redact.js';
import { SECRET_RULES } from '../../src/redact/rules.js';
import { isWordIdentifier, looksRandom, shannonEntropy } from '../../src/redact/shape.js';
import { ORDINARY_TEXT, SECRET_CASES, SECRET_SEED } from './corpus.js';

describe(`redactSecrets (MEMVAULT_SECRET_SEED=${SECRET_SEED})`, () => {
  it('covers at least 45 kinds of credentials', () => {
    expect(new Set(SECRET_CASES.map((c) => c.name)).size).toBeGreaterThanOrEqual(45);
  });

  it.each(SECRET_CASES.map((c) => [c.name, c] as const))('replaces a %s by its marker', (_name, c) => {
    const result = redactSecrets(c.line);
    expect(result.text).not.toContain(c.secret);
    expect(result.text).toContain(`[REDACTED:${c.kind}]`);
    expect(result.redactions.find((r) => r.kind === c.kind)?.count).toBeGreaterThanOrEqual(1);
  });

  it('keeps what says what the secret was: the key name, the scheme and user of a URL, the quotes', () => {
    const db = SECRET_CASES.find((c) => c.name === 'PostgreSQL connection string')!;
    expect(redactSecrets(db.line).text).toBe('DATABASE_URL=postgres://ledgerly:[REDACTED:database-password]@db.internal:5432/ledgerly');
    const json = SECRET_CASES.find((c) => c.line.startsWith('{"user"'))!;
    expect(JSON.parse(redactSecrets(json.line).text)).toEqual({ user: 'ana', token: '[REDACTED:api-key]', expires: 3600 });
    expect(redactSecrets('DB_PASSWORD=s3cr3t-Pa55!').text).toBe('DB_PASSWORD=[REDACTED:password]');
    const aws = SECRET_CASES.find((c) => c.name === 'AWS secret access key')!;
    expect(redactSecrets(aws.line).text).toBe('aws_secret_access_key = [REDACTED:aws-secret-key]');
  });

  it('redacts every secret of a whole transcript, and a second pass changes nothing', () => {
    const transcript = SECRET_CASES.map((c, i) => `${i % 2 ? 'user' : 'assistant'}: ${c.line}`).join('\n');
    const once = redactSecrets(transcript);
    for (const c of SECRET_CASES) expect(once.text).not.toContain(c.secret);
    expect(once.count).toBeGreaterThanOrEqual(SECRET_CASES.length);
    expect(redactSecrets(once.text)).toMatchObject({ text: once.text, redactions: [], count: 0 });
  });

  it.each(SECRET_CASES.map((c) => [c.name, c] as const))('is idempotent on a redacted %s', (_name, c) => {
    const once = redactSecrets(c.line).text;
    expect(redactSecrets(once).text).toBe(once);
  });

  it('cuts a private key block whose END line was cut off', () => {
    const block = SECRET_CASES.find((c) => c.name === 'Private key (RSA PEM)')!.line;
    const cut = block.slice(0, block.indexOf('-----END'));
    expect(redactSecrets(`tool output:\n${cut}`).text).toBe('tool output:\n[REDACTED:private-key]');
  });

  it.each(ORDINARY_TEXT.map((text) => [text]))('leaves ordinary text alone: %s', (text) => {
    expect(redactSecrets(text)).toMatchObject({ text, redactions: [], count: 0 });
  });

  it('describes what it did', () => {
    expect(
      describeRedactions([
        { kind: 'openai', count: 2 },
        { kind: 'jwt', count: 1 },
      ]),
    ).toBe('3 secrets redacted (jwt 1, openai 2)');
    expect(describeRedactions([])).toBe('');
  });
});

describe('findSecrets', () => {
  const github = SECRET_CASES.find((c) => c.name === 'GitHub classic PAT')!;
  const wifi = SECRET_CASES.find((c) => c.name === 'Password stated in prose')!;

  it('gives each secret its line and column', () => {
    const [found] = findSecrets(`# Notes\n\nline two\n  ${github.line}`);
    expect(found).toMatchObject({ kind: 'github', line: 4, column: 3 + github.line.indexOf(github.secret), secret: github.secret });
  });

  it('lets a line marked memvault:allow-secret through, and only that line', () => {
    const text = `${github.line} <!-- ${ALLOW_MARKER} -->\n${wifi.line}`;
    expect(findSecrets(text).map((f) => f.line)).toEqual([2]);
    expect(redactSecrets(`${ALLOW_MARKER}: ${wifi.line}`).count).toBe(0);
  });

  it('lets allowlisted values through: an exact string, or a /regex/', () => {
    expect(findSecrets(github.line, { allow: [github.secret] })).toEqual([]);
    expect(findSecrets(github.line, { allow: ['/^gh[a-z]_/'] })).toEqual([]);
    expect(findSecrets(github.line, { allow: [github.secret.slice(0, -1), '/^nothing$/'] })).toHaveLength(1);
  });
});

describe('LLM replies', () => {
  it('are redacted before they become a summary body, and say so', () => {
    const anthropic = SECRET_CASES.find((c) => c.kind === 'anthropic')!;
    const cleaned = cleanOutput(`Sure! Here is the summary:\n\n- The agent ran with ${anthropic.secret} set.\n- Tests pass.`, 'chat');
    expect(cleaned.body).toBe('- The agent ran with [REDACTED:anthropic] set.\n- Tests pass.');
    expect(cleaned.notes).toContain('secrets redacted (anthropic)');
    expect(cleanOutput('- Tests pass.', 'chat')).toEqual({ body: '- Tests pass.', notes: [] });
  });
});

describe('shape checks', () => {
  it('tell generated tokens from words, paths and identifiers', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(looksRandom('k8Jq2LmX9vRt4WzP')).toBe(true);
    expect(looksRandom('correcthorsebatterystaple')).toBe(false);
    expect(looksRandom('src/app/config/settings2.ts')).toBe(false);
    expect(looksRandom('process.env.API_KEY_2')).toBe(false);
    expect(looksRandom('<your-api-key-123456>')).toBe(false);
    expect(isWordIdentifier('oauth2-client-credentials-flow')).toBe(true);
    expect(isWordIdentifier('user_profile_v2_cache')).toBe(true);
    expect(isWordIdentifier('k8Jq2LmX-9vRt4WzP')).toBe(false);
  });
});

describe('cost', () => {
  // A hostile memory must not stall the build: every rule is linear in the text (bounded key names and command lines).
  it.each([
    ['one long word of key names', 'password_'.repeat(60_000)],
    ['a line of credentials in URLs', 'https://a:b@c '.repeat(40_000)],
    ['a line of password: keys', 'password: '.repeat(50_000)],
    ['a line of mysql words', 'mysql '.repeat(80_000)],
    ['key blocks that never end', '-----BEGIN PRIVATE KEY-----\n'.repeat(20_000)],
  ])('scans %s (~500 KB) in linear time', (_name, text) => {
    const started = performance.now();
    findSecrets(text);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('rule prefilters', () => {
  it('pass every text their rule matches in (a prefilter only skips texts the rule cannot match)', () => {
    const texts = [
      ...SECRET_CASES.map((secretCase) => secretCase.line),
      ...ORDINARY_TEXT,
      'DB_PASSWORD = "x9!kQ2#vLm"',
      'pwd: hunter2hunter2',
      'SIGNING-KEY => abcdefghijklmnop',
      'X-Api-Key: AbCdEf0123456789xyz',
      "session_id='Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5'",
      'Auth = Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5',
    ];
    let checked = 0;
    for (const rule of SECRET_RULES.filter((r) => r.prefilter)) {
      for (const text of texts) {
        if ([...text.matchAll(rule.regex)].length === 0) continue;
        checked++;
        expect(rule.prefilter!.test(text), `${rule.kind}: ${text}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});
