import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createProject,
  listFiles,
  readJsonFile,
  readText,
  removeProject,
  runCli,
  splitFrontmatter,
  type CliResult,
} from '../helpers/project.js';

/**
 * Fixture vaults (remark-frontmatter style): each `test/fixtures/e2e-<case>/`
 * holds `vault/`, `memory.config.yaml`, `now.txt` (the build's `--now`) and
 * `expected/`, a copy of every file the build generates (vault-relative
 * paths). The case is copied to a temp folder, built once with the CLI, and
 * every generated file is compared with `expected/`. A missing `expected/`,
 * or `UPDATE=1`, writes it instead: review the diff before committing.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const UPDATE = process.env.UPDATE === '1';
const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name.startsWith('e2e-'))
  .map((entry) => entry.name)
  .sort();

interface Built {
  root: string;
  result: CliResult;
  /** Vault-relative paths of the files the build generated. */
  generated: string[];
}

const builds = new Map<string, Promise<Built>>();

/** Builds a case once (in a temp copy) however many tests look at it. */
function built(name: string): Promise<Built> {
  let pending = builds.get(name);
  if (!pending) {
    pending = (async () => {
      const dir = path.join(FIXTURES, name);
      const now = readFileSync(path.join(dir, 'now.txt'), 'utf8').trim();
      const root = createProject({}, readFileSync(path.join(dir, 'memory.config.yaml'), 'utf8'));
      cpSync(path.join(dir, 'vault'), path.join(root, 'vault'), { recursive: true });
      const inputs = new Set(listFiles(root, 'vault'));
      const result = await runCli(['build', '--now', now], { cwd: root });
      // Generated = everything under vault/ that the case did not bring.
      const generated = listFiles(root, 'vault')
        .filter((file) => !inputs.has(file))
        .map((file) => file.slice('vault/'.length));
      return { root, result, generated };
    })();
    builds.set(name, pending);
  }
  return pending;
}

describe('fixture vaults', () => {
  afterAll(async () => {
    for (const pending of builds.values()) removeProject((await pending).root);
  });

  it('has cases', () => {
    expect(cases).toEqual(expect.arrayContaining(['e2e-basic', 'e2e-month']));
  });

  it.each(cases)('%s: generates exactly the files in expected/', async (name) => {
    const { root, result, generated } = await built(name);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const expectedDir = path.join(FIXTURES, name, 'expected');
    if (UPDATE || !existsSync(expectedDir)) {
      rmSync(expectedDir, { recursive: true, force: true });
      for (const file of generated) {
        const target = path.join(expectedDir, ...file.split('/'));
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, readFileSync(path.join(root, 'vault', ...file.split('/'))));
      }
      console.log(`${name}: wrote ${generated.length} expected files`);
      return;
    }
    expect(generated, 'generated files (an unexpected or a missing one)').toEqual(listFiles(expectedDir));
    for (const file of generated) {
      const actual = readText(root, `vault/${file}`);
      expect(actual, `${name}: ${file}`).toBe(readFileSync(path.join(expectedDir, ...file.split('/')), 'utf8'));
    }
  });

  it.each(cases)('%s: generated frontmatter is plain YAML, without anchors or aliases', async (name) => {
    const { root, generated } = await built(name);
    const withFrontmatter = generated.filter((f) => f.endsWith('.md') && readText(root, `vault/${f}`).startsWith('---\n'));
    expect(withFrontmatter.length).toBeGreaterThan(0);
    for (const file of withFrontmatter) {
      const { front } = splitFrontmatter(readText(root, `vault/${file}`));
      expect(front, file).not.toMatch(/^[\w-]+: [&*]\w+/m);
    }
  });

  it.each(cases)('%s: summaries never date an event before the first memory or after today', async (name) => {
    const { root, generated } = await built(name);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    const { first_day: first, last_day: today } = manifest.coverage as { first_day: string; last_day: string };
    for (const file of generated.filter((f) => /\/(daily|weekly|monthly)\/|\/longterm\.md$/.test(f))) {
      const { body } = splitFrontmatter(readText(root, `vault/${file}`));
      for (const [, day] of body.matchAll(/\*\*\w{3} (\d{4}-\d{2}-\d{2})\*\*/g)) {
        expect(day! >= first && day! <= today, `${file} dates an item ${day}, outside ${first}..${today}`).toBe(true);
      }
    }
  });
});
