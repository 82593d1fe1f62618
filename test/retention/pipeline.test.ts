import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { statusCommand } from '../../src/cli/commands/status.js';
import type { Summarizer, SummaryRequest } from '../../src/llm/types.js';
import { build } from '../../src/pipeline/build.js';
import type { Manifest } from '../../src/pipeline/package/index.js';
import { addDays, weekOf } from '../../src/time/periods.js';
import { writeMemoryFile } from '../../src/vault/memory-file.js';

/**
 * Must-keep items through the pyramid, on real builds: every item planted in a
 * memory is in the daily above it or listed as dropped there; if the daily
 * kept it, it is in the weekly or dropped there; and so on to the monthly.
 * What a summary dropped is also in the manifest when the package includes it.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(config: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-retention-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'memory.config.yaml'), `timezone: UTC\ngit: { commit: false }\n${config}`);
  mkdirSync(path.join(dir, 'vault/main/memories'), { recursive: true });
  return dir;
}

interface SummaryFile {
  meta: { dropped?: string[]; must_keep?: number; tier: string; period: string };
  body: string;
}

function readSummary(dir: string, relative: string): SummaryFile {
  const text = readFileSync(path.join(dir, 'vault/main', relative), 'utf8');
  const end = text.indexOf('\n---\n', 4);
  return { meta: parseYaml(text.slice(4, end)) as SummaryFile['meta'], body: text.slice(end + 5) };
}

const PEOPLE = ['Priya Raman', 'Marcus Olsen', 'Jonas Weber', 'Aiko Tanaka', 'Ravi Menon'];
const FILLER = [
  'The rest of the session went into reading logs and small cleanups that changed nothing visible.',
  'We talked through the approach on a call and agreed it was good enough for the moment.',
  'CI was slow again, which made iterating painful, but nothing was actually broken by it.',
  'Wrote notes so that picking this up again later does not need a full re-read of everything.',
];

/** Weekdays of March 2026 (the pyramid month 2026-03 runs from Monday 03-02 to Sunday 03-29). */
const DAYS = Array.from({ length: 28 }, (_, i) => addDays('2026-03-02', i)).filter(
  (day) => ![0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay()),
);

interface Planted {
  day: string;
  items: string[];
}

function plant(dir: string): Planted[] {
  return DAYS.map((day, i) => {
    const n = 100 + i;
    const items = [
      `SVC-${n}`,
      `#${n}`,
      `${10 + i} ms`,
      PEOPLE[i % PEOPLE.length]!,
      `keep the ${['billing', 'auth', 'search', 'export'][i % 4]} cache at ${i + 2} shards.`,
    ];
    const body = [
      `Profiled \`SVC-${n}\` with ${PEOPLE[i % PEOPLE.length]} and closed #${n}: p95 went down to ${10 + i} ms.`,
      ...FILLER,
      `Decision: keep the ${['billing', 'auth', 'search', 'export'][i % 4]} cache at ${i + 2} shards.`,
      ...(i === 6 ? ['Rolled back the release yesterday after the checksum mismatch #critical.'] : []),
    ].join('\n\n');
    writeFileSync(
      path.join(dir, 'vault/main/memories', `${day}-note.md`),
      writeMemoryFile({ date: `${day}T10:00:00Z`, title: `Note ${i}`, body }),
    );
    return { day, items };
  });
}

const contains = (body: string, item: string): boolean => body.toLowerCase().includes(item.toLowerCase());

describe('must-keep items from memories to the monthly', () => {
  let dir: string;
  let planted: Planted[];
  beforeAll(async () => {
    // Budgets tight enough that a day cannot keep everything, so both outcomes (kept, dropped) happen.
    dir = project(
      'calendar:\n  daily: { target_tokens: 110, max_bytes: 1400 }\n  weekly: { target_tokens: 220, max_bytes: 2400 }\n' +
        '  monthly: { target_tokens: 320, max_bytes: 3600 }\nupload: { max_tokens: 1500, max_bytes: 35840 }\n',
    );
    planted = plant(dir);
    await build({ root: dir, now: new Date('2026-04-08T12:00:00Z') });
  }, 120_000);

  it('finds each item in the daily, weekly and monthly above it, or listed as dropped in the first summary that lost it', () => {
    let keptToMonthly = 0;
    let dropped = 0;
    const monthly = readSummary(dir, 'monthly/2026-03.md');
    for (const { day, items } of planted) {
      const daily = readSummary(dir, `daily/${day}.md`);
      const weekly = readSummary(dir, `weekly/${weekOf(day)}.md`);
      for (const item of items) {
        let lostAt: string | undefined;
        for (const summary of [daily, weekly, monthly]) {
          if (contains(summary.body, item)) continue;
          expect(
            summary.meta.dropped ?? [],
            `${item} (from ${day}) is neither in ${summary.meta.tier} ${summary.meta.period} nor in its dropped list`,
          ).toContain(item);
          lostAt = summary.meta.tier;
          dropped++;
          break;
        }
        if (!lostAt) keptToMonthly++;
      }
    }
    expect(keptToMonthly).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
  });

  it('resolves "yesterday" against the memory and keeps the date all the way up', () => {
    const day = DAYS[6]!;
    const resolved = `Rolled back the release yesterday (${new Date(`${addDays(day, -1)}T00:00:00Z`).getUTCDate()} March 2026)`;
    for (const relative of [`daily/${day}.md`, `weekly/${weekOf(day)}.md`, 'monthly/2026-03.md']) {
      const summary = readSummary(dir, relative);
      expect(summary.body, relative).toContain(resolved);
    }
    // No summary says "yesterday" without the day it means.
    for (const tier of ['daily', 'weekly', 'monthly']) {
      for (const file of readdirSync(path.join(dir, 'vault/main', tier))) {
        const { body } = readSummary(dir, `${tier}/${file}`);
        for (const match of body.matchAll(/yesterday/gi))
          expect(body.slice(match.index! + 9, match.index! + 11), `${tier}/${file}`).toBe(' (');
      }
    }
  });

  it('lists the dropped items of every included summary in the manifest, as in its frontmatter', () => {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
    const summaries = manifest.items.filter((item) => item.type === 'summary' && item.status !== 'left-out');
    expect(summaries.length).toBeGreaterThan(0);
    let listed = 0;
    for (const item of summaries) {
      const relative = item.path.replace(/^main\//, '');
      const { meta } = readSummary(dir, relative);
      expect(item.dropped, item.path).toEqual(meta.dropped);
      listed += item.dropped?.length ?? 0;
    }
    expect(listed).toBeGreaterThan(0);
  });

  it('reports retention per tier in `memvault status`', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await statusCommand({ root: dir, json: true, now: '2026-04-08T12:00:00Z' });
      await statusCommand({ root: dir, now: '2026-04-08T12:00:00Z' });
    } finally {
      spy.mockRestore();
    }
    const status = JSON.parse(out[0]!) as {
      streams: { tiers: Record<string, { retention: { items: number; dropped: number; rate: number | null } }> }[];
    };
    for (const tier of ['daily', 'weekly', 'monthly']) {
      const { items, dropped, rate } = status.streams[0]!.tiers[tier]!.retention;
      expect(items, tier).toBeGreaterThan(0);
      expect(rate).toBeCloseTo((items - dropped) / items, 10);
    }
    expect(
      ['daily', 'weekly', 'monthly'].reduce((sum, tier) => sum + status.streams[0]!.tiers[tier]!.retention.dropped, 0),
    ).toBeGreaterThan(0);
    expect(out.slice(1).join('')).toMatch(/daily +\d+ +\d+ \/ 110 +\d+\.\d% \(\d+ \/ \d+\)/);
  });
});

describe('the retention check with a model that loses things', () => {
  /** A stand-in for an LLM: one call per answer, always the same lossy body. */
  function lossy(body: string): Summarizer & { requests: SummaryRequest[] } {
    const requests: SummaryRequest[] = [];
    return {
      provider: 'fake',
      model: 'lossy-1',
      requests,
      promptId: (tier) => `${tier}@lossy`,
      async summarize(request) {
        requests.push(structuredClone(request));
        return { body, usage: { calls: 1, inputTokens: 100, outputTokens: 20 } };
      },
    };
  }

  async function buildOneDay(summarizer: Summarizer): Promise<SummaryFile> {
    const dir = project('calendar:\n  daily: { target_tokens: 60, max_bytes: 1400 }\n');
    const body = ['Decision: ship `SVC-7` behind the flag for Priya Raman.', ...FILLER].join('\n\n');
    writeFileSync(path.join(dir, 'vault/main/memories/2026-03-03-note.md'), writeMemoryFile({ date: '2026-03-03T10:00:00Z', body }));
    await build({ root: dir, now: new Date('2026-03-04T12:00:00Z'), summarizer });
    return readSummary(dir, 'daily/2026-03-03.md');
  }

  it('names lost decisions and identifiers in the retries, then records what is still lost as dropped', async () => {
    const model = lossy('## Context\n\n- A quiet day.');
    const daily = await buildOneDay(model);
    expect(model.requests.map((r) => r.attempt)).toEqual([0, 1, 2]);
    expect(model.requests[0]!.missing).toEqual([]);
    expect(model.requests[1]!.missing).toEqual(['ship `SVC-7` behind the flag for Priya Raman.', 'SVC-7', 'Priya Raman']);
    expect(daily.meta.dropped).toEqual(['ship `SVC-7` behind the flag for Priya Raman.', 'SVC-7', 'Priya Raman']);
    expect(daily.meta.must_keep).toBe(3);
  });

  it('does not pay for another call when only a name was lost', async () => {
    const model = lossy('## Decisions\n\n- Decision: ship `SVC-7` behind the flag for Priya.');
    const daily = await buildOneDay(model);
    expect(model.requests).toHaveLength(1);
    expect(daily.meta.dropped).toEqual(['Priya Raman']);
  });
});
