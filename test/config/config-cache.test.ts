import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { eng } from 'stopword/src/stopwords_eng.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveNow } from '../../src/cli/context.js';
import { nowOf } from '../../src/cli/now.js';
import { loadValidConfigCached } from '../../src/config/cached.js';
import { ConfigInvalidError, loadValidConfig } from '../../src/config/load.js';
import { vaultLoadOptions } from '../../src/pipeline/workers/build-pool.js';
import { cacheStamp, saveParseCache } from '../../src/read/cache-save.js';
import { acquireBuildLock } from '../../src/util/lock.js';
import { loadVault } from '../../src/load/load.js';
import { createProject, memory, removeProject } from '../helpers/project.js';
import { setStateRow, stateRow } from '../helpers/state-store.js';

/**
 * What the read commands keep so they start fast (in-process, real files): the validated config's cache, the parse
 * cache a read command saves, and the pieces loaded in a cheaper way (the stop list, `--now`).
 */

const REPO_CONFIG = readFileSync(new URL('../../memory.config.yaml', import.meta.url), 'utf8');
let root: string;

beforeAll(() => {
  root = createProject(
    {
      'vault/main/memories/2026-03-02-deploy.md': memory({ date: '2026-03-02T09:00:00Z', title: 'Deploy rule', body: 'Two approvals.' }),
      'vault/main/memories/2026-03-03-cache.md': memory({ date: '2026-03-03T09:00:00Z', title: 'Cache', body: 'Redis for sessions.' }),
    },
    REPO_CONFIG,
  );
});
afterAll(() => removeProject(root));

describe('the config cache of read commands', () => {
  it('gives what loadValidConfig gives, from the file once the key matches, and validates again when bytes or code change', async () => {
    const fresh = await loadValidConfig(root);
    // Without a code hash (code not bundled) nothing is kept.
    expect(await loadValidConfigCached(root, undefined)).toEqual(fresh);
    expect(stateRow(root, 'config', 'last')).toBeUndefined();

    const first = await loadValidConfigCached(root, 'code-1');
    expect(first).toStrictEqual(fresh);
    const kept = stateRow(root, 'config', 'last') as { key: string; config: { timezone: string } };
    expect(kept.config).toStrictEqual(JSON.parse(JSON.stringify(fresh)));
    // A planted value comes back: the second read is the cache's.
    setStateRow(root, 'config', 'last', JSON.stringify({ key: kept.key, config: { ...kept.config, timezone: 'Planted/Zone' } }));
    expect((await loadValidConfigCached(root, 'code-1')).timezone).toBe('Planted/Zone');
    // Other code: validated again (and kept under the new key).
    expect(await loadValidConfigCached(root, 'code-2')).toStrictEqual(fresh);
    // Other bytes: validated again.
    appendFileSync(path.join(root, 'memory.config.yaml'), 'forget_after_days: 30\n');
    const edited = await loadValidConfigCached(root, 'code-2');
    expect(edited.forget_after_days).toBe(30);
    expect(edited).toStrictEqual(await loadValidConfig(root));
  });

  it('fails on an invalid config with the errors loadValidConfig gives, every time, and keeps nothing', async () => {
    const bad = createProject({}, 'timezone: Mars/Olympus\nstreams: [oops\n');
    try {
      const expected = await loadValidConfig(bad).catch((error: unknown) => error);
      expect(expected).toBeInstanceOf(ConfigInvalidError);
      for (let i = 0; i < 2; i++) {
        const got = await loadValidConfigCached(bad, 'code-1').catch((error: unknown) => error);
        expect(got).toBeInstanceOf(ConfigInvalidError);
        expect((got as ConfigInvalidError).message).toBe((expected as ConfigInvalidError).message);
        expect((got as ConfigInvalidError).diagnostics).toEqual((expected as ConfigInvalidError).diagnostics);
      }
      expect(stateRow(bad, 'config', 'last')).toBeUndefined();
    } finally {
      removeProject(bad);
    }
  });
});

describe('the parse cache a read command saves', () => {
  it('is saved when the load changed it, not while a build holds the lock, nor when another process saved meanwhile', async () => {
    const config = await loadValidConfig(root);
    const options = vaultLoadOptions(root, config);
    const load = async () => {
      const before = cacheStamp(options.stateDir);
      return { before, loaded: await loadVault(options) };
    };
    // The first load parses everything: saved.
    const first = await load();
    expect(first.loaded.cache.modified).toBe(true);
    expect(await saveParseCache(root, options.stateDir, first.loaded, first.before)).toBe(true);
    expect(cacheStamp(options.stateDir)).not.toBe(first.before);
    // The next load finds every file cached: nothing to save.
    expect((await load()).loaded.cache.modified).toBe(false);

    // An edit: the load parses it again, but a build holds the lock, so the cache on disk stays as it was.
    appendFileSync(path.join(root, 'vault/main/memories/2026-03-03-cache.md'), 'With a one-hour TTL.\n');
    const edited = await load();
    expect(edited.loaded.cache.modified).toBe(true);
    const release = await acquireBuildLock(path.join(root, '.memvault'), 'test build');
    try {
      expect(await saveParseCache(root, options.stateDir, edited.loaded, edited.before)).toBe(false);
    } finally {
      await release();
    }
    expect(cacheStamp(options.stateDir)).toBe(edited.before);

    // Two loads of the edit; the first one saves, so the second finds the cache changed since it read it.
    const a = await load();
    const b = await load();
    expect(await saveParseCache(root, options.stateDir, a.loaded, a.before)).toBe(true);
    const afterA = cacheStamp(options.stateDir);
    expect(await saveParseCache(root, options.stateDir, b.loaded, b.before)).toBe(false);
    expect(cacheStamp(options.stateDir)).toBe(afterA);
    // What was saved serves the next load: the edit is not parsed again, and its text is the new one.
    const next = await load();
    expect(next.loaded.cache.modified).toBe(false);
    const cached = next.loaded.state.streams.get('main')!.memories.find((m) => m.path.endsWith('2026-03-03-cache.md'))!;
    expect(next.loaded.cache.readContent(cached.path, cached.sha256)?.body).toContain('one-hour TTL');
  });
});

describe('what a search loads in a cheaper way', () => {
  it("takes the stop list from stopword's English file: the same words as its entry point", () => {
    expect(eng).toEqual((createRequire(import.meta.url)('stopword') as { eng: string[] }).eng);
  });

  it('reads --now and MEMVAULT_NOW as resolveNow does, and the clock without them', async () => {
    const env = { MEMVAULT_NOW: '2026-02-13T10:00:00Z' };
    expect(await nowOf(undefined, env)).toEqual(resolveNow(undefined, env));
    expect(await nowOf('2026-03-01T00:00:00Z', env)).toEqual(resolveNow('2026-03-01T00:00:00Z', env));
    const before = Date.now();
    const now = (await nowOf(undefined, { MEMVAULT_NOW: '' })).getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    const bad = (flag: string) => nowOf(flag, {}).catch((error: Error) => `${error.name}: ${error.message}`);
    const expected = (() => {
      try {
        resolveNow('2026-02-30T00:00:00Z', {});
        return 'no error';
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    })();
    expect(expected).toContain('2026-02-30');
    expect(await bad('2026-02-30T00:00:00Z')).toBe(expected);
  });
});
