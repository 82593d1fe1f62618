import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takeMovedAside } from '../../src/pipeline/write.js';
import { diskWriter, RecordingWriter, type Writer } from '../../src/pipeline/writer.js';
import { snapshotTree } from '../helpers/project.js';

/**
 * The dry run's `RecordingWriter` against the build's `diskWriter` on the same vault: the same results for the same
 * writes and moves, the same files read back afterwards, and nothing on disk changed by the recording one.
 */

const NOW = new Date('2026-02-13T09:30:00Z');
const SUMMARY = (body: string) => `---\nmemvault: summary\ntier: daily\n---\n${body}\n`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function vault(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-writer-'));
  dirs.push(dir);
  const files: Record<string, string> = {
    'main/daily/2026-02-12.md': SUMMARY('old daily'),
    'main/weekly/2026-W06.md': 'my own notes, no frontmatter\n',
    'main/memories/2026-02-01.md': '---\ndate: 2026-02-01\n---\nA memory.\n',
    'main/UPLOAD_PACKAGE.md': '---\nmemvault: package\n---\nsame\n',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** The same writes and moves a build makes: a replaced summary, a new one, an unchanged package, a person's file at a generated path, an archive move. */
function run(writer: Writer) {
  const history = { stream: 'main', tier: 'daily' as const, period: '2026-02-12' };
  return {
    replaced: writer.write([{ path: 'main/daily/2026-02-12.md', text: SUMMARY('new daily'), history }], NOW),
    created: writer.write(
      [{ path: 'main/daily/2026-02-13.md', text: SUMMARY('first daily'), history: { ...history, period: '2026-02-13' } }],
      NOW,
    ),
    unchanged: writer.write([{ path: 'main/UPLOAD_PACKAGE.md', text: '---\nmemvault: package\n---\nsame\n' }], NOW),
    handWritten: writer.write([{ path: 'main/weekly/2026-W06.md', text: SUMMARY('weekly') }], NOW),
    moved: writer.move('main/memories/2026-02-01.md', 'main/archive/2026-Q1/2026-02-01.md'),
    movedOntoExisting: writer.move('main/daily/2026-02-13.md', 'main/daily/2026-02-12.md'),
    movedMissing: writer.move('main/memories/none.md', 'main/archive/2026-Q1/none.md'),
  };
}

describe('RecordingWriter', () => {
  const onDisk = vault();
  const recorded = vault();
  const untouched = snapshotTree(recorded);
  const disk = run(diskWriter(onDisk));
  // The disk writer's move aside is reported to the build through write.ts: taken here, so no other file finds it.
  const movedAside = takeMovedAside();
  const recording = new RecordingWriter(recorded, (text) => text.includes('first daily'));
  const dry = run(recording);

  it('returns what the disk writer returns for the same writes and moves', () => {
    expect(dry).toEqual(disk);
    expect(disk.handWritten.historyCopies).toEqual(['main/history/hand-written/weekly/2026-W06-20260213-093000.md']);
    expect(movedAside.map((m) => [m.from, m.to])).toEqual([['main/weekly/2026-W06.md', disk.handWritten.historyCopies[0]]]);
    expect(disk.replaced.historyCopies).toEqual(['main/history/daily/2026-02-12-20260213-093000.md']);
  });

  it('reads back every file as the disk writer left it, and writes nothing', () => {
    const after = snapshotTree(onDisk);
    for (const file of after.keys()) expect([file, recording.read(file)]).toEqual([file, diskWriter(onDisk).read(file)]);
    for (const file of after.keys()) expect(recording.stat(file)?.size).toBe(diskWriter(onDisk).stat(file)?.size);
    for (const gone of ['main/memories/2026-02-01.md', 'main/weekly/2026-W06.md'].filter((f) => !after.has(f)))
      expect(recording.read(gone)).toBeUndefined();
    expect(snapshotTree(recorded)).toEqual(untouched);
  });

  it('lists each change once with its bytes, estimates marked', () => {
    const changes = recording.changes();
    expect(new Set(changes.map((c) => c.path))).toEqual(
      new Set(
        [...snapshotTree(onDisk).keys()].filter(
          (file) => snapshotTree(recorded).get(file)?.sha256 !== snapshotTree(onDisk).get(file)!.sha256,
        ),
      ),
    );
    expect(changes.find((c) => c.op === 'move' && c.from === 'main/memories/2026-02-01.md')).toEqual({
      op: 'move',
      path: 'main/archive/2026-Q1/2026-02-01.md',
      from: 'main/memories/2026-02-01.md',
      bytes: Buffer.byteLength('---\ndate: 2026-02-01\n---\nA memory.\n'),
    });
    expect(changes.find((c) => c.path === 'main/daily/2026-02-13.md')).toMatchObject({ op: 'write', estimate: true });
    // Written after a placeholder and not a summary (no `history`): made of the summaries, an estimate.
    expect(changes.find((c) => c.path === 'main/weekly/2026-W06.md')).toMatchObject({ op: 'write', estimate: true });
    expect(changes.find((c) => c.path === 'main/daily/2026-02-12.md')?.estimate).toBeUndefined();
  });

  it('moves a file it wrote, and a file it moved, without touching the disk', () => {
    const dir = vault();
    const before = snapshotTree(dir);
    const writer = new RecordingWriter(dir);
    writer.write([{ path: 'main/daily/2026-02-14.md', text: SUMMARY('x') }], NOW);
    expect(writer.move('main/daily/2026-02-14.md', 'main/archive/2026-Q1/daily/2026-02-14.md')).toBe(true);
    expect(writer.move('main/memories/2026-02-01.md', 'main/a.md')).toBe(true);
    expect(writer.move('main/a.md', 'main/b.md')).toBe(true);
    expect(writer.read('main/b.md')).toBe('---\ndate: 2026-02-01\n---\nA memory.\n');
    expect(writer.stat('main/a.md')).toBeUndefined();
    expect(writer.read('main/daily/2026-02-14.md')).toBeUndefined();
    expect(writer.changes().map((c) => [c.op, c.path, c.from])).toEqual([
      ['write', 'main/archive/2026-Q1/daily/2026-02-14.md', undefined],
      ['move', 'main/b.md', 'main/memories/2026-02-01.md'],
    ]);
    expect(snapshotTree(dir)).toEqual(before);
  });
});
