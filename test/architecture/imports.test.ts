import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  folderGraph,
  folderPath,
  type ImportGraph,
  importCycles,
  importSpecifiers,
  mutualFolders,
  readImportGraph,
  siblings,
  topFolder,
} from './import-graph.js';

/**
 * The layering of src/ (docs/architecture.md): no module reaches itself
 * through its imports, no two top-level folders import each other, and no
 * two folders side by side inside one do either. A new cycle or pair fails
 * here with the imports that make it; move the shared piece down a layer.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const graph = readImportGraph(root);

const describePairs = (pairs: ReturnType<typeof mutualFolders>) =>
  pairs.map(({ folders, examples }) => `${folders.join(' ↔ ')}: ${examples.join(', ')}`);

describe('src/ import graph', () => {
  it('reads every module and its imports', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('src/pipeline/build.ts')).toContain('src/pipeline/build-plan.ts');
    // A dynamic import counts: build.ts loads the commit stage on demand.
    expect(graph.get('src/pipeline/build.ts')).toContain('src/pipeline/commit.ts');
  });

  it('has no import cycles (type-only imports included)', () => {
    expect(importCycles(graph).map((group) => group.join(' → '))).toEqual([]);
  });

  it('has no two top-level folders importing each other', () => {
    expect(describePairs(mutualFolders(graph, topFolder))).toEqual([]);
  });

  it('has no two side-by-side folders importing each other', () => {
    // The last pair, pipeline/calendar ↔ pipeline/workers, went in issue 28: build.ts hands the calendar its rollups
    // on the threads (StreamContext.rollups), so only workers/ imports calendar/.
    expect(describePairs(mutualFolders(graph, folderPath, siblings))).toEqual([]);
  });

  it('has no loop through three or more top-level folders, but the known one at the bottom', () => {
    // util/errors.ts names catalogued rules (messages), messages/diagnostic.ts prints through text/safe-text.ts, and
    // text/terms.ts loads stopword with util/lazy.ts. Any other loop is new.
    expect(importCycles(folderGraph(graph, topFolder))).toEqual([['messages', 'text', 'util']]);
  });
});

describe('the checks themselves', () => {
  const fixture = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

  it('finds static, re-exported, dynamic and type-position imports', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c/index.js';",
      "const d = await import('./d.js');",
      "type E = typeof import('./e.js');",
      "import path from 'node:path';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['./a.js', '../b.js', './c/index.js', './d.js', './e.js', 'node:path']);
  });

  it('finds a cycle, a loop through three modules, and nothing in a chain', () => {
    expect(importCycles(fixture({ 'src/a.ts': ['src/b.ts'], 'src/b.ts': ['src/a.ts'] }))).toEqual([['src/a.ts', 'src/b.ts']]);
    expect(
      importCycles(fixture({ 'src/x/1.ts': ['src/x/2.ts'], 'src/x/2.ts': ['src/x/3.ts'], 'src/x/3.ts': ['src/x/1.ts'] })),
    ).toHaveLength(1);
    expect(importCycles(fixture({ 'src/a.ts': ['src/b.ts'], 'src/b.ts': ['src/c.ts'], 'src/c.ts': [] }))).toEqual([]);
  });

  it('finds folders importing each other, at the top level and side by side', () => {
    const modules = fixture({
      'src/git/commit.ts': ['src/vault/paths.ts'],
      'src/vault/load.ts': ['src/git/repo.ts'],
      'src/pipeline/calendar/apply.ts': ['src/pipeline/package/index.ts', 'src/pipeline/write.ts'],
      'src/pipeline/package/items.ts': ['src/pipeline/calendar/rollup.ts'],
      'src/pipeline/write.ts': ['src/pipeline/calendar/plan.ts'],
    });
    expect(mutualFolders(modules, topFolder).map((pair) => pair.folders)).toEqual([['git', 'vault']]);
    // pipeline ↔ pipeline/calendar is a folder and its subfolder: not side by side.
    expect(mutualFolders(modules, folderPath, siblings).map((pair) => pair.folders)).toEqual([
      ['git', 'vault'],
      ['pipeline/calendar', 'pipeline/package'],
    ]);
  });
});
