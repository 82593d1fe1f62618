import { memory } from './project.js';
import { mulberry32 } from '../../scripts/fixtures/synthetic-vault.js';

/**
 * A deterministic, plausible engineering history for end-to-end tests: 1–3
 * memories on most days, each a few paragraphs long, so that busy days are
 * well over a daily budget and the summarizer (not a plain merge) must run.
 * The same options always give byte-identical files.
 */

export interface HistoryOptions {
  /** First day, `YYYY-MM-DD`. */
  from: string;
  /** Last day, included. */
  to: string;
  seed?: number;
  /** Stream folder; default `main`. */
  stream?: string;
}

export interface GeneratedHistory {
  /** Project-relative path → file text, ready for `createProject`. */
  files: Record<string, string>;
  /** Project-relative memory paths per day with memories, days ascending. */
  byDay: Map<string, string[]>;
}

const COMPONENTS = [
  'ingest pipeline',
  'billing service',
  'auth gateway',
  'search indexer',
  'job scheduler',
  'rate limiter',
  'export CLI',
  'webhook dispatcher',
  'session store',
  'event bus',
  'audit log',
  'report generator',
];
const PEOPLE = ['Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Gustav', 'Hana', 'Ivan', 'Lena'];
const TECH = ['Redis', 'Kafka', 'Postgres', 'SQLite', 'gRPC', 'Terraform', 'Docker', 'nginx', 'ClickHouse', 'S3'];
const CAUSES = [
  'a missing index on the events table',
  'an off-by-one in the pagination cursor',
  'a race between two workers claiming one job',
  'stale DNS entries after the failover',
  'an unbounded retry loop',
  'a connection pool sized at five',
  'a forgotten await in the shutdown hook',
  'a cache key that ignored the locale',
];
const METRICS = [
  'p99 latency',
  'error rate',
  'queue depth',
  'memory usage',
  'build time',
  'cache hit rate',
  'throughput',
  'cold start time',
];
const FOLLOWUPS = [
  'the flaky integration test',
  'alerts on queue depth',
  'the failover runbook',
  'removing the old feature flag',
  'a load test of the new endpoint',
  'the dashboard for cache hits',
];
const DECISIONS = [
  'pin the dependency to the last good version',
  'move retries into the queue',
  'shard the table by tenant',
  'ship behind a feature flag first',
  'cap uploads at 25 MB',
  'use cursor pagination everywhere',
];

const rng = mulberry32;

/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Generates the history; every fifth day has no memory, the others 1–3 (every fourth day 3). */
export function generateHistory(options: HistoryOptions): GeneratedHistory {
  const random = rng(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const stream = options.stream ?? 'main';
  const files: Record<string, string> = {};
  const byDay = new Map<string, string[]>();
  let serial = 0;
  daysBetween(options.from, options.to).forEach((day, index) => {
    if (index % 5 === 4) return;
    const count = index % 4 === 1 ? 3 : 1 + Math.floor(random() * 2);
    const paths: string[] = [];
    for (let i = 0; i < count; i++) {
      serial++;
      const component = pick(COMPONENTS);
      const hour = String(8 + i * 4).padStart(2, '0');
      const paragraphs = [
        `Worked with ${pick(PEOPLE)} on the ${component} for most of the session (entry ${serial}). ` +
          `The ${pick(METRICS)} had drifted to ${10 + Math.floor(random() * 900)} after the last deploy, ` +
          `and the dashboards for ${pick(TECH)} showed the same pattern in two regions. ` +
          `We traced it to ${pick(CAUSES)}, which only shows up under sustained load.`,
        `Fixed the ${component} by rewriting the batching step and adding a regression test that replays the traffic from the incident window. ` +
          `${pick(PEOPLE)} reviewed the change and asked for a smaller default batch, which we took. ` +
          `The ${pick(METRICS)} is back to normal in staging and the canary in production looks healthy after an hour.`,
        `Decision: ${pick(DECISIONS)} for the ${component}, because it keeps rollback trivial and matches what the other teams already do. ` +
          `Next: ${pick(FOLLOWUPS)}, and a short write-up of entry ${serial} for the weekly review with ${pick(PEOPLE)}.`,
      ];
      const file = `vault/${stream}/memories/${day.slice(0, 7)}/${day}-${String(i + 1).padStart(2, '0')}-${component.replace(/\s+/g, '-')}.md`;
      files[file] = memory({
        date: `${day}T${hour}:${i === 0 ? '05' : '40'}:00Z`,
        title: `${component} session ${serial}`,
        kind: 'session',
        tags: [component.split(' ')[0]!],
        body: paragraphs.join('\n\n'),
      });
      paths.push(file);
    }
    byDay.set(day, paths);
  });
  return { files, byDay };
}
