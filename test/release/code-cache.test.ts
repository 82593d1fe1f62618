import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODE_CACHE_WRAPPER } from '../../src/util/lazy.js';

/**
 * The V8 code caches the bundle writes beside remark, gray-matter and the tokenizer's code (scripts/bundle.mjs
 * `writeCodeCaches`, read by `requireLazy` in src/util/lazy.ts). V8 silently compiles afresh when it rejects a cache,
 * so a cache made from another text than the one `requireLazy` compiles would cost nothing visible but its time: this
 * checks that V8 takes each one, in a Node process of its own (V8's flags are part of what a cache must match).
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'dist', 'bin');
const scripts = async () =>
  (await import(new URL('../../scripts/bundle.mjs', import.meta.url).href)) as { VENDORED: Record<string, string>; CODE_CACHED: string[] };

describe('the bundle’s code caches', () => {
  it('are written beside the vendored files an edit loads, and V8 accepts them for the source requireLazy compiles', async () => {
    const { VENDORED, CODE_CACHED } = await scripts();
    expect(CODE_CACHED).toEqual(expect.arrayContaining(['unified', 'remark-parse', 'gray-matter']));
    const files = CODE_CACHED.map((id) => path.join(BIN, VENDORED[id]!));
    for (const file of files) expect(existsSync(`${file}.v8cache`), `${file}.v8cache`).toBe(true);
    const check = [
      "const { readFileSync } = require('node:fs');",
      "const { Script } = require('node:vm');",
      'const [head, tail, ...files] = JSON.parse(process.argv[1]);',
      'for (const file of files) {',
      "  const script = new Script(head + readFileSync(file, 'utf8') + tail, { filename: file, cachedData: readFileSync(file + '.v8cache') });",
      "  console.log(file, script.cachedDataRejected ? 'rejected' : 'accepted');",
      '}',
    ].join('\n');
    const child = spawnSync(process.execPath, ['-e', check, JSON.stringify([...CODE_CACHE_WRAPPER, ...files])], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim().split('\n')).toEqual(files.map((file) => `${file} accepted`));
  });
});
