import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';

/** Three contradictions, one for each decision `memvault resolve` records, through the real CLI. */
const NOW = '2026-04-01T09:00:00Z';
const files: Record<string, string> = {
  'vault/main/memories/2026-02-10-db.md':
    '---\ndate: 2026-02-10T10:00:00Z\nkind: fact\nkey: primary_db\nvalue: postgresql\n---\nWe use Postgres.\n',
  'vault/main/memories/2026-03-01-migration.md':
    '---\ndate: 2026-03-01T10:00:00Z\ntitle: Migration notes\n# a comment of mine\ntags: [db]\n---\nWe moved the data.\n\n- Fact: primary_db = mysql\n',
  'vault/main/memories/2026-02-11-owner.md': '---\ndate: 2026-02-11T10:00:00Z\n---\nFact: payments_owner = ana\n',
  'vault/main/memories/2026-02-20-owner.md': '---\ndate: 2026-02-20T10:00:00Z\n---\nFact: payments_owner = marcus\n',
  'vault/main/memories/2026-02-12-region.md':
    '---\ndate: 2026-02-12T10:00:00Z\nkind: fact\nkey: region\nvalue: eu-west-1\n---\nPrimary region.\n',
  'vault/main/memories/2026-02-25-region.md':
    '---\ndate: 2026-02-25T10:00:00Z\nkind: fact\nkey: region\nvalue: us-east-1\n---\nDR region.\n',
};

describe('memvault facts and memvault resolve', () => {
  let root: string;
  beforeAll(() => {
    root = createProject(files);
  });
  afterAll(() => removeProject(root));

  it('lists what holds, what held, and each contradiction with both places', async () => {
    const { json } = await runCliJson(['facts', '--json', '--now', NOW], { cwd: root });
    expect(json.at).toBe('2026-04-01');
    expect(json.contradictions.map((c: { key: string }) => c.key).sort()).toEqual(['payments_owner', 'primary_db', 'region']);
    const db = json.contradictions.find((c: { key: string }) => c.key === 'primary_db');
    expect(db.a).toEqual({ id: '2026-02-10-db', path: 'main/memories/2026-02-10-db.md', line: 4, value: 'postgresql', date: '2026-02-10' });
    expect(db.b).toMatchObject({ path: 'main/memories/2026-03-01-migration.md', line: 9, value: 'mysql', date: '2026-03-01' });
    const before = await runCliJson(['facts', '--json', '--at', '2026-02-15', '--key', 'payments_owner', '--now', NOW], { cwd: root });
    expect(before.json.facts.map((f: { value: string }) => f.value)).toEqual(['ana']);
    expect(before.json.contradictions).toHaveLength(1); // still open today, whatever the day shown
    const text = await runCli(['facts', '--now', NOW], { cwd: root });
    expect(text.stdout).toContain(`Unresolved: primary_db = postgresql (2026-02-10, main/memories/2026-02-10-db.md:4) vs mysql`);
    expect(text.stdout).toContain(`memvault resolve ${db.id} --keep a|b|both`);
  });

  it('records keep a, keep b and keep both in frontmatter, deletes nothing, and leaves no contradiction', async () => {
    const { json } = await runCliJson(['facts', '--json', '--now', NOW], { cwd: root });
    const id = (key: string) => json.contradictions.find((c: { key: string }) => c.key === key).id as string;
    const dry = await runCliJson(['resolve', id('primary_db'), '--keep', 'b', '--dry-run', '--json'], { cwd: root });
    expect(dry.json.written).toBe(false);
    expect(readText(root, 'vault/main/memories/2026-03-01-migration.md')).toBe(files['vault/main/memories/2026-03-01-migration.md']);

    await runCliJson(['resolve', id('primary_db'), '--keep', 'b', '--note', 'moved in March', '--now', NOW, '--json'], { cwd: root });
    await runCliJson(['resolve', id('payments_owner'), '--keep', 'a', '--json'], { cwd: root });
    await runCliJson(['resolve', id('region'), '--keep', 'both', '--json'], { cwd: root });

    expect(readText(root, 'vault/main/memories/2026-03-01-migration.md')).toBe(
      '---\ndate: 2026-03-01T10:00:00Z\ntitle: Migration notes\n# a comment of mine\ntags: [db]\nsupersedes: [2026-02-10-db]\n' +
        'resolution_notes: ["2026-04-01: kept over 2026-02-10-db: moved in March"]\n---\nWe moved the data.\n\n- Fact: primary_db = mysql\n',
    );
    expect(readText(root, 'vault/main/memories/2026-02-11-owner.md')).toContain('supersedes: [2026-02-20-owner]');
    expect(readText(root, 'vault/main/memories/2026-02-12-region.md')).toContain('compatible_with: [2026-02-25-region]');
    expect(readText(root, 'vault/main/memories/2026-02-25-region.md')).toContain('compatible_with: [2026-02-12-region]');
    for (const file of Object.keys(files)) expect(readText(root, file)).toContain(files[file]!.split('---\n').pop()!.trim());

    const after = await runCliJson(['facts', '--json', '--all', '--now', NOW], { cwd: root });
    expect(after.json.contradictions).toEqual([]);
    expect(after.json.facts.map((f: { key: string; value: string }) => `${f.key}=${f.value}`).sort()).toEqual([
      'payments_owner=ana',
      'primary_db=mysql',
      'region=eu-west-1',
      'region=us-east-1',
    ]);
    const history = after.json.history.find((h: { key: string }) => h.key === 'primary_db');
    expect(history.facts.map((f: { value: string; valid_to: string | null }) => [f.value, f.valid_to])).toEqual([
      ['postgresql', '2026-03-01'],
      ['mysql', null],
    ]);
    // The edited memories are still memories a build reads: surface-cli.test.ts rebuilds after the same three resolutions.
  });

  it('refuses an unknown id and a bad --keep with a hint', async () => {
    const unknown = await runCli(['resolve', 'c-00000000', '--keep', 'a'], { cwd: root });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('[fact/unknown-contradiction]');
    const keep = await runCli(['resolve', 'c-00000000', '--keep', 'mine'], { cwd: root });
    expect(keep.code).toBe(1);
    expect(keep.stderr).toContain('keep must be one of a, b, both (got "mine")');
  });
});

describe('memvault add --kind fact with a `Fact:` line', () => {
  let root: string;
  beforeAll(() => {
    root = createProject({ 'vault/main/memories/.gitkeep': '' });
  });
  afterAll(() => removeProject(root));

  it('states the fact: no "key is missing" warning on build, and the fact holds', async () => {
    const added = await runCli(['add', '--kind', 'fact', '--date', '2026-03-20T10:00:00Z', 'Fact: cache = redis (eu)'], { cwd: root });
    expect(added.code, added.stderr).toBe(0);
    for (let build = 0; build < 2; build++) {
      const result = await runCli(['build', '--now', NOW, '--no-commit'], { cwd: root });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/fact\/incomplete|is missing/);
    }
    const { json } = await runCliJson(['facts', '--json', '--now', NOW], { cwd: root });
    expect(json.facts).toMatchObject([{ key: 'cache', value: 'redis', scope: 'eu' }]);
  });
});
