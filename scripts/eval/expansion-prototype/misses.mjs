import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const D = '/work/wt/ctx-expand/dist';
const { convertSample } = await import(`${D}/scripts/eval/locomo.js`);
const { readRealtalk } = await import(`${D}/scripts/eval/realtalk.js`);
const { buildOrReuse } = await import(`${D}/scripts/eval/project.js`);
const { evidenceIds, normalizeText } = await import(`${D}/scripts/eval/metrics.js`);
const { assembleContext } = await import(`${D}/src/read/context/assemble.js`);
const { openContextSearch } = await import(`${D}/src/read/context/warm.js`);
const { openVault, pickStream } = await import(`${D}/src/read/vault.js`);
const { analyze } = await import(`${D}/src/search/analyzer.js`);
const [dataset, only, budget] = process.argv.slice(2);
const samples = dataset === 'locomo' ? JSON.parse(readFileSync('/work/wt/ctx-expand/data/locomo10.json', 'utf8')) : readRealtalk('/work/wt/ctx-expand/data/realtalk');
const pick = only.split(',').map(Number);
const convs = samples.map((s, i) => convertSample(s, i + 1)).filter((_, i) => pick.includes(i + 1));
const lines = [];
let miss = 0, zero = 0, total = 0;
for (const c of convs) {
  const { root } = await buildOrReuse(c, '', path.join(`/tmp/ctx-expand/proj-${dataset}`, `${c.sampleId}-${c.stream}`));
  const vault = await openVault(root); const stream = pickStream(vault, c.stream); const search = openContextSearch(vault);
  const turns = new Map(); for (const s of c.sessions) for (const [id, t] of s.turns) turns.set(id, t);
  for (const qa of c.qa.filter((q) => q.category >= 1 && q.category <= 4)) {
    const { context } = assembleContext(vault, search, { stream: stream.name, budget: Number(budget), now: new Date(c.now), signals: { query: qa.question } });
    const hay = normalizeText(context.replace(/\s*\((?:[^()]*\d{4})\)/g, ''));
    const q = new Set(analyze(qa.question).split(' '));
    for (const id of new Set(evidenceIds(qa))) {
      const t = turns.get(id); if (!t) continue; total++;
      const body = t.replace(/^[^:]+:\s*/, '');
      const norm = normalizeText(body.replace(/\s*\[image:[^\]]*\]\s*$/, '')).slice(0, 60);
      if (hay.includes(norm)) continue;
      miss++;
      const common = analyze(body).split(' ').filter((s) => q.has(s));
      const name = t.split(':')[0];
      const content = common.filter((s) => !c.speakers.map((x) => x.toLowerCase()).includes(s));
      if (content.length === 0) zero++;
      lines.push(`[${qa.category}] Q: ${qa.question} | A: ${qa.answer}\n    miss ${id}: ${t.slice(0, 200)}\n    common: ${common.join(' ')}`);
    }
  }
}
writeFileSync(`/tmp/ctx-expand/misses-${dataset}-${budget}.txt`, lines.join('\n'));
console.log(`evidence turns ${total}, missing ${miss}, missing with no content word in common ${zero}`);
