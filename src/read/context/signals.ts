import path from 'node:path';

/**
 * What the caller is doing, turned into search queries: the query itself,
 * the file being edited (its path, module and name), an error text and the
 * git branch. Pure.
 */
export interface Signals {
  query?: string;
  file?: string;
  error?: string;
  branch?: string;
}

/** Branch words that say nothing about the topic. */
const BRANCH_NOISE = new Set([
  'feature',
  'feat',
  'fix',
  'bugfix',
  'hotfix',
  'chore',
  'main',
  'master',
  'dev',
  'develop',
  'release',
  'head',
]);

/** One search query per signal, in a fixed order (query, error, file, branch); empty signals are skipped. */
export function signalQueries(signals: Signals): { signal: keyof Signals; text: string }[] {
  const out: { signal: keyof Signals; text: string }[] = [];
  if (signals.query?.trim()) out.push({ signal: 'query', text: signals.query.trim() });
  // An error's first line holds the message; stack frames after it are noise for a word search.
  if (signals.error?.trim()) out.push({ signal: 'error', text: signals.error.trim().split('\n')[0]!.slice(0, 300) });
  if (signals.file?.trim()) {
    const file = signals.file.trim().replace(/\\/g, '/');
    const name = path.posix.basename(file).replace(/\.[^.]+$/, '');
    const module = path.posix.basename(path.posix.dirname(file));
    out.push({ signal: 'file', text: [...new Set([module, name].filter((w) => w && w !== '.' && w !== 'src'))].join(' ') });
  }
  if (signals.branch?.trim()) {
    const words = signals.branch.split(/[-_/.\s]+/).filter((w) => w.length > 1 && !BRANCH_NOISE.has(w.toLowerCase()) && !/^\d+$/.test(w));
    if (words.length > 0) out.push({ signal: 'branch', text: words.join(' ') });
  }
  return out.filter((q) => q.text.length > 0);
}
