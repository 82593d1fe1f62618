import path from 'node:path';
import type { StreamReport } from '../../pipeline/build.js';
import type { TierEstimate } from '../../pipeline/estimate.js';
import { num } from '../output.js';
import { counted } from '../../text/plural.js';

/** `build --dry-run`, one calendar stream: the summaries it would generate and why, held and deferred ones, the package, the estimate. */
export function renderStreamPlan(stream: StreamReport, vault: string): string[] {
  const lines: string[] = [];
  const counts = countBy(stream.planned.map((p) => p.tier));
  lines.push(
    `  ${stream.name}: ${counted(stream.memories, 'memory', 'memories')}; would generate ${
      Object.entries(counts)
        .map(([tier, n]) => `${n} ${tier}`)
        .join(', ') || 'nothing'
    }`,
  );
  for (const p of stream.planned.slice(0, 20)) lines.push(`    ${p.tier} ${p.period} (${p.reason})`);
  if (stream.planned.length > 20) lines.push(`    … ${stream.planned.length - 20} more`);
  for (const held of stream.held) lines.push(`    kept ${held.path} (${held.status})`);
  for (const deferred of stream.deferred) lines.push(`    deferred ${deferred.tier} ${deferred.period}: ${deferred.reason}`);
  const p = stream.packagePlan;
  if (p) lines.push(`    package ${path.join(vault, p.path)}: ${p.write ? `would be written (${p.reason})` : 'unchanged'}`);
  if (stream.estimate) lines.push(...renderEstimate(stream.estimate));
  return lines;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Dry run: what the build would spend, per tier. */
function renderEstimate(estimate: Record<string, TierEstimate>): string[] {
  const rows = Object.entries(estimate).filter(([, e]) => e.summaries > 0);
  if (rows.length === 0) return [];
  const calls = rows.reduce((sum, [, e]) => sum + e.calls, 0);
  const input = rows.reduce((sum, [, e]) => sum + e.inputTokens, 0);
  const output = rows.reduce((sum, [, e]) => sum + e.outputTokens, 0);
  return [
    '    estimate (before retries; output tokens are upper bounds):',
    ...rows.map(
      ([tier, e]) =>
        `    ${tier.padEnd(9)} ${String(e.summaries).padStart(4)} ${e.summaries === 1 ? 'summary' : 'summaries'} (${e.merges} merged), ` +
        `${counted(e.calls, 'call')}, ~${num(e.inputTokens)} in + ≤${num(e.outputTokens)} out tokens`,
    ),
    `    total     ${counted(calls, 'call')}, ~${num(input)} in + ≤${num(output)} out tokens`,
  ];
}
