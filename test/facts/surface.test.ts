import { describe, expect, it } from 'vitest';
import { collectFacts } from '../../src/facts/collect.js';
import { extractFacts, factsOf, mayStateFact } from '../../src/vault/fact-extract.js';
import { factWarnings, factSurface } from '../../src/facts/surface.js';
import { configSchema } from '../../src/config/schema.js';
import { computeBands } from '../../src/pipeline/package/bands.js';
import { assemblePackage } from '../../src/pipeline/package/index.js';
import { streamStatus, vaultStatus } from '../../src/pipeline/status.js';
import { renderStatus } from '../../src/cli/render/status.js';
import { countTokens } from '../../src/util/tokens.js';
import { parseVaultFile } from '../../src/load/parse-file.js';
import type { Memory } from '../../src/vault/model.js';

/**
 * Facts where the build shows them, in process: read by the parser onto the memory (and through the cache's JSON),
 * the open contradictions and the facts in force of a stream, and the package's compressed facts within its budget.
 */

const FILES: Record<string, string> = {
  '2026-01-05-queue.md': '---\ndate: 2026-01-05\nkind: fact\nkey: queue\nvalue: sqs\n---\nFirst queue.\n',
  '2026-02-01-queue.md': '---\ndate: 2026-02-01\nsupersedes: [2026-01-05-queue]\n---\nMoved.\n\n- Fact: queue = kafka\n',
  '2026-02-10-db.md': '---\ndate: 2026-02-10\nkind: fact\nkey: primary_db\nvalue: postgresql\n---\nWe use Postgres.\n',
  '2026-03-01-db.md': '---\ndate: 2026-03-01\n---\nMigration notes.\n\nFact: primary_db = mysql\n**Fact:** cache = redis (EU)\n',
  '2026-03-02-oncall.md': '---\ndate: 2026-03-02\nkind: fact\nkey: oncall\nvalue: ana\nvalid_to: 2026-03-10\n---\nOn call.\n',
  '2026-03-03-plain.md': '---\ndate: 2026-03-03\n---\nNothing factual here, just a note about the retro.\n',
  '2026-03-04-broken.md': '---\ndate: 2026-03-04\nkind: fact\nkey: owner\n---\nNo value.\n',
};

const bodies = new Map<string, string>();

function load(files: Record<string, string>): Memory[] {
  return Object.entries(files).map(([name, text]) => {
    bodies.set(`main/memories/${name}`, text.split('---\n')[2]!.trim());
    const path = `main/memories/${name}`;
    const role = { role: 'memory', stream: 'main', location: 'memories', relativeId: name.replace(/\.md$/, '') } as const;
    const parsed = parseVaultFile(Buffer.from(text), path, role, 'UTC', false);
    if (parsed.result.type !== 'memory') throw new Error(`${name} did not parse`);
    // Through JSON, as the parse cache stores it.
    return JSON.parse(JSON.stringify(parsed.result.memory)) as Memory;
  });
}

const memories = load(FILES);
const bodyOf = (memory: Memory) => bodies.get(memory.path)!;

describe('facts are read with the memory', () => {
  it('keeps on each memory, through the cache JSON, exactly what reading the file gives', () => {
    for (const memory of memories) {
      const direct = extractFacts({ memoryId: memory.id, path: memory.path, day: memory.day, raw: FILES[memory.path.split('/').pop()!]! });
      expect(factsOf(memory)).toEqual(direct.facts);
      expect(memory.factProblems ?? []).toEqual(direct.problems);
    }
    expect(memories.find((m) => m.id === '2026-03-03-plain')).not.toHaveProperty('facts');
    // Only a memory that may state one is read again for facts: not one mentioning an artifact: in a sentence.
    expect(mayStateFact('note', 'The build artifact: dist.tar was uploaded.')).toBe(false);
    expect(mayStateFact('note', 'Notes.\n  - **Fact:** queue = sqs')).toBe(true);
    expect(mayStateFact('Fact', 'Body.')).toBe(true);
    expect(collectFacts(memories).facts).toHaveLength(6);
  });

  it('shows open contradictions and the facts in force, never a superseded or disputed one', () => {
    const on = (day: string) => factSurface(memories, day).inForce.map((f) => `${f.key}=${f.value}`);
    expect(on('2026-01-20')).toEqual(['queue=sqs']);
    expect(on('2026-03-05')).toEqual(['cache=redis', 'oncall=ana', 'queue=kafka']);
    expect(on('2026-03-10')).toEqual(['cache=redis', 'queue=kafka']);
    const { contradictions } = factSurface(memories, '2026-03-05');
    expect(contradictions.map((c) => [c.key, c.a.value, c.b.value])).toEqual([['primary_db', 'postgresql', 'mysql']]);
    const warnings = factWarnings([{ memories }]);
    expect(warnings.map((w) => `${w.rule} ${w.path}:${w.line}`)).toEqual([
      'fact/contradiction main/memories/2026-03-01-db.md:6',
      'fact/incomplete main/memories/2026-03-04-broken.md:4',
    ]);
    expect(warnings[0]!.reason).toContain('main/memories/2026-02-10-db.md:4');
    // Another stream with the same ids and keys is compared on its own.
    const other = memories.map((m) => ({ ...m, stream: 'agent', path: m.path.replace('main/', 'agent/') }));
    expect(collectFacts([...memories, ...other]).contradictions).toHaveLength(2);
  });
});

describe('status', () => {
  it('gives the facts in force and the open contradictions with both places, and nothing for a stream without facts', () => {
    const at = new Date('2026-03-05T12:00:00Z');
    const config = configSchema.parse({});
    const status = streamStatus({ name: 'main', memories, summaries: new Map() }, config, '/nonexistent', '/nonexistent', at);
    expect(status.facts).toEqual({
      in_force: 3,
      contradictions: [
        {
          id: expect.stringMatching(/^c-[0-9a-f]{8}$/),
          key: 'primary_db',
          scope: '',
          since: '2026-03-01',
          a: { id: '2026-02-10-db', path: 'main/memories/2026-02-10-db.md', line: 4, value: 'postgresql', date: '2026-02-10' },
          b: { id: '2026-03-01-db#primary_db', path: 'main/memories/2026-03-01-db.md', line: 6, value: 'mysql', date: '2026-03-01' },
        },
      ],
    });
    const state = { streams: new Map([['main', { name: 'main', memories, summaries: new Map() }]]), diagnostics: [] };
    const files = { manifests: new Map(), waterfall: new Map() };
    const text = renderStatus(vaultStatus({ config, root: '/nonexistent', state, now: at, files }), config);
    expect(text).toContain('  facts: 3 in force, 1 unresolved contradiction\n');
    expect(text).toContain(
      `    ${status.facts!.contradictions[0]!.id} primary_db = postgresql (2026-02-10, main/memories/2026-02-10-db.md:4) ` +
        'vs mysql (2026-03-01, main/memories/2026-03-01-db.md:6)\n',
    );
    const plain = memories.filter((m) => m.facts === undefined);
    expect(
      streamStatus({ name: 'main', memories: plain, summaries: new Map() }, config, '/nonexistent', '/nonexistent', at),
    ).not.toHaveProperty('facts');
  });
});

describe('the package shows the facts within its budget', () => {
  const config = configSchema.parse({});
  const now = new Date('2026-03-05T12:00:00Z');
  const packageFor = (list: readonly Memory[], max_tokens = config.upload.max_tokens) =>
    assemblePackage({
      stream: 'main',
      vaultLabel: 'vault',
      bands: computeBands(now, 'UTC', config.upload),
      memories: list,
      summaries: new Map(),
      upload: { ...config.upload, max_tokens },
      tokenizer: config.tokenizer,
      readMemory: (memory) => ({
        body: bodyOf(memory),
        sentences: [{ text: bodyOf(memory), section: '', block: 0, role: 'context', mustKeep: [] }],
      }),
      readSummary: () => {
        throw new Error('no summaries here');
      },
    });

  it('starts with the unresolved lines after its header and has the compressed facts in force, superseded ones absent', () => {
    const { text, manifest } = packageFor(memories);
    const body = text.split('\n---\n')[1]!;
    const blocks = body.trim().split('\n\n');
    expect(blocks[0]).toBe('# Memory of main');
    expect(blocks[2]).toBe(
      'Unresolved: primary_db = postgresql (2026-02-10, main/memories/2026-02-10-db.md:4) vs mysql (2026-03-01, main/memories/2026-03-01-db.md:6); ' +
        `decide: \`memvault resolve ${manifest.facts!.contradictions[0]} --keep a|b|both\``,
    );
    expect(text).toContain('## Facts in force on 2026-03-05\n\n- cache: redis (eu)\n- oncall: ana\n- queue: kafka\n');
    expect(text).not.toMatch(/queue: sqs|primary_db: /);
    expect(manifest.facts).toEqual({ contradictions: [expect.stringMatching(/^c-[0-9a-f]{8}$/)], in_force: 3, shown: 3 });
  });

  it('cuts facts in force from the end to fit a small budget, names how many, and stays within it', () => {
    const many = load(
      Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [
          `2026-02-${String((i % 27) + 1).padStart(2, '0')}-f${i}.md`,
          `---\ndate: 2026-02-01\n---\nFact: setting_${i} = value number ${i}\n`,
        ]),
      ),
    );
    const full = packageFor(many);
    expect(full.manifest.facts).toMatchObject({ in_force: 60, shown: 60 });
    const small = packageFor(many, 300);
    expect(small.manifest.tokens).toBeLessThanOrEqual(300);
    expect(countTokens(small.text, config.tokenizer)).toBe(small.manifest.tokens);
    const shown = small.manifest.facts!.shown;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(60);
    expect(small.text).toContain(`- … ${60 - shown} more fact(s) in force did not fit: \`memvault facts\``);
  });

  it('is the package it was for memories without facts', () => {
    const plain = memories.filter((m) => m.facts === undefined && m.factProblems === undefined);
    const { text, manifest } = packageFor(plain);
    expect(text).not.toMatch(/Unresolved|Facts in force/);
    expect(manifest).not.toHaveProperty('facts');
  });
});
