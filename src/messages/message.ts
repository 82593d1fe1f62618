/**
 * The one message type of memvault: a problem with a place, a rule and a hint.
 *
 * It carries vfile-message's fields under the names memvault has always
 * written to `index.json` (`invalid`), the `--json` reports and the parse
 * cache, so those stay byte for byte the same:
 *
 * | vfile-message | here |
 * | --- | --- |
 * | `reason` | `reason` |
 * | `file` | `path` (vault-relative, or the config or transcript file) |
 * | `place` (start–end) | `line`, `column` (start, 1-based) and `end` |
 * | `ruleId` | `rule` (catalogued in `rules/`, documented in docs/errors.md) |
 * | `source` | always `memvault` (`MESSAGE_SOURCE`) |
 * | `fatal` true / false / undefined | `severity` error / warning / info |
 * | `note` | `hint`: what to do |
 * | `url` | `ruleUrl(rule)` |
 *
 * Every type here is plain data, so a message crosses worker threads, lives
 * in the parse cache and compares equal in tests.
 */

export type Severity = 'error' | 'warning' | 'info';

/** A place in a file: 1-based line and column. */
export interface Point {
  line: number;
  column: number;
}

/** A problem with a place, printed as `path:line:col severity reason (hint: …) [rule]`. */
export interface Diagnostic {
  /** The file: vault-relative POSIX path for vault files, else as the user named it. */
  path: string;
  /** Start of the place. */
  line: number;
  column: number;
  /** End of the place, when the problem spans a range. */
  end?: Point;
  severity: Severity;
  reason: string;
  hint?: string;
  /** Stable rule id, e.g. `memory/no-date` (see docs/errors.md). */
  rule: string;
}

/** Where a diagnostic points: a file and the start (and maybe end) of the place. */
export interface Place extends Point {
  path: string;
  end?: Point;
}

/** The specifics a throw site passes: they fill the `{name}` placeholders of the rule's hint. */
export type Facts = Readonly<Record<string, string | number>>;

/** `source` of every memvault message. */
export const MESSAGE_SOURCE = 'memvault';
