import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderErrorsDoc } from '../../src/messages/doc.js';
import { diagnostic, formatFailure, hintFor, placeholders, RULES, ruleSpec, ruleUrl } from '../../src/messages/index.js';
import { UserError } from '../../src/util/errors.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SRC = path.join(REPO, 'src');

/** Every `.ts` file under src/ but the catalogue itself, with its text. */
function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (full !== path.join(SRC, 'messages')) walk(full);
      } else if (entry.name.endsWith('.ts')) out.push({ file: path.relative(REPO, full), text: readFileSync(full, 'utf8') });
    }
  };
  walk(SRC);
  return out;
}

const catalogued = Object.keys(RULES);
const areas = new Set(catalogued.map((id) => id.split('/')[0]!));
const ID = String.raw`([a-z][a-z0-9]*\/[a-z0-9][a-z0-9-]*)`;
/** Where a rule id is written: `rule: '…'`, `RULE = '…'`, the first argument of a UserError or diagnostic, the last of an old-style UserError. */
const RULE_PLACES = [
  new RegExp(String.raw`\brule:\s*'${ID}'`, 'g'),
  new RegExp(String.raw`\bRULE\s*=\s*'${ID}'`, 'g'),
  new RegExp(String.raw`\b(?:UserError|diagnostic)\(\s*'${ID}'`, 'g'),
  new RegExp(String.raw`'${ID}',?\s*\)`, 'g'),
];

/** Rule ids src/ uses: in a rule position, or any literal `area/name` of a catalogued area (ids passed through a variable). */
function usedRules(): Map<string, string> {
  const used = new Map<string, string>();
  for (const { file, text } of sources()) {
    for (const re of RULE_PLACES) for (const m of text.matchAll(re)) if (!used.has(m[1]!)) used.set(m[1]!, file);
    for (const m of text.matchAll(new RegExp(`'${ID}'`, 'g')))
      if (areas.has(m[1]!.split('/')[0]!) && !used.has(m[1]!)) used.set(m[1]!, file);
  }
  return used;
}

describe('the rule catalogue', () => {
  const used = usedRules();
  const texts = sources();

  it('has every rule id src/ uses', () => {
    const missing = [...used].filter(([id]) => !ruleSpec(id)).map(([id, file]) => `${id} (${file})`);
    expect(missing, 'add these to src/messages/rules/').toEqual([]);
    // The scan itself finds rules of every kind of site: a diagnostic, a UserError, a parser's RULE constant.
    expect([...used.keys()]).toEqual(expect.arrayContaining(['memory/no-date', 'lock/busy', 'config/yaml', 'ingest/claude-code']));
  });

  it('has no entry src/ never uses', () => {
    const unused = catalogued.filter((id) =>
      id === 'secret/{kind}' ? !texts.some(({ text }) => text.includes('`secret/${')) : !used.has(id),
    );
    expect(unused, 'remove these from src/messages/rules/, or use them').toEqual([]);
  });

  it('every UserError names its rule first and takes its hint from the catalogue (no message, hint, rule calls left)', () => {
    const oldStyle: string[] = [];
    for (const { file, text } of texts)
      for (const m of text.matchAll(/new UserError\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)/g))
        if (/'[a-z][a-z0-9]*\/[a-z0-9-]+',?\s*$/.test(m[1]!)) oldStyle.push(`${file}: ${m[0].slice(0, 80)}`);
    expect(oldStyle, 'write `new UserError(rule, reason, facts)` and put the hint in src/messages/rules/').toEqual([]);
  });

  it('gives each entry a title, a severity and a hint; ids are area/name', () => {
    for (const [id, spec] of Object.entries(RULES)) {
      expect(id).toMatch(/^[a-z][a-z0-9]*\/(?:[a-z0-9][a-z0-9-]*|\{kind\})$/);
      expect(spec.title.length, id).toBeGreaterThan(5);
      expect(['error', 'warning', 'info']).toContain(spec.severity);
      expect(spec.hint.length, id).toBeGreaterThan(5);
    }
  });

  it('docs/errors.md is what the generator writes (run `npm run errors-doc` after changing a rule)', () => {
    expect(readFileSync(path.join(REPO, 'docs', 'errors.md'), 'utf8')).toBe(renderErrorsDoc());
  });

  it('links each rule to its section of docs/errors.md', () => {
    const doc = renderErrorsDoc();
    for (const id of catalogued) expect(doc, id).toContain(`<a id="${ruleUrl(id).split('#')[1]}"></a>`);
    expect(ruleUrl('secret/github-token')).toBe('docs/errors.md#secret-kind');
    expect(ruleUrl('memory/no-date')).toBe('docs/errors.md#memory-no-date');
  });
});

describe('messages from the catalogue', () => {
  it('fills a hint from the facts a site passes; a missing fact shows', () => {
    expect(placeholders(RULES['cli/number'].hint)).toEqual(['flag', 'example']);
    expect(hintFor('cli/number', { flag: '--limit', example: 20 })).toBe('e.g. --limit 20');
    expect(hintFor('cli/number', { flag: '--limit' })).toBe('e.g. --limit {example}');
    expect(hintFor('secret/github-token', { path: 'main/memories/a.md' })).toContain('[REDACTED:github-token]');
  });

  it('a diagnostic takes its severity and hint from the rule, in the key order index.json has', () => {
    const d = diagnostic('memory/duplicate-id', { path: 'main/memories/a.md', line: 1, column: 1 }, 'duplicate memory id `a`');
    expect(Object.keys(d)).toEqual(['path', 'line', 'column', 'severity', 'reason', 'hint', 'rule']);
    expect(d.severity).toBe('warning');
    expect(d.hint).toBe(RULES['memory/duplicate-id'].hint);
  });

  it('a UserError carries the rule, the catalogue hint and the file problems behind it; the CLI prints them in that order', () => {
    const problem = diagnostic('config/yaml', { path: 'memory.config.yaml', line: 3, column: 1 }, 'invalid YAML: bad indentation');
    const error = new UserError('config/invalid', 'memory.config.yaml is invalid (1 problem)', {}, { diagnostics: [problem] });
    expect(error).toMatchObject({ rule: 'config/invalid', hint: 'fix the lines listed above', severity: 'error', source: 'memvault' });
    expect(error.url).toBe('docs/errors.md#config-invalid');
    expect(formatFailure(error)).toBe(
      'memory.config.yaml:3:1 error invalid YAML: bad indentation (hint: fix the YAML syntax at this position ' +
        '(indentation, a missing `:` or an unclosed quote)) [config/yaml]\n' +
        'memvault: memory.config.yaml is invalid (1 problem)\n  hint: fix the lines listed above [config/invalid]\n',
    );
  });
});
