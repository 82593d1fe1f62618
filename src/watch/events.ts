import type { Summarizer } from '../llm/types.js';
import type { BuildReport } from '../pipeline/build.js';
import type { Diagnostic } from '../vault/model.js';
import type { Change } from './paths.js';

/** What `memvault watch` is started with, and the events it reports (watcher.ts). */

export interface WatchOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  /** Fixed clock for every rebuild (`--now`, tests); default: the wall clock at each rebuild. */
  now?: Date;
  force?: boolean;
  through?: string;
  /** Quiet time after the last file event before a rebuild starts (default 50 ms). */
  debounceMs?: number;
  /** `--commit-every`: batch commits at this interval (off by default). */
  commitEveryMs?: number;
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
  onEvent: (event: WatchEvent) => void;
}

/** One rebuild: what triggered it, what it wrote, how long it took. */
export interface RebuildEvent {
  type: 'rebuild';
  /** Wall-clock time the rebuild finished (ISO). */
  at: string;
  /** What triggered it, in words: `main/memories/x.md changed`, `start`, `new day`. */
  trigger: string;
  changes: { path: string; change: Change }[];
  /** Vault-relative files the build wrote, and the same named for people (`daily 2026-02-13`, `package main`, `index`). */
  written: string[];
  outputs: string[];
  /** Problems of the changed files (all problems on the first build and after a config change). */
  diagnostics: Diagnostic[];
  ms: number;
  report: BuildReport;
}

/** Everything the watcher reports; the CLI prints each as a line (or a JSON object). */
export type WatchEvent =
  | RebuildEvent
  | { type: 'ready'; vault: string; config: string; files: number }
  | { type: 'error'; at: string; trigger: string; message: string; hint?: string; diagnostics: Diagnostic[] }
  | { type: 'waiting'; at: string; message: string }
  | { type: 'note'; at: string; message: string }
  | { type: 'stopped'; at: string; rebuilds: number };
