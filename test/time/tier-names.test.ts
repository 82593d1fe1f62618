import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALENDAR_TIER_TABLE } from '../../src/time/tiers.js';

/**
 * Tier lists and switches over tier names live in the tier table only
 * (src/time/tiers.ts): a file of src/ that writes out two or more calendar
 * tier names close together (an array, a union, an enum, an object keyed by
 * tier, a chain of comparisons) or a `case '<tier>':` is a stray list, and
 * adding a tier would have to find it. A single name used for what only that
 * tier does (`tier === 'daily'` for the day's memories) is not a list.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SRC = path.join(ROOT, 'src');

/** Files that must name tiers, and why. Keep it short: everything else reads the table. */
const ALLOWED: Record<string, string> = {
  'time/tiers.ts': 'the tier table itself',
  'time/tier-names.ts':
    "the tier table's calendar-free columns (time/tiers.ts adds the calendar's), apart so a search starts without luxon",
  'config/schema.ts': 'the budget keys of memory.config.yaml (`calendar.daily` …): user-facing config keys, each with its default',
  'cli/commands/init.ts': 'the memory.config.yaml that `memvault init` writes: user-facing text',
  'llm/extractive/model.ts':
    "the embedded summarizer's section layout per tier, its counterpart of the prompt files (a Record<Tier, Layout>: the compiler asks for a new tier's row)",
};

/** Lines within which two quoted tier names make a list (a multi-line array or if-chain). */
const WINDOW = 3;
/** Lines within which two tier-named keys make an object keyed by tier (values may be objects of a few lines). */
const KEY_WINDOW = 12;

const NAMES = [...new Set(CALENDAR_TIER_TABLE.flatMap((row) => [row.name, row.label]))];
const alternatives = NAMES.map((name) => name.replace(/[-]/g, '\\-')).join('|');
/** A quoted tier name (`'weekly'`). */
const QUOTED = new RegExp(`(['"])(${alternatives})\\1`, 'g');
/** An object key named for a tier (`weekly:`, `'long-term':`), not a property read (`.weekly`) nor a parameter (`(daily: Summary`). */
const KEY = new RegExp(`(?<![.\\w(-])(['"]?)(${alternatives})\\1:(?!//)`, 'g');
const CASE = new RegExp(`\\bcase\\s+(['"])(${alternatives})\\1`);

export interface Finding {
  file: string;
  line: number;
  kind: 'list' | 'switch';
  names: string[];
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The code of a line without its comment (`//` outside strings, or a doc-comment line). */
function codeOf(line: string): string {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('//')) return '';
  const comment = line.search(/\s\/\/\s/);
  return comment >= 0 ? line.slice(0, comment) : line;
}

/** Stray tier lists and switches in one file's text. */
export function strayTierLists(file: string, text: string): Finding[] {
  const lines = text.split('\n').map(codeOf);
  const quoted = lines.map((line) => [...line.matchAll(QUOTED)].map((match) => match[2]!));
  const keys = lines.map((line) => [...line.matchAll(KEY)].map((match) => match[2]!));
  const findings: Finding[] = [];
  let listedUpTo = -1;
  for (let i = 0; i < lines.length; i++) {
    if (CASE.test(lines[i]!)) findings.push({ file, line: i + 1, kind: 'switch', names: quoted[i]!, text: lines[i]!.trim() });
    if (i <= listedUpTo) continue;
    const nearQuoted = new Set([...quoted.slice(i, i + WINDOW).flat(), ...keys.slice(i, i + WINDOW).flat()]);
    const nearKeys = new Set(keys.slice(i, i + KEY_WINDOW).flat());
    if (quoted[i]!.length + keys[i]!.length === 0) continue;
    const near = nearKeys.size >= 2 && keys[i]!.length > 0 ? nearKeys : nearQuoted;
    if (near.size >= 2) {
      findings.push({ file, line: i + 1, kind: 'list', names: [...near], text: lines[i]!.trim() });
      listedUpTo = i + (near === nearKeys ? KEY_WINDOW : WINDOW) - 1;
    }
  }
  return findings;
}

describe('tier names outside the tier table', () => {
  it('no file of src/ writes out a list of tiers or a switch over them', () => {
    const findings = sourceFiles(SRC)
      .map((full) => path.relative(SRC, full).split(path.sep).join('/'))
      .filter((file) => ALLOWED[file] === undefined)
      .flatMap((file) => strayTierLists(file, readFileSync(path.join(SRC, file), 'utf8')));
    const report = findings.map((f) => `src/${f.file}:${f.line} ${f.kind} of ${f.names.join(', ')}: ${f.text}`);
    expect(report, 'read the tier table (src/time/tiers.ts) instead, or add a column to it').toEqual([]);
  });

  it('every allowed file still names tiers (an entry that is no longer needed is removed)', () => {
    for (const file of Object.keys(ALLOWED)) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      expect(strayTierLists(file, text).length + (file === 'time/tiers.ts' ? 1 : 0), file).toBeGreaterThan(0);
    }
  });

  it('finds the lists and switches it is meant to find', () => {
    const found = (text: string) => strayTierLists('x.ts', text).map((f) => f.kind);
    expect(found(`const TIERS = ['daily', 'weekly', 'monthly'];`)).toEqual(['list']);
    expect(found(`type T = 'daily' | 'longterm';`)).toEqual(['list']);
    expect(found(`switch (tier) {\n  case 'daily':\n    return 1;\n}`)).toEqual(['switch']);
    expect(found(`const budgets = {\n  daily: a,\n  weekly: b,\n};`)).toEqual(['list']);
    expect(found(`const LAYOUTS = {\n  daily: {\n    a: 1,\n    b: 2,\n    c: 3,\n  },\n  weekly: {\n    a: 1,\n  },\n};`)).toEqual([
      'list',
    ]);
    expect(found(`if (tier === 'daily') return a;\nif (tier === 'weekly') return b;`)).toEqual(['list']);
    expect(found(`x === 'long-term' || x === 'monthly'`)).toEqual(['list']);
    // One tier's own behaviour, property reads, comments and prose are not lists.
    expect(found(`if (tier === 'daily') return day;`)).toEqual([]);
    expect(found(`const held = (daily: Summary, weekly: Summary) => lists(weekly, daily);`)).toEqual([]);
    expect(found(`const b = config.calendar.daily; const c = config.calendar.weekly;`)).toEqual([]);
    expect(found(`// the daily, weekly and monthly summaries\n * 'daily' | 'weekly'`)).toEqual([]);
    expect(found(`help('show the daily, weekly or monthly summaries')`)).toEqual([]);
  });
});
