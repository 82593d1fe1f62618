import { calendarSummaryPath, tierOfFolder, tierOfStreamFile, WATERFALL_TIER_TABLE } from '../time/tier-names.js';
import type { CalendarTier, Tier } from './model.js';

/** The committed record's folder at the vault's top (store/committed-record.ts), committed with every build. */
export const RECORD_DIR = '.memvault-record';

/**
 * The vault layout (docs/architecture.md), as vault-relative POSIX paths. One place
 * decides every generated file's name so the loader, the planner and the
 * writer agree.
 */
export const vaultPaths = {
  memoriesDir: (stream: string) => `${stream}/memories`,
  archiveDir: (stream: string) => `${stream}/archive`,
  summary(stream: string, tier: CalendarTier, period: string): string {
    return calendarSummaryPath(stream, tier, period);
  },
  /** `history/<tier>/<period>-YYYYMMDD-HHMMSS.md`, stamped with the build's `now` (UTC). */
  history(stream: string, tier: Tier, period: string, now: Date): string {
    return `${stream}/history/${tier}/${period}-${stamp(now)}.md`;
  },
  /** Waterfall streams (docs/waterfall.md): the count-based short-term and long-term summaries. */
  waterfallRecent: (stream: string) => `${stream}/waterfall/recent.md`,
  waterfallLongterm: (stream: string) => `${stream}/waterfall/longterm.md`,
  waterfallHistoryDir: (stream: string) => `${stream}/waterfall/history`,
  /** `waterfall/history/recent-YYYYMMDD-HHMMSS.md`, stamped with the build's `now` (UTC); `-2`, `-3`… when taken. */
  waterfallHistory(stream: string, now: Date, n = 1): string {
    return `${stream}/waterfall/history/recent-${stamp(now)}${n > 1 ? `-${n}` : ''}.md`;
  },
  /** The agent prompt block of a waterfall stream. */
  context: (stream: string) => `${stream}/CONTEXT.md`,
  package: (stream: string) => `${stream}/UPLOAD_PACKAGE.md`,
  manifest: (stream: string) => `${stream}/UPLOAD_PACKAGE.manifest.json`,
  indexMarkdown: 'INDEX.md',
  indexJson: 'index.json',
} as const;

/** `YYYYMMDD-HHMMSS` in UTC. */
export function stamp(now: Date): string {
  const iso = now.toISOString(); // 2026-02-13T14:05:00.000Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

export type FileRole =
  | { role: 'memory'; stream: string; location: 'memories' | 'archive'; relativeId: string }
  | { role: 'summary'; stream: string; tier: Tier; period: string }
  | { role: 'ignored' };

/** What a vault-relative `.md` path is, judged from where it sits. */
export function classifyPath(path: string): FileRole {
  const parts = path.split('/');
  const stream = parts[0];
  if (!stream || parts.length < 2) return { role: 'ignored' };
  const folder = parts[1]!;
  const rest = parts.slice(2);
  if (folder === 'memories' && rest.length > 0) {
    return { role: 'memory', stream, location: 'memories', relativeId: stripMd(rest.join('/')) };
  }
  if (folder === 'archive' && rest.length > 1) {
    // archive/<YYYY-Qn>/<path inside memories>: the id survives archiving.
    return { role: 'memory', stream, location: 'archive', relativeId: stripMd(rest.slice(1).join('/')) };
  }
  const tier = tierOfFolder(folder);
  if (tier && rest.length === 1) return { role: 'summary', stream, tier, period: stripMd(rest[0]!) };
  // A tier with one summary per stream (`<stream>/longterm.md`): its period is its name.
  const single = parts.length === 2 ? tierOfStreamFile(folder) : undefined;
  if (single) return { role: 'summary', stream, tier: single, period: single };
  // waterfall/history/ holds copies: provenance, not inputs.
  const level = folder === 'waterfall' && rest.length === 1 ? WATERFALL_TIER_TABLE.find((row) => row.file === rest[0]) : undefined;
  if (level) return { role: 'summary', stream, tier: level.name, period: level.period };
  return { role: 'ignored' };
}

function stripMd(name: string): string {
  return name.replace(/\.md$/i, '');
}
