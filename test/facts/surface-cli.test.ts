import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build as buildInProcess } from '../../src/pipeline/build.js';
import { createProject, readJsonFile, readText, removeProject, runCliJson } from '../helpers/project.js';

/**
 * Contradictions and facts where a person and an agent meet them, through the real CLI on one vault: build warnings,
 * status, INDEX.md, UPLOAD_PACKAGE.md and the context; then a resolution of each kind and a rebuild with none left.
 * The two builds, checked by their `--json` report and files, run in-process (`buildHere`); every other command runs the CLI.
 */
/** The build in this process, its report as `memvault build --no-commit --json` prints it. */
const buildHere = async (root: string): Promise<{ json: any }> => ({
  json: JSON.parse(JSON.stringify(await buildInProcess({ root, now: new Date(NOW), commit: false }))),
});
const NOW = '2026-04-01T09:00:00Z';
// Written under memories/; the build archives them (older than 30 days): facts are read wherever a memory lives.
const archived = (name: string) => `main/archive/2026-Q1/${name}`;
const DB_A = archived('2026-02-10-db.md');
const DB_B = archived('2026-03-01-migration.md');
const files: Record<string, string> = {
  'vault/main/memories/2026-02-10-db.md':
    '---\ndate: 2026-02-10T10:00:00Z\nkind: fact\nkey: primary_db\nvalue: postgresql\n---\nWe use Postgres.\n',
  'vault/main/memories/2026-03-01-migration.md':
    '---\ndate: 2026-03-01T10:00:00Z\ntitle: Migration notes\n---\nWe moved the data.\n\n- Fact: primary_db = mysql\n',
  'vault/main/memories/2026-02-11-owner.md': '---\ndate: 2026-02-11T10:00:00Z\n---\nOwners.\n\nFact: payments_owner = ana\n',
  'vault/main/memories/2026-02-20-owner.md': '---\ndate: 2026-02-20T10:00:00Z\n---\nOwners again.\n\nFact: payments_owner = marcus\n',
  'vault/main/memories/2026-02-12-region.md': '---\ndate: 2026-02-12T10:00:00Z\nkind: fact\nkey: region\nvalue: eu-west-1\n---\nPrimary.\n',
  'vault/main/memories/2026-02-25-region.md': '---\ndate: 2026-02-25T10:00:00Z\nkind: fact\nkey: region\nvalue: us-east-1\n---\nDR.\n',
  // A supersede chain and a validity window: only the newest queue, and no on-call after March 10.
  'vault/main/memories/2026-01-05-queue.md': '---\ndate: 2026-01-05T10:00:00Z\nkind: fact\nkey: queue\nvalue: sqs\n---\nFirst queue.\n',
  'vault/main/memories/2026-02-01-queue.md':
    '---\ndate: 2026-02-01T10:00:00Z\nsupersedes: [2026-01-05-queue]\n---\nQueue moved.\n\n- Fact: queue = kafka\n- Fact: cache = redis (eu)\n',
  'vault/main/memories/2026-03-02-oncall.md':
    '---\ndate: 2026-03-02T10:00:00Z\nkind: fact\nkey: oncall\nvalue: ana\nvalid_to: 2026-03-10\n---\nOn call.\n',
};

describe('contradictions and facts in build, status, INDEX.md, the package and the context', () => {
  let root: string;
  let ids: Record<string, string>;
  beforeAll(() => {
    root = createProject(files);
  });
  afterAll(() => removeProject(root));

  it('shows each open contradiction everywhere, with both places, and the facts in force compressed', async () => {
    const build = await buildHere(root);
    const warnings = build.json.diagnostics.filter((d: { rule: string }) => d.rule === 'fact/contradiction');
    expect(warnings).toHaveLength(3); // once each
    const db = warnings.find((d: { path: string }) => d.path === DB_B);
    expect(db).toMatchObject({ line: 7, severity: 'warning' });
    expect(db.reason).toContain(`${DB_A}:4`);

    const status = await runCliJson(['status', '--json', '--now', NOW], { cwd: root });
    const facts = status.json.streams[0].facts;
    expect(facts.contradictions.map((c: { key: string }) => c.key).sort()).toEqual(['payments_owner', 'primary_db', 'region']);
    ids = Object.fromEntries(facts.contradictions.map((c: { key: string; id: string }) => [c.key, c.id]));
    expect(facts.in_force).toBe(2); // queue = kafka, cache = redis (eu): the disputed ones are not counted as holding

    const line = `Unresolved: primary_db = postgresql (2026-02-10, ${DB_A}:4) vs mysql (2026-03-01, ${DB_B}:7)`;
    const index = readText(root, 'vault/INDEX.md');
    expect(index.match(/- \*\*contradiction\*\* /g)).toHaveLength(3);
    expect(index).toContain(
      `- **contradiction** [${DB_B}](${DB_B}): ${line}; decide: \`memvault resolve ${ids.primary_db} --keep a|b|both\``,
    );

    const pack = readText(root, 'vault/main/UPLOAD_PACKAGE.md').split('\n---\n')[1]!.trim().split('\n\n');
    expect(pack[0]).toBe('# Memory of main');
    expect(pack[2]!.split('\n')).toHaveLength(3);
    expect(pack[2]!.split('\n').every((l) => l.startsWith('Unresolved: '))).toBe(true);
    expect(pack[2]).toContain(line);
    const section = pack.indexOf('## Facts in force on 2026-04-01');
    expect(pack[section + 1]).toBe('- cache: redis (eu)\n- queue: kafka');
    expect(readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json').facts).toEqual({
      contradictions: Object.values(ids).sort(
        (a, b) =>
          facts.contradictions.findIndex((c: { id: string }) => c.id === a) -
          facts.contradictions.findIndex((c: { id: string }) => c.id === b),
      ),
      in_force: 2,
      shown: 2,
    });

    const context = await runCliJson(['context', '--json', '--query', 'which queue do we use', '--now', NOW], { cwd: root });
    const critical = context.json.items.filter((i: { tier: string }) => i.tier === 'critical');
    expect(
      critical
        .slice(0, 3)
        .map((i: { source: string }) => i.source)
        .sort(),
    ).toEqual([DB_B, archived('2026-02-20-owner.md'), archived('2026-02-25-region.md')].sort());
    const text: string = context.json.context;
    expect(text.indexOf('## Critical')).toBeLessThan(text.indexOf('### Unresolved contradiction'));
    expect(text).toContain(line);
    expect(text).toMatch(/### Facts in force on 2026-04-01 about this `main\/memories`\n\nqueue: kafka\n/);
    expect(text).toMatch(/### Facts in force on 2026-04-01 `main\/memories`\n\ncache: redis \(eu\)\n/);
    expect(text).not.toContain('queue: sqs');
  }, 120_000);

  it('answers facts --at along the supersede chain and the validity window, with each history', async () => {
    const { json } = await runCliJson(['facts', '--json', '--all', '--at', '2026-01-20', '--now', NOW], { cwd: root });
    expect(json.facts.map((f: { key: string; value: string }) => `${f.key}=${f.value}`)).toEqual(['queue=sqs']);
    const history = (key: string) =>
      json.history
        .find((h: { key: string }) => h.key === key)
        .facts.map((f: { value: string; valid_from: string; valid_to: string | null }) => [f.value, f.valid_from, f.valid_to]);
    expect(history('queue')).toEqual([
      ['sqs', '2026-01-05', '2026-02-01'],
      ['kafka', '2026-02-01', null],
    ]);
    expect(history('oncall')).toEqual([['ana', '2026-03-02', '2026-03-10']]);
  }, 60_000);

  it('after a resolution of each kind, a rebuild shows no contradiction and the memories stay readable', async () => {
    await runCliJson(['resolve', ids.primary_db!, '--keep', 'b', '--note', 'moved in March', '--now', NOW, '--json'], { cwd: root });
    await runCliJson(['resolve', ids.payments_owner!, '--keep', 'a', '--json'], { cwd: root });
    await runCliJson(['resolve', ids.region!, '--keep', 'both', '--json'], { cwd: root });

    const build = await buildHere(root);
    expect(
      build.json.diagnostics.filter((d: { rule: string; severity: string }) => d.rule.startsWith('fact/') || d.severity === 'error'),
    ).toEqual([]);
    const status = await runCliJson(['status', '--json', '--now', NOW], { cwd: root });
    expect(status.json.streams[0].facts).toEqual({ in_force: 6, contradictions: [] });
    expect(readText(root, 'vault/INDEX.md')).not.toContain('contradiction');
    const pack = readText(root, 'vault/main/UPLOAD_PACKAGE.md');
    expect(pack).not.toContain('Unresolved');
    expect(pack).toContain(
      '## Facts in force on 2026-04-01\n\n- cache: redis (eu)\n- payments_owner: ana\n- primary_db: mysql\n- queue: kafka\n' +
        '- region: eu-west-1\n- region: us-east-1\n',
    );
    const context = await runCliJson(['context', '--json', '--now', NOW], { cwd: root });
    expect(context.json.context).not.toContain('Unresolved');

    // Nothing deleted: every memory is still there with its text, read by the build and shown in the package.
    for (const [file, text] of Object.entries(files)) {
      const where = existsSync(path.join(root, file)) ? file : `vault/${archived(file.split('/').pop()!)}`;
      expect(readText(root, where)).toContain(text.split('---\n').pop()!.trim());
    }
    expect(readText(root, `vault/${DB_B}`)).toContain(
      'supersedes: [2026-02-10-db]\nresolution_notes: ["2026-04-01: kept over 2026-02-10-db: moved in March"]\n',
    );
    expect(pack).toContain('We use Postgres.');
    expect(pack).toContain('We moved the data.');
  }, 120_000);
});
