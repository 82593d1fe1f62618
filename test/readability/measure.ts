import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Readability, readabilityOf, sumReadability } from '../../src/llm/extractive/standalone.js';

/** Summary files of a built project: dailies, weeklies, monthlies and long-term of each stream, and the package. */
export function summaryFiles(root: string, vaultFolder = 'vault'): string[] {
  const vault = path.join(root, vaultFolder);
  const files: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) files.push(full);
    }
  };
  for (const stream of readdirSync(vault, { withFileTypes: true })) {
    if (!stream.isDirectory()) continue;
    for (const tier of ['daily', 'weekly', 'monthly']) walk(path.join(vault, stream.name, tier));
    for (const file of ['longterm.md', 'UPLOAD_PACKAGE.md']) {
      const full = path.join(vault, stream.name, file);
      if (existsSync(full)) files.push(full);
    }
  }
  return files.sort();
}

/** The package's critical section and its memories in full detail are memories as written: measured are its summaries. */
function measuredBody(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('UPLOAD_PACKAGE.md')) return text;
  return text.replace(/^## (?:Critical|Memories in full detail)[\s\S]*?(?=^## |(?![\s\S]))/gm, '');
}

/** Readability of every summary unit of a built project. */
export function measureProject(root: string): Readability {
  return sumReadability(summaryFiles(root).map((file) => readabilityOf(measuredBody(file))));
}

/** Shares, for messages and the README. */
export function shares(r: Readability): Record<'toolCalls' | 'leadIns' | 'references' | 'fragments', number> {
  const of = (n: number): number => (r.units === 0 ? 0 : n / r.units);
  return { toolCalls: of(r.toolCalls), leadIns: of(r.leadIns), references: of(r.references), fragments: of(r.fragments) };
}
