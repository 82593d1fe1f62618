import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitAll, git, gitConfig, initRepo } from '../git/helpers.js';
import { copyProject, createProject, memory, removeProject, runCliJson } from '../helpers/project.js';
import { hashTree } from '../helpers/tree.js';

/**
 * `memvault build --dry-run` is the same run as a build with a recording writer (src/pipeline/writer.ts): through the
 * real CLI, on a real git repository, it leaves every byte of the project as it was (`.memvault/` and `.git/`
 * included), commits nothing, and lists in `would_write` exactly the files the build then writes and moves, with
 * their sizes (estimates only where a placeholder summary is in them).
 */

/** Memories before 2026-01-13 are past retention on 2026-02-02, once January's monthly holds them. */
const RETENTION = 'calendar:\n  retention: { memories_days: 20, daily_days: 400, weekly_weeks: 60 }\n';
/** A Tuesday: the dailies up to 01-19, the weeklies of W02 and W03. */
const FIRST = '2026-01-20T06:00:00Z';
/** A Monday: the last dailies and weekly of January, its monthly and the long-term summary, then the archive moves. */
const SECOND = '2026-02-02T06:00:00Z';
/** One day over its daily budget: summarized (a placeholder in the dry run), not merged. */
const BUSY_DAY = '2026-01-22';

function memories(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let day = 5; day <= 25; day += 2) {
    const date = `2026-01-${String(day).padStart(2, '0')}`;
    files[`vault/main/memories/${date}.md`] = memory({
      date: `${date}T10:00:00Z`,
      title: `Work on ${date}`,
      body: `Shipped the fix of ${date}.`,
    });
  }
  const long = Array.from({ length: 60 }, (_, i) => `- Step ${i + 1} of the migration moved table t${i} to the new cluster.`).join('\n');
  files[`vault/main/memories/${BUSY_DAY}.md`] = memory({ date: `${BUSY_DAY}T09:00:00Z`, title: 'The migration', body: long });
  return files;
}

interface Change {
  op: 'write' | 'move';
  path: string;
  from?: string;
  bytes: number;
  estimate?: boolean;
}

describe('build --dry-run: the same run with a recording writer', () => {
  const roots: string[] = [];
  let root: string;
  let dry: any;
  let before: Map<string, string>;
  let after: Map<string, string>;

  beforeAll(async () => {
    root = createProject({ ...memories(), '.gitignore': '.memvault/\n' }, gitConfig(RETENTION));
    roots.push(root);
    initRepo(root);
    commitAll(root, 'memories');
    await runCliJson(['build', '--now', FIRST, '--json'], { cwd: root });
    before = hashTree(root);
    dry = (await runCliJson(['build', '--now', SECOND, '--dry-run', '--json'], { cwd: root })).json;
    after = hashTree(root);
  }, 60_000);
  afterAll(() => roots.forEach(removeProject));

  it('leaves every byte of the project as it was, .memvault/ and .git/ included, and commits nothing', () => {
    expect(before.has('.memvault/state.sqlite')).toBe(true);
    expect(after).toEqual(before);
    expect(dry.commit).toBeNull();
    expect(dry.written).toEqual([]);
  });

  it('keeps the plan, its estimate and the package plan, and lists what a build would write and move', () => {
    const [stream] = dry.streams;
    expect(stream.planned.map((p: any) => `${p.tier} ${p.period}`)).toEqual(
      expect.arrayContaining(['daily 2026-01-21', `daily ${BUSY_DAY}`, 'weekly 2026-W04', 'monthly 2026-01']),
    );
    expect(stream.estimate.daily.summaries).toBeGreaterThan(0);
    expect(stream.package_plan).toMatchObject({ path: 'main/UPLOAD_PACKAGE.md', write: true });
    const changes: Change[] = dry.would_write;
    // The moves follow the monthly the same run made: the plan as the vault stood had none.
    expect(changes.filter((c) => c.op === 'move').map((c) => c.from)).toEqual(
      expect.arrayContaining(['main/memories/2026-01-05.md', 'main/memories/2026-01-11.md']),
    );
    expect(dry.archived.map((m: any) => m.from)).toEqual(changes.filter((c) => c.op === 'move').map((c) => c.from));
    const byPath = new Map(changes.map((c) => [c.path, c]));
    // The busy day's daily is a placeholder (no model was called); what is made of it is an estimate too.
    expect(byPath.get(`main/daily/${BUSY_DAY}.md`)?.estimate).toBe(true);
    expect(byPath.get('main/UPLOAD_PACKAGE.md')?.estimate).toBe(true);
    expect(byPath.get('main/daily/2026-01-21.md')?.estimate).toBeUndefined();
  });

  // A third build of the project: slow on shared cores.
  it.skipIf(process.env.MEMVAULT_SLOW !== '1')(
    'names exactly the files the build then writes and moves, with their sizes where they are not estimates',
    async () => {
      const real = copyProject(root);
      roots.push(real);
      const head = git(real, 'rev-parse', 'HEAD');
      const built = (await runCliJson(['build', '--now', SECOND, '--json'], { cwd: real })).json;
      expect(git(real, 'rev-parse', 'HEAD')).not.toBe(head);
      const changes: Change[] = dry.would_write;
      const wrote = new Set<string>([...built.written, ...built.history_copies, ...built.archived.map((m: any) => m.to)]);
      expect(new Set(changes.map((c) => c.path))).toEqual(wrote);
      expect(changes.filter((c) => c.op === 'move')).toEqual(
        built.archived.map((m: any) => ({ op: 'move', path: m.to, from: m.from, bytes: statSync(path.join(real, 'vault', m.to)).size })),
      );
      const exact = changes.filter((c) => !c.estimate);
      expect(exact.length).toBeGreaterThan(5);
      for (const change of exact)
        expect([change.path, statSync(path.join(real, 'vault', change.path)).size]).toEqual([change.path, change.bytes]);
    },
  );
});
