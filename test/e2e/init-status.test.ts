import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createProject, memory, readJsonFile, readText, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';

/** `memvault init`, `memvault status` and the help texts, end to end. */

describe('memvault init', () => {
  const roots: string[] = [];
  const emptyDir = (): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
    roots.push(dir);
    return dir;
  };
  afterAll(() => roots.forEach(removeProject));

  it('creates a valid config, its JSON Schema and an empty vault, ignores .memvault/, and refuses to run twice', async () => {
    const root = emptyDir();
    const first = await runCli(['init'], { cwd: root });
    expect(first.code, first.stderr).toBe(0);

    const config = readText(root, 'memory.config.yaml');
    expect(config.split('\n')[0]).toBe('# yaml-language-server: $schema=./memory.config.schema.json');
    expect(parseYaml(config)).toMatchObject({ vault: 'vault', streams: { main: { calendar: true } } });
    const schema = readJsonFile(root, 'memory.config.schema.json');
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['vault', 'timezone', 'calendar', 'upload', 'llm']));
    expect(statSync(path.join(root, 'vault/main/memories')).isDirectory()).toBe(true);
    expect(readText(root, '.gitignore').split('\n')).toContain('.memvault/');
    expect(first.stdout).toContain('vault/main/memories/');

    // The config it wrote is valid: status and build accept it.
    const status = await runCli(['status'], { cwd: root });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toBe('');

    const second = await runCli(['init'], { cwd: root });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^memvault: memory\.config\.yaml already exists/);
    expect(second.stderr).toContain('hint:');
    expect(readText(root, 'memory.config.yaml')).toBe(config);
  });

  it('appends to an existing .gitignore once, and takes a stream name', async () => {
    const root = emptyDir();
    writeFiles(root, { '.gitignore': 'node_modules' });
    const result = await runCli(['init', '--stream', 'agent-alpha'], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    const lines = readText(root, '.gitignore').split('\n');
    expect(lines[0]).toBe('node_modules');
    expect(lines.filter((line) => line === '.memvault/')).toHaveLength(1);
    expect(existsSync(path.join(root, 'vault/agent-alpha/memories'))).toBe(true);
    expect(parseYaml(readText(root, 'memory.config.yaml')).streams).toHaveProperty('agent-alpha');

    const bad = await runCli(['init', '--stream', 'Agent Alpha'], { cwd: emptyDir() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Agent Alpha');
  });
});

describe('memvault status', () => {
  const M = 'vault/main/memories';
  let root: string;
  afterAll(() => removeProject(root));

  it('reports per-tier counts and the package size after a build', async () => {
    const files: Record<string, string> = {};
    // Mon 2026-02-09 … Wed 2026-02-18: W07 complete, W08 not.
    for (const day of ['2026-02-09', '2026-02-10', '2026-02-11', '2026-02-13', '2026-02-16', '2026-02-17', '2026-02-18']) {
      files[`${M}/${day}.md`] = memory({ date: `${day}T10:00:00Z`, title: `Notes of ${day}`, body: `Reviewed the deploy checklist on ${day}.` });
    }
    files[`${M}/rule.md`] = memory({ date: '2026-02-10T12:00:00Z', title: 'Rule', importance: 'pinned', body: 'Rotate keys every 90 days.' });
    root = createProject(files, 'timezone: UTC\ncalendar:\n  daily: { target_tokens: 400, max_bytes: 4096 }\n');

    const before = await runCliJson(['status', '--json'], { cwd: root });
    expect(before.json.streams[0].package).toBeNull();
    expect(before.json.streams[0].tiers.daily.count).toBe(0);

    await runCliJson(['build', '--now', '2026-02-18T15:00:00Z', '--json'], { cwd: root });
    const { json } = await runCliJson(['status', '--json'], { cwd: root });
    const stream = json.streams[0];
    expect(stream).toMatchObject({ name: 'main', memories: 8, pinned: 1, archived: 0 });
    expect(stream.coverage).toEqual({ first_day: '2026-02-09', last_day: '2026-02-18', days_with_memories: 7 });
    expect(Object.fromEntries(Object.entries(stream.tiers).map(([tier, t]: [string, any]) => [tier, t.count]))).toEqual({ daily: 6, weekly: 1, monthly: 0, longterm: 0 });
    expect(stream.tiers.daily.budget_tokens).toBe(400);
    expect(stream.tiers.daily.tokens_max).toBeGreaterThan(0);
    expect(stream.tiers.daily.tokens_max).toBeLessThanOrEqual(stream.tiers.daily.budget_tokens);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(stream.package).toMatchObject({ path: expect.stringMatching(/^(vault\/)?main\/UPLOAD_PACKAGE\.md$/), tokens: manifest.tokens, bytes: manifest.bytes, max_tokens: 8750, max_bytes: 35840 });
    expect(stream.package.bytes).toBe(readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.md')).length);
    expect(json.invalid).toEqual([]);

    const text = await runCli(['status'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^main: 8 memories/m);
    expect(text.stdout).toMatch(/^ {2}daily +6 /m);
    expect(text.stdout).toMatch(new RegExp(`package: (vault/)?main/UPLOAD_PACKAGE\\.md ${manifest.tokens.toLocaleString('en-US')}/8,750 tokens`));
  });
});

describe('help', () => {
  let root: string;
  afterAll(() => removeProject(root));

  it.each(['build', 'status', 'init'])('`memvault %s --help` exits 0 and shows examples', async (command) => {
    root ??= createProject({});
    const result = await runCli([command, '--help'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: memvault ${command}`);
    expect(result.stdout).toContain('Examples');
    expect(result.stdout).toMatch(new RegExp(`^ +memvault ${command}\\b`, 'm'));
  });
});
