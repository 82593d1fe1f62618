import { readFileSync } from 'node:fs';
import { processTerm, tokenize } from '../../search/index.js';

// PROTOTYPE (env-driven) — to be replaced.
interface Graph {
  lemmas: Record<string, number[]>;
  synsets: [string[], number[], number[], string[], number[]][];
}
let graph: Graph | undefined;
function load(): Graph | undefined {
  const file = process.env.XW_GRAPH;
  if (!file) return undefined;
  graph ??= JSON.parse(readFileSync(file, 'utf8')) as Graph;
  return graph;
}
const num = (name: string, fallback: number): number => (process.env[name] !== undefined ? Number(process.env[name]) : fallback);

const RULES: [string, string][] = [
  ['s', ''],
  ['ses', 's'],
  ['xes', 'x'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['es', 'e'],
  ['es', ''],
  ['ed', 'e'],
  ['ed', ''],
  ['ing', 'e'],
  ['ing', ''],
];
function lemmasOf(word: string, g: Graph): string[] {
  const out = new Set<string>();
  if (Object.hasOwn(g.lemmas, word)) out.add(word);
  for (const [suffix, repl] of RULES)
    if (word.endsWith(suffix) && word.length > suffix.length + 2) {
      const base = word.slice(0, -suffix.length) + repl;
      if (Object.hasOwn(g.lemmas, base)) out.add(base);
    }
  return [...out];
}

const single = (w: string): boolean => /^[a-z][a-z-]*$/.test(w);

export const expansionOf = new Map<string, string>();
export function expansionsOf(query: string, known: readonly string[]): Map<string, number> {
  expansionOf.clear();
  const g = load();
  const out = new Map<string, number>();
  if (!g) return out;
  const wSyn = num('XW_SYN', 0);
  const wHypo = num('XW_HYPO', 0);
  const wHyper = num('XW_HYPER', 0);
  const wDeriv = num('XW_DERIV', 0);
  const wSim = num('XW_SIM', 0);
  const depth = num('XW_DEPTH', 3);
  const senses = num('XW_SENSES', 99);
  const skip = new Set(known);
  let source = '';
  const add = (word: string, weight: number): void => {
    if (weight <= 0 || !single(word)) return;
    const s = processTerm(word);
    if (!s || skip.has(s)) return;
    if ((out.get(s) ?? 0) < weight) out.set(s, weight);
    if (process.env.XW_COUNT) expansionOf.set(s, source);
  };
  for (const word of new Set(tokenize(query).map((w) => w.toLowerCase()))) {
    source = processTerm(word);
    for (const lemma of lemmasOf(word, g)) {
      for (const id of g.lemmas[lemma]!.slice(0, senses)) {
        const [words, hypo, hyper, deriv, similar] = g.synsets[id]!;
        for (const w of words) add(w, wSyn);
        for (const w of deriv) add(w, wDeriv);
        for (const h of hyper) for (const w of g.synsets[h]![0]) add(w, wHyper);
        for (const s of similar) for (const w of g.synsets[s]![0]) add(w, wSim);
        if (wHypo > 0) {
          let frontier = hypo;
          for (let d = 0; d < depth && frontier.length > 0; d++) {
            const next: number[] = [];
            for (const h of frontier) {
              for (const w of g.synsets[h]![0]) add(w, wHypo);
              next.push(...g.synsets[h]![1]);
            }
            frontier = next;
          }
        }
      }
    }
  }
  return out;
}
