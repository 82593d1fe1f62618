import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { leftOutOf } from '../../src/maintain/left-out.js';
import { parseVaultFile } from '../../src/load/parse-file.js';
import type { Memory } from '../../src/vault/model.js';

/** What a stream leaves out, from memories parsed as the loader parses them (facts and marks read at parse time). */
const parse = (id: string, text: string): Memory => {
  const role = { role: 'memory', stream: 'main', location: 'memories', relativeId: id } as const;
  const { result } = parseVaultFile(Buffer.from(text), `main/memories/${id}.md`, role, 'UTC', false);
  if (result.type !== 'memory') throw new Error(`${id} did not parse`);
  return result.memory;
};

describe('leftOutOf', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-left-out-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const config = validateConfig('timezone: UTC\n', 'memory.config.yaml').config;
  const memories = [
    parse('db-old', '---\ndate: 2026-01-05\nkind: fact\nkey: primary_db\nvalue: mysql\n---\nWe use MySQL.\n'),
    parse(
      'db-new',
      '---\ndate: 2026-02-01\nkind: fact\nkey: primary_db\nvalue: postgresql\nsupersedes: [db-old]\n---\nMoved to Postgres.\n',
    ),
    parse('cache', '---\ndate: 2026-01-10\n---\nNotes from the cache review.\n\n- Fact: cache = redis (eu)\n'),
    parse('note', '---\ndate: 2026-01-12\n---\nA note nobody read again.\n'),
    parse('copy', '---\ndate: 2026-01-13\nduplicate_of: note\n---\nA note nobody read again, pasted twice.\n'),
    parse('recent', '---\ndate: 2026-06-01\n---\nStill fresh.\n'),
  ];
  const now = new Date('2026-06-10T12:00:00Z');
  const vaultDir = path.join(root, 'vault');

  it('forgets the superseded fact and the old note, keeps facts in force and young memories, lists the copy apart', () => {
    const leftOut = leftOutOf(root, vaultDir, config, { name: 'main', memories }, now);
    expect(leftOut.forgotten.map((m) => m.id)).toEqual(['db-old', 'note']);
    expect([...leftOut.duplicates]).toEqual([['copy', 'note']]);
    expect([...leftOut.ids].sort()).toEqual(['copy', 'db-old', 'note']);
  });

  it('forgets nothing with forget: false, and a longer forget_after_days keeps the old note', () => {
    const off = validateConfig('timezone: UTC\nstreams:\n  main: { forget: false }\n', 'memory.config.yaml').config;
    expect(leftOutOf(root, vaultDir, off, { name: 'main', memories }, now).forgotten).toEqual([]);
    const longer = validateConfig('timezone: UTC\nforget_after_days: 150\n', 'memory.config.yaml').config;
    expect(leftOutOf(root, vaultDir, longer, { name: 'main', memories }, now).forgotten.map((m) => m.id)).toEqual(['db-old']);
  });
});
