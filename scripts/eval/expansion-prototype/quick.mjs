// Quick per-question eval: context rows only (and bm25 with BM=1), selected conversations.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const D = '/work/wt/ctx-expand/dist';
const { convertSample } = await import(`${D}/scripts/eval/locomo.js`);
const { readRealtalk } = await import(`${D}/scripts/eval/realtalk.js`);
const { buildOrReuse } = await import(`${D}/scripts/eval/project.js`);
const { measureQuestions } = await import(`${D}/scripts/eval/per-question.js`);
const { rates } = await import(`${D}/scripts/eval/metrics.js`);
const { emptyTally } = await import(`${D}/scripts/eval/metrics.js`);
const [dataset, only, budgetsArg] = process.argv.slice(2);
const budgets = (budgetsArg ?? '1000,2000').split(',').map(Number);
const samples = dataset === 'locomo' ? JSON.parse(readFileSync('/work/wt/ctx-expand/data/locomo10.json', 'utf8')) : readRealtalk('/work/wt/ctx-expand/data/realtalk');
const pick = only === 'all' ? null : only.split(',').map(Number);
const convs = samples.map((s, i) => convertSample(s, i + 1)).filter((_, i) => !pick || pick.includes(i + 1));
const rows = budgets.flatMap((b) => (process.env.BM ? [{ kind: 'context', budget: b }, { kind: 'bm25', budget: b }] : [{ kind: 'context', budget: b }]));
const totals = { rows, answer: rows.map(emptyTally), evidence: rows.map(emptyTally), turns: rows.map(emptyTally), tokens: new Map(budgets.map((b) => [b, []])) };
const projects = `/tmp/ctx-expand/proj-${dataset}`;
const t0 = performance.now();
for (const c of convs) {
  const { root } = await buildOrReuse(c, '', path.join(projects, `${c.sampleId}-${c.stream}`));
  await measureQuestions(root, c, totals);
}
const f = (x) => (x == null ? '—' : x.toFixed(3));
const out = rows.map((r, i) => {
  const e = rates(totals.evidence[i]), a = rates(totals.answer[i]), t = rates(totals.turns[i]);
  return `${r.kind}@${r.budget}: ev ${f(e.overall)} ans ${f(a.overall)} turns ${f(t.overall)} [mh ${f(t.byCategory[1])} od ${f(t.byCategory[3])}]`;
});
console.log(`${process.env.TAG ?? ''} ${dataset} ${only} (${Math.round((performance.now() - t0) / 1000)} s)\n  ${out.join('\n  ')}`);
