import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Summarizer, SummaryRequest } from '../../../src/llm/types.js';
import { build } from '../../../src/pipeline/build.js';
import type { Manifest } from '../../../src/pipeline/package/index.js';
import { parseSummaryFile } from '../../../src/vault/summary-file.js';
import { writeMemoryFile } from '../../../src/vault/memory-file.js';

/**
 * Budgets: an answer over budget is retried tighter, then flagged for review
 * and not used by the package, which falls back to the finer tier. The
 * summarizer is the edge here, so a scripted one stands in for the LLM.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-budget-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'memory.config.yaml'), 'timezone: UTC\ncalendar:\n  daily: { target_tokens: 120, max_bytes: 2000 }\n');
  const folder = path.join(dir, 'vault', 'main', 'memories');
  mkdirSync(folder, { recursive: true });
  const long = Array.from({ length: 12 }, (_, i) => `Step ${i}: rewrote the invoice exporter and measured ${100 + i} ms per page.`).join(
    ' ',
  );
  for (const day of ['2026-03-02', '2026-03-03']) {
    writeFileSync(path.join(folder, `${day}-work.md`), writeMemoryFile({ date: `${day}T10:00:00Z`, title: `Work ${day}`, body: long }));
  }
  return dir;
}

function scripted(answer: (request: SummaryRequest) => string): Summarizer & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    provider: 'scripted',
    model: 'test-1',
    requests,
    promptId: (tier) => `${tier}@test`,
    summarize: async (request) => {
      requests.push(request);
      return { body: answer(request), usage: { calls: 1, inputTokens: 10, outputTokens: 10 } };
    },
  };
}

const dailyOf = (dir: string, day: string) =>
  parseSummaryFile(readFileSync(path.join(dir, `vault/main/daily/${day}.md`), 'utf8'), `main/daily/${day}.md`);

describe('budget retries', () => {
  it('retries tighter after an over-budget answer and keeps the answer that fits', async () => {
    const dir = project();
    const summarizer = scripted((request) =>
      request.attempt === 0
        ? `## Done\n\n${'- a long line of filler words that will not fit '.repeat(40)}`
        : '## Done\n\n- Rewrote the invoice exporter.',
    );
    await build({ root: dir, now: new Date('2026-03-04T08:00:00Z'), summarizer });
    const daily = dailyOf(dir, '2026-03-02');
    expect(daily.ok && daily.summary.meta.review).toBeUndefined();
    expect(daily.ok && daily.body).toContain('Rewrote the invoice exporter.');
    const attempts = summarizer.requests.filter((r) => r.tier === 'daily' && r.period === '2026-03-02').map((r) => r.attempt);
    expect(attempts).toEqual([0, 1]);
  });

  it('flags a summary still over budget after the retries, and the package uses the memories instead', async () => {
    const dir = project();
    const summarizer = scripted(() => `## Done\n\n${'- a long line of filler words that will not fit '.repeat(40)}`);
    await build({ root: dir, now: new Date('2026-03-04T08:00:00Z'), summarizer });
    const daily = dailyOf(dir, '2026-03-02');
    expect(daily.ok && daily.summary.meta.review).toEqual(['over-budget']);
    // Default llm.retries is 2: three attempts in all.
    expect(summarizer.requests.filter((r) => r.tier === 'daily' && r.period === '2026-03-02').map((r) => r.attempt)).toEqual([0, 1, 2]);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
    const items = manifest.items.filter((item) => item.start === '2026-03-02');
    expect(items.map((item) => [item.type, item.tier])).toEqual([['memory', 'raw']]);
    expect(items[0]!.reason).toMatch(/no usable summary/);
    expect(readFileSync(path.join(dir, 'vault/INDEX.md'), 'utf8')).toMatch(/over-budget.*main\/daily\/2026-03-02\.md/);
    // Flagged summaries are not retried on every build: same inputs, no new call.
    const before = summarizer.requests.length;
    await build({ root: dir, now: new Date('2026-03-04T08:00:00Z'), summarizer });
    expect(summarizer.requests.length).toBe(before);
  });
});
