import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { DerivedMemo } from '../../src/store/derived-memo.js';
import { ParseCache } from '../../src/store/cache.js';
import { createProject, memory, readText, removeProject } from '../helpers/project.js';
import { setStateRow, stateRows } from '../helpers/state-store.js';

/**
 * The whole-vault input hashes kept between builds (derived-memo.ts): used
 * only while the parse cache is in the state they were worked out in, for the
 * same config and program; any edit, a config change or a `now` that moves
 * the bands works them out again.
 */

const NOW = '2026-03-06T12:00:00Z';
const files = {
  'vault/main/memories/2026-03-02-scheduler.md': memory({
    date: '2026-03-02T09:00:00Z',
    title: 'Scheduler',
    body: 'The nightly scheduler failed because the retry queue filled up; the limit is now 5000.',
  }),
  'vault/main/memories/2026-03-03-vacuum.md': memory({
    date: '2026-03-03T09:00:00Z',
    title: 'Vacuum',
    body: 'Postgres vacuum stalled on the events table after the bulk import.',
  }),
  'vault/main/memories/2026-03-05-billing.md': memory({
    date: '2026-03-05T11:00:00Z',
    title: 'Billing',
    body: 'Billing moved to Stripe webhooks; the old cron is gone.',
  }),
};

type Report = Awaited<ReturnType<typeof build>>;
const buildAt = (root: string, now = NOW): Promise<Report> => build({ root, now: new Date(now), commit: false });
const packageChanged = (report: Report) => report.streams[0]?.package?.changed;
/** The memo in the state store: its `state` row (key '') and its values. */
const storedMemo = (root: string) => {
  const { '': state, ...values } = stateRows(root, 'derived') as Record<string, string>;
  return { state: state ?? '', values };
};
const storedValues = (root: string) => storedMemo(root).values;

describe('DerivedMemo', () => {
  let dir: string;
  beforeAll(() => {
    dir = createProject({});
  });
  afterAll(() => removeProject(dir));

  it('keeps a value only for the cache state, config and key it was worked out for', () => {
    const cacheDir = path.join(dir, '.memvault');
    const entry = { size: 1, mtimeMs: 1, sha256: 'a', result: { type: 'invalid' as const, diagnostics: [] } };
    const fresh = ParseCache.open(cacheDir, 'UTC');
    expect(fresh.state).toBeUndefined(); // never saved: nothing to key on
    fresh.set('main/x.md', entry);
    fresh.save();

    let calls = 0;
    const compute = () => `v${++calls}`;
    const first = DerivedMemo.open(cacheDir, ParseCache.open(cacheDir, 'UTC'), { a: 1 });
    expect(first.value('package', { k: 1 }, compute)).toBe('v1');
    expect(first.value('package', { k: 1 }, compute)).toBe('v1');
    expect(first.value('package', { k: 2 }, compute)).toBe('v2');
    first.save();

    const again = DerivedMemo.open(cacheDir, ParseCache.open(cacheDir, 'UTC'), { a: 1 });
    expect(again.value('package', { k: 1 }, compute)).toBe('v1');
    expect(again.value('index', { k: 1 }, compute)).toBe('v3');
    // Another config: nothing kept.
    expect(DerivedMemo.open(cacheDir, ParseCache.open(cacheDir, 'UTC'), { a: 2 }).value('package', { k: 1 }, compute)).toBe('v4');

    // A cache this process changed: worked out every time, and never saved.
    const cache = ParseCache.open(cacheDir, 'UTC');
    const changing = DerivedMemo.open(cacheDir, cache, { a: 1 });
    cache.set('main/y.md', entry);
    expect(changing.value('package', { k: 1 }, compute)).toBe('v5');
    expect(changing.value('package', { k: 1 }, compute)).toBe('v6');
    // Saved: a new state, in which the old values do not count.
    cache.save();
    expect(DerivedMemo.open(cacheDir, ParseCache.open(cacheDir, 'UTC'), { a: 1 }).value('package', { k: 1 }, compute)).toBe('v7');
  });
});

describe('builds with a memo', () => {
  // One project, build after build: a copy would get new mtimes, re-stat every file and so never use the memo.
  let root: string;
  let second: Report;
  beforeAll(async () => {
    root = createProject(files);
    await buildAt(root);
    second = await buildAt(root);
  }, 60_000);
  afterAll(() => removeProject(root));

  it('a no-change build records the hashes; the next one finds them and writes nothing', async () => {
    expect(second.written).toEqual([]);
    const keys = Object.keys(storedMemo(root).values);
    expect(keys.some((key) => key.startsWith('package:'))).toBe(true);
    expect(keys.some((key) => key.startsWith('index:'))).toBe(true);
    expect(keys.filter((key) => key.startsWith('period:["main","daily"'))).toHaveLength(3);
    const before = storedMemo(root);
    const third = await buildAt(root);
    expect(third.written).toEqual([]);
    expect(packageChanged(third)).toBe(false);
    expect(storedMemo(root)).toEqual(before);
  }, 60_000);

  it('an edit, a config change and a later `now` are each seen with the memo in place', async () => {
    appendFileSync(path.join(root, 'vault/main/memories/2026-03-05-billing.md'), '\nThe refund flow now retries twice.\n');
    const afterEdit = await buildAt(root);
    expect(afterEdit.written).toContain('main/UPLOAD_PACKAGE.md');
    expect(afterEdit.written).toContain('main/daily/2026-03-05.md');
    expect(readText(root, 'vault/main/UPLOAD_PACKAGE.md')).toContain('refund flow');
    await buildAt(root); // records the memo of the new state

    const state = storedMemo(root).state;
    writeFileSync(path.join(root, 'memory.config.yaml'), 'timezone: UTC\nupload:\n  max_tokens: 7000\n');
    const afterConfig = await buildAt(root);
    expect(packageChanged(afterConfig)).toBe(true);
    expect(JSON.parse(readText(root, 'vault/main/UPLOAD_PACKAGE.manifest.json')).budget.max_tokens).toBe(7000);
    // Same cache state, another config: recorded apart.
    expect(storedMemo(root).state).not.toBe(state);
    expect(storedMemo(root).state.split(' ')[0]).toBe(state.split(' ')[0]);

    // Three weeks on: the days leave the raw band, a week and a month are complete.
    const afterWeeks = await buildAt(root, '2026-03-27T12:00:00Z');
    expect(packageChanged(afterWeeks)).toBe(true);
    expect(afterWeeks.written.some((file) => file.startsWith('main/weekly/'))).toBe(true);
  }, 120_000);

  it('is read: a wrong hash in it makes a build see that daily, or the package, as stale', async () => {
    const now = '2026-03-27T12:00:00Z';
    await buildAt(root, now); // no change since the last build: records this state's values
    const stored = storedMemo(root);
    const daily = Object.keys(stored.values).filter((key) => key.startsWith('period:["main","daily","2026-03-03"'));
    expect(daily).toHaveLength(1);
    for (const key of [...daily, ...Object.keys(stored.values).filter((k) => k.startsWith('package:'))])
      setStateRow(root, 'derived', key, JSON.stringify('0'.repeat(64)));
    const tampered = await buildAt(root, now);
    expect(packageChanged(tampered)).toBe(true);
    expect(tampered.written).toContain('main/daily/2026-03-03.md');
    expect(tampered.written).not.toContain('main/daily/2026-03-02.md');
  }, 60_000);
});

describe('two streams with the same memory ids', () => {
  let root: string;
  afterAll(() => removeProject(root));

  it('keep their own hashes: a build after the memo is recorded writes nothing', async () => {
    const agent = Object.fromEntries(
      Object.entries(files).map(([file, text]) => [file.replace('vault/main/', 'vault/agent/'), text.replace('.\n', ' (agent copy).\n')]),
    );
    root = createProject({ ...files, ...agent });
    await buildAt(root);
    await buildAt(root); // records
    expect(Object.keys(storedValues(root)).filter((key) => key.startsWith('period:'))).toHaveLength(2 * 3);
    const again = await buildAt(root);
    expect(again.written).toEqual([]);
  }, 60_000);
});
