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
  snapshotTree,
  splitFrontmatter,
  type CliResult,
} from '../helpers/project.js';

/**
 * Fixture vaults (remark-frontmatter style): each `test/fixtures/e2e-<case>/`
 * holds `vault/`, `memory.config.yaml`, `now.txt` (the build's `--now`) and
 * what the build must leave:
 *
 * - `expected/`: every file the build writes, new or changed (vault-relative paths); a file of `vault/` the build
 *   must keep as it is (a hand-edited summary) is not in it, and would be if the build changed it;
 * - `removed.txt`: the files of `vault/` the build moves away (archive), one a line; absent when none;
 * - `cli.txt`: the build's exit code, stdout and stderr (its seconds masked).
 *
 * The case is copied to a temp folder and built once with the CLI. A missing
 * `expected/`, or `UPDATE=1`, writes all three instead: review the diff before
 * committing.
 *
 * The cases: `basic` (two weeks), `month` (monthly and long-term), `waterfall`
 * (an agent stream past two compactions), `edited` (hand-edited dailies kept,
 * one stale, the weekly built from the edits), `archive` (memories, dailies and
 * weeklies past short retention windows), `invalid` (broken memories reported
 * and skipped), `critical-over-budget` (pinned memories over the package
 * budget: exit 1, the summaries written, no package).
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
  /** Vault-relative paths of the files the build wrote: new ones and changed ones. */
  generated: string[];
  /** Vault-relative paths of the case's files the build moved or deleted. */
  removed: string[];
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
      const inputs = snapshotTree(path.join(root, 'vault'));
      const result = await runCli(['build', '--now', now], { cwd: root });
      const outputs = snapshotTree(path.join(root, 'vault'));
      // Generated = everything under vault/ that the case did not bring, or brought with other content.
      const generated = [...outputs].filter(([file, state]) => inputs.get(file)?.sha256 !== state.sha256).map(([file]) => file);
      const removed = [...inputs.keys()].filter((file) => !outputs.has(file));
      return { root, result, generated, removed };
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
    expect(cases).toEqual(
      expect.arrayContaining([
        'e2e-archive',
        'e2e-basic',
        'e2e-critical-over-budget',
        'e2e-edited',
        'e2e-invalid',
        'e2e-month',
        'e2e-waterfall',
      ]),
    );
  });

  it.each(cases)('%s: writes exactly the files in expected/, removes removed.txt, prints cli.txt', async (name) => {
    const { root, result, generated, removed } = await built(name);
    const caseDir = path.join(FIXTURES, name);
    const expectedDir = path.join(caseDir, 'expected');
    if (UPDATE || !existsSync(expectedDir)) {
      writeExpected(caseDir, root, { result, generated, removed });
      console.log(`${name}: wrote ${generated.length} expected files`);
      return;
    }
    expect(cliText(result), `${name}: the build's exit code and output (cli.txt)`).toBe(readCase(caseDir, 'cli.txt'));
    expect(removed, `${name}: files the build removed (removed.txt)`).toEqual(lines(readCase(caseDir, 'removed.txt')));
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
    // A stream without a package (waterfall only, or a build that refused it) has no coverage to check against.
    if (!generated.includes('main/UPLOAD_PACKAGE.manifest.json')) return;
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

/** The build's exit code and output as `cli.txt` holds them; the seconds it took are masked. */
function cliText(result: CliResult): string {
  const stdout = result.stdout.replace(/, \d+\.\d+ s\b/g, ', <seconds> s');
  return `exit ${result.code}\n--- stdout\n${stdout}--- stderr\n${result.stderr}`;
}

/** A file of the case folder, '' when it is absent. */
function readCase(caseDir: string, file: string): string {
  const target = path.join(caseDir, file);
  return existsSync(target) ? readFileSync(target, 'utf8') : '';
}

const lines = (text: string): string[] => text.split('\n').filter(Boolean);

/** `UPDATE=1`: the case's expected/, removed.txt and cli.txt from this build. */
function writeExpected(caseDir: string, root: string, { result, generated, removed }: Omit<Built, 'root'>): void {
  const expectedDir = path.join(caseDir, 'expected');
  rmSync(expectedDir, { recursive: true, force: true });
  for (const file of generated) {
    const target = path.join(expectedDir, ...file.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(path.join(root, 'vault', ...file.split('/'))));
  }
  writeFileSync(path.join(caseDir, 'cli.txt'), cliText(result));
  const removedFile = path.join(caseDir, 'removed.txt');
  if (removed.length > 0) writeFileSync(removedFile, `${removed.join('\n')}\n`);
  else rmSync(removedFile, { force: true });
}
