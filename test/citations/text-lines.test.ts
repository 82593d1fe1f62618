import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCitationStep } from '../../src/citations/build-step.js';
import { citationLine } from '../../src/citations/line.js';
import { cliEnv } from '../../src/cli/ops-env.js';
import { loadValidConfig } from '../../src/config/load.js';
import { toolText } from '../../src/mcp/text.js';
import { OPERATIONS } from '../../src/ops/index.js';
import { runOperation } from '../../src/ops/operation.js';
import { vaultLoadOptions } from '../../src/pipeline/workers/build-pool.js';
import { renderZoomMemory } from '../../src/read/zoom.js';
import { loadVault } from '../../src/load/load.js';
import { removeProject } from '../helpers/project.js';
import { citedProject, PATHS } from './repo.js';

/**
 * The text of zoom and of the MCP tools says how a memory's citations stand,
 * as context and search do (issue 31, item 3): a stale memory says what went
 * and where to look, the others when they were last verified.
 */

const NOW = '2026-01-06T00:00:00Z';
const op = (name: string) => OPERATIONS.find((o) => o.name === name)!;

describe('citation lines in the text of zoom and the MCP tools', () => {
  let root: string;
  let deleted: string;
  beforeAll(async () => {
    ({ root, deleted } = citedProject());
    const config = await loadValidConfig(root);
    const loaded = await loadVault(vaultLoadOptions(root, config));
    await runCitationStep({ root, vaultDir: path.join(root, 'vault'), streams: loaded.state.streams.values(), now: new Date(NOW) });
  });
  afterAll(() => removeProject(root));

  it('the MCP search text marks a hit whose cited file was deleted, and dates a verified one', async () => {
    const { result } = await runOperation(op('search'), await cliEnv({ root, now: NOW }), {
      query: 'timeout handling',
      tier: 'memories',
    });
    const text = toolText('search', result);
    const retry = text.split(/\n(?=\d+\. )/).find((block) => block.includes(PATHS.retry))!;
    expect(retry).toContain(
      `stale: cites \`src/net/retry.ts\`, deleted in ${deleted.slice(0, 7)} on 2026-01-05 (checked at ${deleted.slice(0, 7)} on 2026-01-06; \`memvault verify\`)`,
    );
    const stable = text.split(/\n(?=\d+\. )/).find((block) => block.includes(PATHS.stable))!;
    expect(stable).toContain(`citations verified at ${deleted.slice(0, 7)} on 2026-01-06`);
  });

  it('the MCP zoom text and the CLI zoom text carry the same lines', async () => {
    const { result } = await runOperation(op('zoom'), await cliEnv({ root, now: NOW }), { period: '2026-01-02' });
    const memories = (result as { memories: { path: string }[] }).memories;
    expect(memories.map((m) => m.path)).toContain(PATHS.retry);
    const text = toolText('zoom', result);
    expect(text).toContain(`stale: cites \`src/net/retry.ts\`, deleted in ${deleted.slice(0, 7)}`);
    const retry = memories.find((m) => m.path === PATHS.retry)!;
    const cli = renderZoomMemory(retry as Parameters<typeof renderZoomMemory>[0]);
    expect(cli).toContain(`> **Stale:** cites \`src/net/retry.ts\`, deleted in ${deleted.slice(0, 7)}`);
    expect(cli).toContain(`citations checked at ${deleted.slice(0, 7)} on 2026-01-06`);
  });

  it('words each state on one line', () => {
    const checked = { commit: 'aa4c1039f00d', at: '2026-11-28T06:00:00.000Z' };
    expect(
      citationLine({ state: 'verified', stale: false, checked, citations: [{ kind: 'path', target: 'src/a.ts', state: 'verified' }] }),
    ).toBe('citations verified at aa4c103 on 2026-11-28');
    expect(
      citationLine({
        state: 'changed',
        stale: false,
        checked,
        citations: [{ kind: 'path', target: 'src/a.ts', state: 'changed', since: 2, detail: '2 commits since' }],
      }),
    ).toBe('citations changed (`src/a.ts` 2 commits since), checked at aa4c103 on 2026-11-28');
    expect(
      citationLine({
        state: 'moved',
        stale: true,
        checked,
        citations: [
          { kind: 'path', target: 'src/a.ts', state: 'moved', to: 'src/b.ts', detail: 'renamed to src/b.ts in 1234567 on 2026-11-01' },
        ],
      }),
    ).toBe('stale: cites `src/a.ts`, renamed to src/b.ts in 1234567 on 2026-11-01 (checked at aa4c103 on 2026-11-28; `memvault verify`)');
  });
});
