import { statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import type { LoadedVault } from '../load/load.js';
import type { StreamState } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import type { Bands } from './package/bands.js';
import { type ManifestOnDisk, packageBase, type PackagePlan } from './build-plan.js';
import type { StreamReport } from './build-report.js';
import type { BuildContext } from './build-context.js';
import { assemblePackage, CriticalOverBudgetError, type Manifest, packageInputHash } from './package/index.js';
import type { DerivedMemo } from '../store/derived-memo.js';
import { buildIndex, indexInputHash, staleOf, type StreamIndexInput } from './vault-index.js';
import type { Writer } from './writer.js';
import { readManifestFile, readManifestInputHash } from './package/manifest-file.js';
import { readVaultIndex } from './vault-index-file.js';

/** Stage 6, assemble: the package of a stream, and the index of the vault, each written only when its inputs changed. */

/** What writing a package did: its line in the stream's report, its manifest, the files written (none when current). */
export interface PackageOutcome {
  package: NonNullable<StreamReport['package']>;
  manifest: Manifest;
  written: string[];
}

/**
 * Writes a stream's package and manifest unless its input hash says they are
 * current. `planned`: the plan's look at the package, reused when nothing was
 * written for the stream since (saves hashing the whole stream again).
 */
export function writePackage(
  stream: StreamState,
  bands: Bands,
  ctx: BuildContext,
  planned?: PackagePlan,
  /** The manifest the plan read (`PackagePlan.previous`), when nothing wrote the package since: not read again (a busy day's is ~30 MB). */
  onDisk?: { manifest: Manifest | undefined },
  /** `PackagePlan.memoriesDigest`, when the stream's memories are still those the plan hashed (nothing archived since). */
  memoriesDigest?: string,
): PackageOutcome {
  const packagePath = vaultPaths.package(stream.name);
  const manifestPath = vaultPaths.manifest(stream.name);
  const base = packageBase(stream, bands, ctx.config, ctx.leftOut?.get(stream.name), ctx.citationNotes);
  const previous = planned ? planned.previous : onDisk ? onDisk.manifest : readManifest(ctx.vaultDir, stream.name);
  const inputHash = planned ? planned.inputHash : packageInputHash(base, memoriesDigest);
  if (previous && previous.input_hash === inputHash) {
    const current = { path: packagePath, tokens: previous.tokens, bytes: previous.bytes, changed: false, ...countStatuses(previous) };
    return { package: current, manifest: previous, written: [] };
  }
  let assembled;
  try {
    assembled = assemblePackage(
      {
        ...base,
        readMemory: (memory) => ctx.loaded.content.memory(memory),
        readSummary: (summary) => ctx.loaded.content.summary(summary),
        // A shown body without a heading-like line needs no parse: a fresh clone parses few of them.
        readShown: (file) => ctx.loaded.content.shown(file),
        // A shortened memory's opening, from the body's beginning when it is not parsed (a fresh clone).
        readOpening: (memory, count) => ctx.loaded.content.opening(memory, count),
      },
      inputHash,
    );
  } catch (error) {
    if (error instanceof CriticalOverBudgetError) {
      const biggest = error.pinned
        .slice(0, 3)
        .map((p) => `${p.path} (${p.tokens} tokens)`)
        .join(', ');
      throw new UserError(
        'package/critical-over-budget',
        `${error.message} (${ctx.config.upload.max_tokens} tokens / ${ctx.config.upload.max_bytes} bytes allowed)`,
        { biggest },
      );
    }
    throw error;
  }
  const written = ctx.writer.write(
    [
      { path: packagePath, text: assembled.text },
      { path: manifestPath, text: `${JSON.stringify(assembled.manifest, null, 2)}\n` },
    ],
    ctx.options.now,
  );
  const packageReport = {
    path: packagePath,
    tokens: assembled.manifest.tokens,
    bytes: assembled.manifest.bytes,
    changed: written.written.length > 0,
    ...countStatuses(assembled.manifest),
  };
  return { package: packageReport, manifest: assembled.manifest, written: written.written };
}

function countStatuses(manifest: Manifest): { degraded: number; leftOut: number } {
  // Counted, not filtered into arrays: a busy day's manifest lists ~100,000 items, nearly all left out.
  const counts = { degraded: 0, leftOut: 0 };
  for (const item of manifest.items) {
    if (item.status === 'degraded') counts.degraded++;
    else if (item.status === 'left-out') counts.leftOut++;
  }
  return counts;
}

/**
 * Writes `INDEX.md` and `index.json` through `writer` (writer.ts) unless their input hash says they are current
 * (`memo`: see derived-memo.ts). Returns the files written. Read from disk: no stage before it writes them.
 */
export function writeIndex(
  streams: readonly StreamIndexInput[],
  loaded: LoadedVault,
  vaultDir: string,
  writer: Writer,
  memo?: DerivedMemo,
): string[] {
  const diagnostics = loaded.state.diagnostics;
  const previous = readVaultIndex(path.join(vaultDir, vaultPaths.indexJson));
  const compute = () => indexInputHash(streams, diagnostics);
  // Besides the cache's entries: the diagnostics, each stream's held, deferred and package, which memories are up to `now`.
  const key = {
    diagnostics,
    streams: streams.map((s) => {
      const last = s.memories.at(-1);
      const manifest = s.manifest ? [s.manifest.input_hash, s.manifest.tokens, s.manifest.bytes] : null;
      const memories = [s.memories.length, last?.path, last?.sha256];
      return { name: s.name, memories, summaries: s.summaries.length, held: s.held, deferred: s.deferred, manifest, ...staleOf(s) };
    }),
  };
  const inputHash = memo?.value('index', key, compute) ?? compute();
  if (previous?.input_hash === inputHash && fileExists(path.join(vaultDir, vaultPaths.indexMarkdown))) return [];
  const index = buildIndex(streams, diagnostics, (summary) => loaded.content.summary(summary), { previous, inputHash });
  const written = writer.write(
    [
      { path: vaultPaths.indexMarkdown, text: index.markdown },
      { path: vaultPaths.indexJson, text: `${JSON.stringify(index.json, null, 2)}\n` },
    ],
    new Date(0),
  );
  return written.written;
}

/** A stream's manifest as the plan sees it: the input hash its end names, the whole read only when asked (once). */
export function manifestOnDisk(vaultDir: string, stream: string): ManifestOnDisk {
  let read: { manifest: Manifest | undefined } | undefined;
  // Without the package file the manifest is none, whatever its end says.
  const packageThere = fileExists(path.join(vaultDir, vaultPaths.package(stream)));
  const file = path.join(vaultDir, vaultPaths.manifest(stream));
  return {
    inputHash: packageThere ? readManifestInputHash(file) : undefined,
    read: () => (read ??= { manifest: packageThere ? readManifestFile(file) : undefined }).manifest,
  };
}

/** The manifest of a stream's package, when both it and the package file exist. */
export function readManifest(vaultDir: string, stream: string): Manifest | undefined {
  const manifest = readManifestFile(path.join(vaultDir, vaultPaths.manifest(stream)));
  return manifest && fileExists(path.join(vaultDir, vaultPaths.package(stream))) ? manifest : undefined;
}

function fileExists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}
