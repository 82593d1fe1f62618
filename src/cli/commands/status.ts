import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { Manifest } from '../../pipeline/package.js';
import { memoriesUpTo, renderWaterfallStatus, waterfallStatus, type WaterfallStatus } from '../../pipeline/waterfall-build.js';
import { UserError } from '../../util/errors.js';
import { loadVaultWithWorkers, vaultLoadOptions } from '../../pipeline/build-pool.js';
import { CALENDAR_TIERS, type Diagnostic, type StreamState, type Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { findRoot, resolveNow } from '../context.js';
import { formatDiagnostic, num } from '../output.js';

export interface StatusCommandOptions {
  root?: string;
  /** Waterfall streams: memories dated after it are not counted yet, as in a build (default: the clock). */
  now?: string;
  json?: boolean;
}

export interface TierStatus {
  count: number;
  tokens_total: number;
  tokens_max: number;
  budget_tokens: number;
  over_budget: string[];
  edited: string[];
  /** Must-keep items of the sources, summed over the tier's summaries that record them, and how many were dropped. */
  retention: { items: number; dropped: number; rate: number | null };
}

export interface StreamStatus {
  name: string;
  memories: number;
  archived: number;
  pinned: number;
  coverage: { first_day: string | null; last_day: string | null; days_with_memories: number };
  tiers: Record<string, TierStatus>;
  package: {
    path: string;
    tokens: number;
    bytes: number;
    max_tokens: number;
    max_bytes: number;
    degraded: number;
    left_out: number;
  } | null;
  /** Streams with `waterfall: true`: position, sizes and the integrity report. */
  waterfall?: WaterfallStatus;
}

/** `memvault status`: a read-only look at the vault; it takes no lock and writes nothing. */
export async function statusCommand(options: StatusCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const { config, errors } = await loadConfig(root);
  if (errors.length > 0) {
    for (const d of errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
    throw new UserError('memory.config.yaml is invalid', 'fix the lines listed above', 'config/invalid');
  }
  const vaultDir = path.resolve(root, config.vault);
  const loaded = await loadVaultWithWorkers(vaultLoadOptions(root, config));
  const now = resolveNow(options.now);
  const streams = [...loaded.state.streams.values()].map((stream): StreamStatus => {
    const status = streamStatus(stream, config, vaultDir, root);
    if (!config.streams[stream.name]?.waterfall) return status;
    return {
      ...status,
      waterfall: waterfallStatus({ ...stream, memories: memoriesUpTo(stream.memories, now, config.timezone) }, config, vaultDir),
    };
  });
  const status = {
    vault: vaultDir,
    streams,
    invalid: loaded.state.diagnostics,
    held_for_secrets: heldForSecrets(loaded.state.diagnostics),
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return;
  }
  process.stdout.write(render(streams, loaded.state.diagnostics, config));
}

/** One stream's counts, tiers and package (also the MCP `status` tool's answer). */
export function streamStatus(stream: StreamState, config: Config, vaultDir: string, root: string): StreamStatus {
  const tiers: Record<string, TierStatus> = {};
  for (const tier of CALENDAR_TIERS) {
    const summaries = [...stream.summaries.values()].filter((s) => s.meta.tier === tier);
    tiers[tier] = {
      count: summaries.length,
      tokens_total: summaries.reduce((sum, s) => sum + s.meta.tokens, 0),
      tokens_max: summaries.reduce((max, s) => Math.max(max, s.meta.tokens), 0),
      budget_tokens: config.calendar[tier].target_tokens,
      over_budget: summaries.filter((s) => s.meta.review?.includes('over-budget')).map((s) => s.path),
      edited: summaries.filter((s) => s.bodyHash !== s.meta.output_hash).map((s) => s.path),
      retention: retentionOf(summaries),
    };
  }
  const days = [...new Set(stream.memories.map((m) => m.day))].sort();
  let manifest: Manifest | undefined;
  try {
    manifest = JSON.parse(readFileSync(path.join(vaultDir, vaultPaths.manifest(stream.name)), 'utf8')) as Manifest;
  } catch {
    manifest = undefined;
  }
  return {
    name: stream.name,
    memories: stream.memories.length,
    archived: stream.memories.filter((m) => m.location === 'archive').length,
    pinned: stream.memories.filter((m) => m.importance === 'pinned').length,
    coverage: { first_day: days[0] ?? null, last_day: days[days.length - 1] ?? null, days_with_memories: days.length },
    tiers,
    package: manifest
      ? {
          path: path.relative(root, path.join(vaultDir, vaultPaths.package(stream.name))),
          tokens: manifest.tokens,
          bytes: manifest.bytes,
          max_tokens: manifest.budget.max_tokens,
          max_bytes: manifest.budget.max_bytes,
          degraded: manifest.items.filter((i) => i.status === 'degraded').length,
          left_out: manifest.items.filter((i) => i.status === 'left-out').length,
        }
      : null,
  };
}

/** Retention of a tier: must-keep items kept over items looked for, over the summaries that recorded a check. */
function retentionOf(summaries: readonly Summary[]): TierStatus['retention'] {
  let items = 0;
  let dropped = 0;
  for (const summary of summaries) {
    if (summary.meta.must_keep === undefined) continue;
    items += summary.meta.must_keep;
    dropped += summary.meta.dropped?.length ?? 0;
  }
  return { items, dropped, rate: items > 0 ? (items - dropped) / items : null };
}

/** Memories the loader held back because they hold a secret (rule `secret/<kind>`). */
function heldForSecrets(diagnostics: readonly Diagnostic[]): string[] {
  return [...new Set(diagnostics.filter((d) => d.rule.startsWith('secret/')).map((d) => d.path))].sort();
}

function render(streams: readonly StreamStatus[], diagnostics: readonly Diagnostic[], config: Config): string {
  const lines: string[] = [];
  for (const s of streams) {
    lines.push(
      `${s.name}: ${num(s.memories)} memories (${s.archived} archived, ${s.pinned} pinned), ${s.coverage.first_day ? `${s.coverage.first_day} to ${s.coverage.last_day}, ${s.coverage.days_with_memories} days` : 'no memories yet'}`,
    );
    if (s.waterfall) lines.push(...renderWaterfallStatus(s.waterfall));
    // A waterfall-only stream (`calendar: false`) has no calendar tiers nor package to show.
    if (config.streams[s.name]?.calendar === false) continue;
    lines.push('  tier       count  tokens (max / budget)  retention (kept / must-keep)  review');
    for (const [tier, t] of Object.entries(s.tiers)) {
      const review = [
        t.over_budget.length > 0 ? `${t.over_budget.length} over budget` : '',
        t.edited.length > 0 ? `${t.edited.length} edited` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const r = t.retention;
      const retention = r.rate === null ? '-' : `${(r.rate * 100).toFixed(1)}% (${num(r.items - r.dropped)} / ${num(r.items)})`;
      lines.push(
        `  ${tier.padEnd(9)} ${String(t.count).padStart(6)}  ${`${num(t.tokens_max)} / ${num(t.budget_tokens)}`.padStart(21)}  ${retention.padStart(28)}  ${review || '-'}`,
      );
    }
    if (s.package) {
      const p = s.package;
      lines.push(
        `  package: ${p.path} ${num(p.tokens)}/${num(p.max_tokens)} tokens, ${num(p.bytes)}/${num(p.max_bytes)} bytes${p.degraded + p.left_out > 0 ? `, ${p.degraded} degraded, ${p.left_out} left out` : ''}`,
      );
    } else lines.push('  package: not built yet (run `memvault build`)');
  }
  const held = heldForSecrets(diagnostics);
  if (held.length > 0)
    lines.push(
      `held back for secrets: ${held.length} memor${held.length === 1 ? 'y' : 'ies'} (not summarized, packaged, sent or committed; \`memvault redact PATH\` or mark a false positive)`,
    );
  if (diagnostics.length > 0) {
    lines.push(`invalid files (${diagnostics.length}):`);
    for (const d of diagnostics) lines.push(formatDiagnostic(d, '  '));
  }
  return `${lines.join('\n')}\n`;
}
