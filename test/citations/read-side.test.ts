import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readText, removeProject, runCliJson } from '../helpers/project.js';
import { citedProject, GIT_ENV, PATHS } from './repo.js';

/**
 * End to end through the CLI: a build checks the citations, and the package,
 * INDEX.md, `verify --json`, `context` and `search` show a memory whose cited
 * file was deleted as such. Slow (a build, then a command each): MEMVAULT_SLOW=1.
 */
describe.skipIf(process.env.MEMVAULT_SLOW !== '1')('a memory whose cited file was deleted, end to end', () => {
  let root: string;
  let deleted: string;
  const env = { ...GIT_ENV, MEMVAULT_NOW: '2026-01-06T00:00:00Z' };
  beforeAll(async () => {
    ({ root, deleted } = citedProject({ fillers: 12 }));
    const { json } = await runCliJson(['build', '--json'], { cwd: root, env });
    expect(json.citations).toMatchObject({ stale: 3, rechecked_paths: 4 });
    expect(json.citations.newly_stale.map((s: { path: string }) => s.path)).toContain(PATHS.retry);
  }, 60_000);
  afterAll(() => removeProject(root));

  const note = () => `cites \`src/net/retry.ts\`, deleted in ${deleted.slice(0, 7)} on 2026-01-05`;

  it('is marked in the package and queued for review in INDEX.md', () => {
    expect(readText(root, 'vault/main/UPLOAD_PACKAGE.md')).toContain(`> **Stale:** ${note()}`);
    expect(readText(root, 'vault/INDEX.md')).toContain(`- **stale citation** [${PATHS.retry}](${PATHS.retry}): ${note()}`);
  });

  it('is listed by verify --json with its fix', async () => {
    const { json } = await runCliJson(['verify', '--json'], { cwd: root, env });
    expect(json.stale).toBe(3);
    const retry = json.memories.find((m: { path: string }) => m.path === PATHS.retry);
    expect(retry).toMatchObject({ state: 'gone', stale: true, citations: [{ target: 'src/net/retry.ts', state: 'gone' }] });
    expect(retry.fix).toMatch(/valid_to/);
    // Verified memories are listed with --all only.
    expect(json.memories.map((m: { path: string }) => m.path)).not.toContain(PATHS.stable);
  }, 30_000);

  it('is marked in the context, which carries the citation state of every item', async () => {
    const { json } = await runCliJson(['context', '--query', 'timeout handling', '--budget', '3000', '--json'], { cwd: root, env });
    expect(json.context).toContain(`> **Stale:** ${note()}`);
    const item = json.items.find((i: { source: string }) => i.source === PATHS.retry);
    expect(item.citations).toMatchObject({ state: 'gone', stale: true, checked: { commit: expect.any(String) } });
    expect(json.items.find((i: { source: string }) => i.source === PATHS.stable)?.citations?.state).toBe('verified');
  }, 30_000);

  it('ranks below a verified memory for the same query, unless the query names the file; above it without verification', async () => {
    const order = async () => {
      const { json } = await runCliJson(['search', 'timeout', 'handling', '--tier', 'memories', '--json'], { cwd: root, env });
      return json.hits.map((h: { path: string }) => h.path);
    };
    const ranked = await order();
    expect(ranked.indexOf(PATHS.stable)).toBeLessThan(ranked.indexOf(PATHS.retry));
    const { json } = await runCliJson(['search', 'timeout', 'handling', 'retry.ts', '--tier', 'memories', '--json'], { cwd: root, env });
    expect(json.hits[0].path).toBe(PATHS.retry);
    expect(json.hits[0].citations.state).toBe('gone');
    // The same index without the verification: the deleted file's memory matches better and leads.
    rmSync(path.join(root, '.memvault/citations'), { recursive: true });
    const unverified = await order();
    expect(unverified.indexOf(PATHS.retry)).toBeLessThan(unverified.indexOf(PATHS.stable));
  }, 30_000);
});
