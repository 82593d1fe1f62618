import { appendFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endedLongAgo, sessionStart } from '../../src/hooks/session-start.js';
import { recordUsage } from '../../src/usage/log.js';
import { createProject, memory, removeProject } from '../helpers/project.js';
import { setStateRow, stateRow } from '../helpers/state-store.js';

/**
 * The session-start hook's reused answer (in-process, real files): reused when
 * nothing changed, and not after an edit in place, another process's usage, a
 * new day or an error leaving the last 24 hours.
 */

const NOW = new Date('2026-03-20T12:00:00Z');
let root: string;
const input = { hook_event_name: 'SessionStart', source: 'startup' } as const;
const start = (now = NOW) => sessionStart({ root, input, now });
/** Marks the kept answer, so a reply that carries the mark was read from it. */
const mark = (): void => {
  const cached = stateRow(root, 'session-start', 'last') as { answer: { result: { text: string } } };
  cached.answer.result.text += 'MARK\n';
  setStateRow(root, 'session-start', 'last', JSON.stringify(cached));
};

beforeAll(() => {
  root = createProject(
    {
      'vault/main/memories/2026-01-05-deploy-rule.md': memory({
        date: '2026-01-05T09:00:00Z',
        title: 'Deploy rule',
        importance: 'pinned',
        body: 'Production deploys need two approvals.',
      }),
      // Older than forgetting's 90 days and never used: forgotten, so not in a context until a use brings it back.
      'vault/main/memories/2025-10-01-lint-rule.md': memory({
        date: '2025-10-01T09:00:00Z',
        title: 'Lint rule',
        kind: 'convention',
        body: 'Every module passes biome before review.',
      }),
      'vault/main/memories/2025-10-02-old-note.md': memory({
        date: '2025-10-02T09:00:00Z',
        title: 'Old note',
        body: 'The staging cluster was renamed.',
      }),
      'vault/main/memories/2025-10-03-old-crash.md': memory({
        date: '2025-10-03T09:00:00Z',
        title: 'Old crash',
        kind: 'error',
        body: 'The importer crashed on an empty file.',
      }),
      'vault/main/memories/2026-03-20-crash.md': memory({
        date: '2026-03-20T08:00:00Z',
        title: 'Worker crash',
        kind: 'error',
        body: 'The export worker crashed on a null invoice id.',
      }),
    },
    'timezone: UTC\n',
  );
});
afterAll(() => removeProject(root));

describe('session-start: the reused answer', () => {
  it('is reused while nothing changed, and assembled again after an edit, usage by another process, a new day or an old error', async () => {
    const first = await start();
    expect(first.text).toContain('two approvals');
    expect(first.text).toContain('null invoice id');
    mark();
    expect((await start()).text).toBe(`${first.text}MARK\n`);

    // An edit in place (same path): assembled again, with the new text.
    appendFileSync(path.join(root, 'vault/main/memories/2026-01-05-deploy-rule.md'), 'Hotfixes too.\n');
    const edited = await start();
    expect(edited.text).toContain('Hotfixes too.');
    expect(edited.text).not.toContain('MARK');

    // Usage recorded by another process (forgetting reads it): of memories the context cannot show either way (a path
    // that is no memory, a forgotten note, an error months old, a memory of another stream named like the forgotten
    // convention), reused…
    mark();
    recordUsage(root, [{ stream: 'main', path: 'x.md' }], 'cli:search', NOW);
    recordUsage(root, [{ stream: 'main', path: 'main/memories/2025-10-02-old-note.md' }], 'mcp:search', NOW);
    recordUsage(root, [{ stream: 'main', path: 'main/memories/2025-10-03-old-crash.md' }], 'mcp:search', NOW);
    recordUsage(root, [{ stream: 'other', path: 'other/memories/2025-10-01-lint-rule.md' }], 'mcp:search', NOW);
    expect((await start()).text).toBe(`${edited.text}MARK\n`);
    expect(edited.text).not.toContain('biome');
    // …and of a forgotten convention, which the use brings back: assembled again, with it.
    recordUsage(root, [{ stream: 'main', path: 'main/memories/2025-10-01-lint-rule.md' }], 'mcp:search', NOW);
    const used = await start();
    expect(used.text).not.toContain('MARK');
    expect(used.text).toContain('Every module passes biome');

    // Within the error's 24 hours: reused; past them: the error is no longer recent.
    mark();
    expect((await start(new Date('2026-03-20T20:00:00Z'))).text).toContain('MARK');
    const nextDay = await start(new Date('2026-03-21T09:00:00Z'));
    expect(nextDay.text).not.toContain('MARK');
    expect(nextDay.text).not.toContain('null invoice id');
    expect(nextDay.text).toContain('2026-03-21');
    // A clock set back before the kept answer's time is a miss too.
    mark();
    expect((await start(new Date('2026-03-20T10:00:00Z'))).text).not.toContain('MARK');
  });
});

describe('session-start: an answer kept through usage', () => {
  it('is the answer assembled anew after a use of any memory (forgotten conventions, facts, old errors and notes)', async () => {
    const old = (day: string, title: string, body: string, kind = 'note'): string =>
      memory({ date: `${day}T09:00:00Z`, title, kind, body });
    const files: Record<string, string> = {
      'vault/main/memories/2025-09-01-style.md': old('2025-09-01', 'Style', 'Imports are sorted by biome.', 'convention'),
      'vault/main/memories/2025-09-02-window.md': old('2025-09-02', 'Window', 'Fact: deploy_window = friday'),
      'vault/main/memories/2025-09-03-window-again.md': old('2025-09-03', 'Window again', 'Fact: deploy_window = tuesday'),
      'vault/main/memories/2025-09-04-import-crash.md': old('2025-09-04', 'Import crash', 'The importer crashed.', 'error'),
      'vault/main/memories/2025-09-05-fixed.md': old('2025-09-05', 'Import fixed', 'Fixed the importer crash.'),
      'vault/main/memories/2025-09-06-choice.md': old('2025-09-06', 'Queue choice', 'We chose the queue.', 'decision'),
      'vault/main/memories/2026-03-19-worker-crash.md': old('2026-03-19', 'Worker crash', 'The export worker crashed.', 'error'),
    };
    const project = createProject(files, 'timezone: UTC\n');
    try {
      const at = new Date('2026-03-20T08:00:00Z');
      const hook = () => sessionStart({ root: project, input, now: at });
      for (const file of Object.keys(files)) {
        await hook();
        recordUsage(project, [{ stream: 'main', path: file.slice('vault/'.length) }], 'mcp:search', at);
        const kept = await hook();
        setStateRow(project, 'session-start', 'last', 'null');
        expect(kept.text, file).toBe((await hook()).text);
      }
      expect((await hook()).text).toContain('biome');
    } finally {
      removeProject(project);
    }
  });
});

describe('session-start: answers after a compaction', () => {
  it('are kept apart from the answer at a start: a compaction in between leaves the next start its kept answer', async () => {
    const later = new Date('2026-03-22T12:00:00Z');
    const first = await start(later);
    mark();
    const compacted = await sessionStart({ root, input: { ...input, source: 'compact' }, now: later });
    expect(compacted.text).toContain('again after compaction');
    expect((await start(later)).text).toBe(`${first.text}MARK\n`);
  });
});

describe('session-start: the kept token counts', () => {
  it('measure an answer assembled again (the same text), and only under their own tokenizer', async () => {
    const later = new Date('2026-03-23T12:00:00Z');
    const first = await start(later);
    const counts = stateRow(root, 'session-start-tokens', 'last') as { tokenizer: string; counts: Record<string, number> };
    expect(counts.tokenizer).toBe('o200k_base');
    const again = async (kept: typeof counts): Promise<string> => {
      setStateRow(root, 'session-start-tokens', 'last', JSON.stringify(kept));
      setStateRow(root, 'session-start', 'last', 'null');
      return (await start(later)).text;
    };
    expect(await again(counts)).toBe(first.text);
    // Counts far too high: taken as they are (so they are used), the budget holds nothing; under another tokenizer, not taken.
    const huge = { ...counts, counts: Object.fromEntries(Object.keys(counts.counts).map((k) => [k, 1_000_000])) };
    expect(await again(huge)).not.toContain('two approvals');
    expect(await again({ ...huge, tokenizer: 'cl100k_base' })).toBe(first.text);
    // The kept body lines label the files by their bytes' hash: taken as they are (so they are used).
    const lines = counts as typeof counts & { lines: Record<string, number | null> };
    expect(Object.keys(lines.lines).length).toBeGreaterThan(0);
    const shifted = { ...lines, lines: Object.fromEntries(Object.keys(lines.lines).map((sha) => [sha, 999])) };
    expect(await again(shifted)).toContain('.md:999`');
    expect(await again(counts)).toBe(first.text);
  });
});

describe('session-start: which error memories can still be recent', () => {
  it('skips by text only memories that left the last 24 hours in every zone and offset (property, against luxon)', () => {
    const zones = ['UTC', 'Pacific/Kiritimati', 'Etc/GMT+12', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata'];
    const day = 24 * 3_600_000;
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.integer({ min: -6 * day, max: 2 * day }),
        fc.constantFrom(...zones),
        fc.constantFrom('offset', 'utc', 'bare-date', 'local-time'),
        (at, shift, zone, form) => {
          const instant = DateTime.fromMillis(at + shift, { zone });
          const date =
            form === 'offset'
              ? instant.toISO()!
              : form === 'utc'
                ? instant.toUTC().toISO()!
                : form === 'bare-date'
                  ? instant.toISODate()!
                  : instant.toISO({ includeOffset: false })!;
          // What validUntil computes for a memory it does not skip.
          const millis = DateTime.fromISO(date, { zone }).toMillis();
          if (endedLongAgo(date, at)) expect(millis + day).toBeLessThan(at);
        },
      ),
      { numRuns: 2000 },
    );
    // And it does skip: a week-old error is decided by text alone.
    expect(endedLongAgo('2026-03-13T08:00:00+14:00', Date.parse('2026-03-20T08:00:00Z'))).toBe(true);
    expect(endedLongAgo('2026-03-19T08:00:00-12:00', Date.parse('2026-03-20T08:00:00Z'))).toBe(false);
  });
});
