import path from 'node:path';
import type { Config } from '../config/schema.js';
import { type ContradictionJson, contradictionJson, factSurface, statesFacts } from '../facts/surface.js';
import { type ForgottenMemory, policyOf } from '../maintain/forgetting.js';
import type { LeftOut } from '../maintain/left-out.js';
import type { UsageRanking } from '../usage/rank.js';
import { CALENDAR_TIERS, type Diagnostic, type Memory, type StreamState, type Summary, type VaultState } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import { todayIn } from '../time/periods.js';
import { memoriesUpTo } from './now.js';
import type { Manifest } from './package/index.js';
import { readWaterfallFiles, type WaterfallFiles, type WaterfallStatus, waterfallStatusOf } from './waterfall/status.js';
import { readManifestFile } from './package/manifest-file.js';

/**
 * `memvault status` as data, for both kinds of stream: a pure function of
 * the loaded vault, the config, `now` and the outputs found on disk
 * (`readStatusFiles` reads those). The CLI only renders it.
 */

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
  /** The most and least used items: what context, search and zoom served (src/usage/). */
  usage?: UsageRanking;
  /** Facts, when a memory of the stream states one: how many hold today, and the open contradictions (src/facts/). */
  facts?: { in_force: number; contradictions: ContradictionJson[] };
  /** What the package's detail and the context leave out today (src/maintain/left-out.ts): forgotten memories and marked copies. */
  maintenance?: MaintenanceStatus;
}

export interface MaintenanceStatus {
  /** `forget_after_days`, or null when the stream has `forget: false`. */
  forget_after_days: number | null;
  forgotten: { count: number; memories: ForgottenMemory[] };
  /** Copies marked `duplicate_of` (left out of new summaries too): `{ id, duplicate_of }`. */
  duplicates: { count: number; memories: { id: string; duplicate_of: string }[] };
}

/** The status of what a stream leaves out, from `leftOutOf`. Pure. */
export function maintenanceStatus(leftOut: LeftOut, config: Config, stream: string): MaintenanceStatus {
  const policy = policyOf(config, stream);
  return {
    forget_after_days: policy.enabled ? policy.afterDays : null,
    forgotten: { count: leftOut.forgotten.length, memories: [...leftOut.forgotten] },
    duplicates: { count: leftOut.duplicates.size, memories: [...leftOut.duplicates].map(([id, of]) => ({ id, duplicate_of: of })) },
  };
}

export interface VaultStatus {
  /** Absolute path of the vault folder. */
  vault: string;
  streams: StreamStatus[];
  /** Problems of files the loader could not use. */
  invalid: Diagnostic[];
  /** Memories held back because they hold a secret. */
  held_for_secrets: string[];
}

/** The generated files status reads, per stream: the package manifest and, for waterfall streams, CONTEXT.md and the history copies. */
export interface StatusFiles {
  manifests: ReadonlyMap<string, Manifest | undefined>;
  waterfall: ReadonlyMap<string, WaterfallFiles>;
}

export interface StatusInput {
  config: Config;
  /** Directory holding `memory.config.yaml` (package paths are shown relative to it). */
  root: string;
  state: VaultState;
  /** Waterfall streams count memories dated up to `now`, as a build does. */
  now: Date;
  files: StatusFiles;
}

/** Reads the generated files `vaultStatus` needs. */
export function readStatusFiles(root: string, config: Config, state: VaultState): StatusFiles {
  const vaultDir = path.resolve(root, config.vault);
  const manifests = new Map<string, Manifest | undefined>();
  const waterfall = new Map<string, WaterfallFiles>();
  for (const name of state.streams.keys()) {
    manifests.set(name, readManifest(vaultDir, name));
    if (config.streams[name]?.waterfall) waterfall.set(name, readWaterfallFiles(vaultDir, name));
  }
  return { manifests, waterfall };
}

/** The status of every stream of the vault. Pure. */
export function vaultStatus(input: StatusInput): VaultStatus {
  const { config, root, state } = input;
  const vaultDir = path.resolve(root, config.vault);
  const streams = [...state.streams.values()].map((stream): StreamStatus => {
    const status = {
      ...streamStatusOf(stream, config, vaultDir, root, input.files.manifests.get(stream.name)),
      ...factStatusOf(stream.memories, todayIn(input.now, config.timezone)),
    };
    const files = input.files.waterfall.get(stream.name);
    if (!config.streams[stream.name]?.waterfall || !files) return status;
    return {
      ...status,
      waterfall: waterfallStatusOf({ ...stream, memories: memoriesUpTo(stream.memories, input.now, config.timezone) }, config, files),
    };
  });
  return { vault: vaultDir, streams, invalid: state.diagnostics, held_for_secrets: heldForSecrets(state.diagnostics) };
}

/**
 * One stream's counts, tiers, package and facts (those in force on `now`'s day, default the clock), reading its
 * manifest (also the MCP `status` tool's answer).
 */
export function streamStatus(stream: StreamState, config: Config, vaultDir: string, root: string, now = new Date()): StreamStatus {
  return {
    ...streamStatusOf(stream, config, vaultDir, root, readManifest(vaultDir, stream.name)),
    ...factStatusOf(stream.memories, todayIn(now, config.timezone)),
  };
}

function streamStatusOf(stream: StreamState, config: Config, vaultDir: string, root: string, manifest: Manifest | undefined): StreamStatus {
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

function readManifest(vaultDir: string, stream: string): Manifest | undefined {
  return readManifestFile(path.join(vaultDir, vaultPaths.manifest(stream)));
}

/** Retention of a tier: must-keep items kept over items looked for, over the summaries that recorded a check. */
function retentionOf(summaries: readonly Summary[]): TierStatus['retention'] {
  let items = 0;
  let dropped = 0;
  for (const summary of summaries) {
    if (summary.meta.must_keep === undefined) continue;
    items += summary.meta.must_keep;
    dropped += summary.meta.dropped_total ?? summary.meta.dropped?.length ?? 0;
  }
  return { items, dropped, rate: items > 0 ? (items - dropped) / items : null };
}

/** The facts part of a stream's status; nothing for a stream whose memories state no fact (its status is as before facts). */
function factStatusOf(memories: readonly Memory[], today: string): Pick<StreamStatus, 'facts'> {
  if (!statesFacts(memories)) return {};
  const surface = factSurface(memories, today);
  return { facts: { in_force: surface.inForce.length, contradictions: surface.contradictions.map(contradictionJson) } };
}

/** Memories the loader held back because they hold a secret (rule `secret/<kind>`). */
function heldForSecrets(diagnostics: readonly Diagnostic[]): string[] {
  return [...new Set(diagnostics.filter((d) => d.rule.startsWith('secret/')).map((d) => d.path))].sort();
}
