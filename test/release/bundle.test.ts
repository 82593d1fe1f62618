import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The bundle is self-contained (scripts/bundle.mjs): what it leaves to
 * node_modules is only what the release tarball lists as dependencies, and
 * every package the code loads on first use (`requireLazy`) is bundled beside
 * it. The nightly e2e test installs the release tarball and runs it.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'dist', 'bin');
const scripts = async () =>
  (await import(new URL('../../scripts/bundle.mjs', import.meta.url).href)) as { VENDORED: Record<string, string>; EXTERNAL: string[] };

describe('the bundle', () => {
  it('leaves to node_modules only what the release depends on (better-sqlite3, tinypool)', async () => {
    const { EXTERNAL } = await scripts();
    expect(EXTERNAL).toEqual(['better-sqlite3', 'tinypool']);
    const meta = JSON.parse(readFileSync(path.join(BIN, 'bundle-meta.json'), 'utf8')) as { external: string[]; bundled: string[] };
    for (const name of meta.external) expect(EXTERNAL, name).toContain(name);
    // It does hold the pure-JavaScript dependencies (a few of the many).
    for (const name of ['zod', 'yaml', 'p-limit', '@modelcontextprotocol/sdk', 'gray-matter', 'chrono-node'])
      expect(
        meta.bundled.some((folder) => folder.endsWith(`node_modules/${name}`)),
        name,
      ).toBe(true);
  });

  it('bundles every package the code loads on first use, each in its own file under dist/bin/vendor', async () => {
    const { VENDORED } = await scripts();
    const asked = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts'))
          for (const match of readFileSync(file, 'utf8').matchAll(/requireLazy\('([^']+)'\)/g)) asked.add(match[1]!);
      }
    };
    walk(path.join(REPO, 'src'));
    // The tokenizer's tables, asked for by name (src/util/tokens.ts).
    for (const tokenizer of ['o200k_base', 'cl100k_base']) asked.add(`gpt-tokenizer/cjs/bpeRanks/${tokenizer}`);
    expect(asked.size).toBeGreaterThanOrEqual(7);
    for (const id of asked) {
      expect(VENDORED, id).toHaveProperty([id]);
      expect(existsSync(path.join(BIN, VENDORED[id]!)), VENDORED[id]).toBe(true);
    }
  });
});
