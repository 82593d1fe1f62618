import { describe, expect, it } from 'vitest';
import { backoffDelay, displayUrl, parseRetryAfter, redactSecrets } from '../../src/llm/faults.js';

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '1.5' })).toBe(1500);
    const now = Date.parse('2026-02-10T12:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Tue, 10 Feb 2026 12:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles from the base, with ±25 % jitter, capped', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, 1000, 30_000, () => 0.5))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(0, 1000, 30_000, () => 0)).toBe(750);
    expect(backoffDelay(0, 1000, 30_000, () => 0.999)).toBeLessThanOrEqual(1250);
    expect(backoffDelay(10, 1000, 30_000, () => 0.5)).toBe(30_000);
    expect(backoffDelay(3, 0)).toBe(0);
  });
});

describe('redactSecrets', () => {
  it('removes the configured key, OpenAI-shaped keys (masked ones too) and bearer tokens', () => {
    expect(redactSecrets('Incorrect API key provided: my-own-secret-value.', ['my-own-secret-value'])).toBe(
      'Incorrect API key provided: [redacted].',
    );
    expect(redactSecrets('key sk-proj-AbC123dEf456 is bad')).toBe('key sk-[redacted] is bad');
    expect(redactSecrets('Incorrect API key provided: sk-abc12***********xyz9.')).toBe('Incorrect API key provided: sk-[redacted]');
    expect(redactSecrets('Authorization: Bearer abcdef123456')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('nothing to hide here', ['short'])).toBe('nothing to hide here');
  });
});

it('displayUrl masks credentials in a base URL', () => {
  expect(displayUrl('https://user:pass@proxy.example.com/v1/')).toBe('https://***:***@proxy.example.com/v1');
  expect(displayUrl('http://localhost:8000/v1?api_key=abc')).toBe('http://localhost:8000/v1?api_key=***');
  expect(displayUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
});
